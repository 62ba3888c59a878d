"""What the scheduler knows about one request, and what it tells the caller about it.

The caller (the gRPC servicer, or the offline translator) builds a `Request` and gives it a
`sink`: a function the engine thread calls with a `TokenEvent` for every new token and one
`FinishEvent` at the end. The caller may set `cancelled` from any thread; the scheduler looks
at it before every step. Everything the scheduler keeps about a request is in its
`RequestState`, whose `status` says where the request is: WAITING -> RUNNING -> FINISHED (a
request may also go from WAITING straight to FINISHED: cancelled, past its deadline, failed).
"""

from __future__ import annotations

import enum
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..model import placeholders
from ..model.tokenizer import Tokenizer
from ..options import DecodingOptions
from .beam_transformers import TransformersBeam


class FinishReason(enum.Enum):
    EOS = "eos"
    LENGTH = "length"
    LOOP = "loop"  # the output looped: it was ended there (model/constraints.py's loop rule)
    CANCELLED = "cancelled"
    DEADLINE = "deadline"
    ERROR = "error"
    UNTRANSLATED = "untranslated"  # a text's: a segment came back with nothing in it, its source kept


@dataclass
class Timings:
    queue: float = 0.0
    encode: float = 0.0
    decode: float = 0.0
    total: float = 0.0
    first_token: float = 0.0

    def then(self, later: Timings, first_token: float) -> Timings:
        """The timings of this decode and `later`, one after the other (a glossary's second pass,
        a pivot's second hop): each part added; `first_token` as the caller counts it."""
        return Timings(
            queue=self.queue + later.queue,
            encode=self.encode + later.encode,
            decode=self.decode + later.decode,
            total=self.total + later.total,
            first_token=first_token,
        )


@dataclass
class TokenEvent:
    index: int
    token_id: int
    text_delta: str
    logprob: float


@dataclass
class FinishEvent:
    reason: FinishReason
    text: str
    token_ids: list[int]
    logprobs: list[float]  # with return_scores, else empty
    input_tokens: int
    timings: Timings
    final_delta: str = ""  # text not yet sent in a TokenEvent (held back bytes, beam output)
    error: BaseException | None = None
    confidence: float = 0.0  # how much to trust the translation, 0..1 (engine/confidence.py)
    segments: list[FinishEvent] = field(default_factory=list)  # a whole text's: each segment's own event
    source: str = ""  # in a text's `segments`: the segment's source text
    markup_unsure: bool = False  # a segment's inline markup may wrap the wrong words (service/pipeline/restore.py)
    failed_checks: tuple[str, ...] = ()  # a segment's: the verifier's checks it failed (text/verify.py)
    alternatives: list[str] = field(default_factory=list)  # other translations, best first (options.alternatives)
    middle: str = ""  # a segment translated through English: the English text (service/pivot.py)

    @property
    def cut_short(self) -> bool:
        """Whether the output was stopped before the model ended it: at the length limit, or looping."""
        return self.reason in (FinishReason.LENGTH, FinishReason.LOOP)


# The end of a masked text that may still grow into a placeholder token ("<", "<p", "<ph1").
_PARTIAL_TOKEN = re.compile(r"<(?:p(?:h\d*)?)?\Z")  # \Z: "$" would also match before a final "\n"


class Detokenizer:
    """Turns a growing list of ids into text deltas whose concatenation is the final text.

    It decodes the whole prefix each time and sends what is new; text ending in U+FFFD (a
    multi-byte character whose bytes have not all arrived) is held back until it is complete,
    and so is a masked text ending in what may become a placeholder token (the model can spell
    "<ph0>" with byte pieces; sent as it came, "<ph0" would later turn into the placeholder).
    A model without placeholder tokens (an imported one) with placeholders in its source sends
    its text at the end: only then can `decode` repair them.
    """

    def __init__(self, tokenizer: Tokenizer, values: list[str]):
        self.tokenizer, self.values = tokenizer, values
        self.ids: list[int] = []
        self.sent = ""

    def text(self) -> str:
        return self.tokenizer.decode(self.ids, self.values)

    def push(self, token_id: int) -> str:
        self.ids.append(token_id)
        if self.values and not self.tokenizer.placeholder_ids:
            return ""  # a model without <phK> tokens: `decode` repairs the placeholders at the end
        masked = _PARTIAL_TOKEN.sub("", self.tokenizer.decode_masked(self.ids).rstrip("\ufffd"))
        stable = placeholders.unmask(masked, self.values)
        if not stable.startswith(self.sent):
            return ""  # the prefix changed shape: wait for the final flush
        delta, self.sent = stable[len(self.sent) :], stable
        return delta

    def finish(self) -> tuple[str, str]:
        """(whole text, the part not yet sent)."""
        text = self.text()
        if not text.startswith(self.sent):  # cannot happen with SentencePiece; never send wrong text
            raise RuntimeError("detokenizer sent text that is not a prefix of the final text")
        return text, text[len(self.sent) :]


class Status(enum.Enum):
    WAITING = "waiting"  # in the scheduler's queue
    RUNNING = "running"  # holds cache rows, decoded every step
    FINISHED = "finished"  # its FinishEvent is sent; nothing more happens to it


@dataclass
class Request:
    """What the caller asks for. The scheduler's bookkeeping lives in `state`."""

    id: str
    source_ids: list[int]  # EOS included
    values: list[str]  # placeholder values to restore
    options: DecodingOptions  # resolved: max_new_tokens is set
    sink: Callable[[TokenEvent | FinishEvent], None]
    deadline: float | None = None  # time.monotonic() value
    stream: bool = True  # False: no TokenEvents and no per-token detokenizing (unary calls)
    forced_first: int | None = None  # the first token to generate (NLLB's target language), else chosen
    cancelled: bool = False  # set by the caller, from any thread
    arrived: float = field(default_factory=time.monotonic)
    state: RequestState = field(init=False, repr=False)

    def __post_init__(self):
        self.state = RequestState()

    @property
    def n_rows(self) -> int:
        return self.options.beam_size

    @property
    def done(self) -> bool:
        return self.state.status is Status.FINISHED

    @property
    def tokens(self) -> list[int]:
        return self.state.tokens

    @property
    def rows(self) -> list[int]:
        return self.state.rows

    def stopped(self, now: float) -> FinishReason | None:
        """CANCELLED or DEADLINE when the caller no longer wants the result, else None."""
        if self.cancelled:
            return FinishReason.CANCELLED
        if self.deadline is not None and now >= self.deadline:
            return FinishReason.DEADLINE
        return None

    def timings(self, now: float) -> Timings:
        st = self.state
        return Timings(
            queue=max(st.admitted - self.arrived, 0.0) if st.admitted else now - self.arrived,
            encode=st.encode_seconds,
            decode=(now - st.decode_started) if st.decode_started else 0.0,
            total=now - self.arrived,
            first_token=(st.first_token - self.arrived) if st.first_token else 0.0,
        )


@dataclass
class RequestState:
    """The scheduler's side of a request (engine thread only)."""

    status: Status = Status.WAITING
    rows: list[int] = field(default_factory=list)  # its rows in the cache, in beam order
    tokens: list[int] = field(default_factory=list)  # output so far (EOS excluded)
    logprobs: list[float] = field(default_factory=list)  # of every token (the confidence reads them)
    required: Counter = field(default_factory=Counter)  # the source's placeholder tokens, with counts
    missing: Counter = field(default_factory=Counter)  # those not generated yet (EOS waits for them)
    repeat_limit: int = 0  # times in a row a unit may repeat before the output loops (Constraints.repeat_limit)
    register: int | None = None  # the register tag its source asks for: its bans (Constraints.register)
    rng: np.random.Generator | None = None  # sampling only
    detokenizer: Detokenizer | None = None  # streaming only
    beam: BeamState | TransformersBeam | None = None  # beam search only (TransformersBeam: imported models)
    admitted: float = 0.0
    decode_started: float = 0.0
    first_token: float = 0.0
    encode_seconds: float = 0.0


@dataclass
class BeamState:
    """Per-request beam search state, rows in the same order as RequestState.rows."""

    scores: np.ndarray  # (K,) sum of log-probabilities
    finished: np.ndarray  # (K,) bool
    lengths: np.ndarray  # (K,) tokens generated before finishing
    prefixes: np.ndarray  # (K, t) tokens so far (PAD after a beam finished)
    logprobs: np.ndarray  # (K, t) log p of each of those tokens (0 for PAD)

    @classmethod
    def start(cls, k: int) -> BeamState:
        """K beams, all but one at -inf: they start identical, so only one may grow at first."""
        return cls(
            np.array([0.0] + [-np.inf] * (k - 1)),
            np.zeros(k, bool),
            np.zeros(k),
            np.zeros((k, 0), dtype=np.int64),
            np.zeros((k, 0)),
        )
