"""Plain dataclasses for what the service returns, converted from protobuf at the edge.

Callers never see generated message classes: finish reasons become short strings ("eos",
"length", ...) and repeated fields become lists, so results can be compared, printed and
serialised (``dataclasses.asdict``) without protobuf knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple, Union

from traductor_client.v1 import translator_pb2

_FINISH_PREFIX = "FINISH_REASON_"


def finish_reason_name(value: int) -> str:
    """``FINISH_REASON_EOS`` -> ``"eos"``; values unknown to this client read ``"unknown(N)"``."""
    try:
        name = translator_pb2.FinishReason.Name(value)
    except ValueError:
        return f"unknown({value})"
    return name[len(_FINISH_PREFIX) :].lower() if name.startswith(_FINISH_PREFIX) else name.lower()


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0  # source tokens, EOS included
    output_tokens: int = 0  # generated tokens, EOS not included

    @classmethod
    def from_pb(cls, message: translator_pb2.Usage) -> "Usage":
        return cls(input_tokens=message.input_tokens, output_tokens=message.output_tokens)


@dataclass(frozen=True)
class Timings:
    """Server-side timings in seconds (see the proto for what each one spans)."""

    queue_seconds: float = 0.0
    encode_seconds: float = 0.0
    decode_seconds: float = 0.0
    total_seconds: float = 0.0
    time_to_first_token_seconds: float = 0.0

    @classmethod
    def from_pb(cls, message: translator_pb2.Timings) -> "Timings":
        return cls(
            queue_seconds=message.queue_seconds,
            encode_seconds=message.encode_seconds,
            decode_seconds=message.decode_seconds,
            total_seconds=message.total_seconds,
            time_to_first_token_seconds=message.time_to_first_token_seconds,
        )


@dataclass(frozen=True)
class Segment:
    """One segment of a translated text (a sentence, a line): what became of it, how much to trust it.

    ``finish_reason`` "length" or "loop" means the translation was cut short (``cut_short``);
    ``confidence`` is 0..1 (docs/confidence.md) and ``low_confidence`` whether it is under the
    server's threshold; ``markup_unsure`` whether an inline element of it may wrap the wrong words
    (docs/segmentation.md; its confidence is then low too); ``failed_checks`` the checks of the
    output against its source that it failed (docs/protected-spans.md; its confidence is then low)."""

    source: str
    text: str
    finish_reason: str
    cut_short: bool
    confidence: float
    low_confidence: bool
    markup_unsure: bool = False
    failed_checks: Tuple[str, ...] = ()

    @classmethod
    def from_pb(cls, message: translator_pb2.SegmentResult) -> "Segment":
        return cls(
            source=message.source,
            text=message.text,
            finish_reason=finish_reason_name(message.finish_reason),
            cut_short=message.cut_short,
            confidence=message.confidence,
            low_confidence=message.low_confidence,
            markup_unsure=message.markup_unsure,
            failed_checks=tuple(message.failed_checks),
        )


def _quality(segments: List[Segment], confidence: float) -> Tuple[Optional[float], bool, bool]:
    """(confidence, cut_short, low_confidence) of a text; confidence None from a server that sends
    no segments (one older than them, or a text with nothing translated)."""
    if not segments:
        return None, False, False
    return confidence, any(s.cut_short for s in segments), any(s.low_confidence for s in segments)


@dataclass(frozen=True)
class Translation:
    """One translated text.

    ``token_logprobs`` is empty and ``score`` is None unless the call asked for
    ``return_scores=True``. ``confidence`` is the lowest of its segments' (None when the server
    sent none); ``cut_short`` and ``low_confidence`` whether any segment is. ``alternatives``: other
    translations, best first, when the call asked for them (``alternatives=N``, unary calls).
    """

    text: str
    token_ids: List[int] = field(default_factory=list)
    finish_reason: str = "unspecified"
    usage: Usage = field(default_factory=Usage)
    timings: Timings = field(default_factory=Timings)
    token_logprobs: List[float] = field(default_factory=list)
    score: Optional[float] = None
    request_id: str = ""
    confidence: Optional[float] = None
    cut_short: bool = False
    low_confidence: bool = False
    segments: List[Segment] = field(default_factory=list)
    alternatives: List[str] = field(default_factory=list)

    @classmethod
    def from_pb(cls, message: translator_pb2.TranslateResponse) -> "Translation":
        logprobs = list(message.token_logprobs)
        segments = [Segment.from_pb(s) for s in message.segments]
        confidence, cut, low = _quality(segments, message.confidence)
        return cls(
            text=message.text,
            token_ids=list(message.token_ids),
            finish_reason=finish_reason_name(message.finish_reason),
            usage=Usage.from_pb(message.usage),
            timings=Timings.from_pb(message.timings),
            token_logprobs=logprobs,
            score=message.score if logprobs else None,
            request_id=message.request_id,
            confidence=confidence,
            cut_short=cut,
            low_confidence=low,
            segments=segments,
            alternatives=list(message.alternatives),
        )


@dataclass(frozen=True)
class StreamToken:
    """One generated token of a stream; ``text`` is exactly the new text (possibly empty)."""

    text: str
    token_id: int
    index: int
    logprob: Optional[float] = None  # only with return_scores


@dataclass(frozen=True)
class StreamFinal:
    """The last message of a stream; ``num_tokens`` is how many tokens came before it. ``text``
    is the translation's text not sent yet (segments kept as they are or answered from the
    translation memory, the end of the text): it belongs after every token's text."""

    finish_reason: str
    usage: Usage
    timings: Timings
    request_id: str
    num_tokens: int
    text: str = ""
    confidence: Optional[float] = None  # as in Translation
    cut_short: bool = False
    low_confidence: bool = False
    segments: List[Segment] = field(default_factory=list)


StreamEvent = Union[StreamToken, StreamFinal]


def stream_events_from_pb(
    message: translator_pb2.TranslateStreamResponse, with_scores: bool = False
) -> List[StreamEvent]:
    """The events of one message: a ``StreamToken`` per token it carries (several when the call
    asked for grouped tokens, ``StreamOptions.group_tokens``; one otherwise), or the final event."""
    if message.token_id < 0 or not message.token_ids:
        return [stream_event_from_pb(message, with_scores)]
    logprobs = list(message.token_logprobs) if with_scores else [None] * len(message.token_ids)
    return [
        StreamToken(text=text, token_id=token_id, index=message.index + i, logprob=logprob)
        for i, (token_id, text, logprob) in enumerate(zip(message.token_ids, message.text_deltas, logprobs))
    ]


def stream_event_from_pb(message: translator_pb2.TranslateStreamResponse, with_scores: bool = False) -> StreamEvent:
    """The final message is recognised by ``token_id == -1``, as the proto specifies."""
    if message.token_id < 0:
        segments = [Segment.from_pb(s) for s in message.segments]
        confidence, cut, low = _quality(segments, message.confidence)
        return StreamFinal(
            finish_reason=finish_reason_name(message.finish_reason),
            usage=Usage.from_pb(message.usage),
            timings=Timings.from_pb(message.timings),
            request_id=message.request_id,
            num_tokens=message.index,
            text=message.text_delta,
            confidence=confidence,
            cut_short=cut,
            low_confidence=low,
            segments=segments,
        )
    return StreamToken(
        text=message.text_delta,
        token_id=message.token_id,
        index=message.index,
        logprob=message.token_logprob if with_scores else None,
    )


@dataclass(frozen=True)
class ModelInfo:
    """What ``GetModelInfo`` (or ``ListModels``, per model) reports: the model's name and
    languages, its shape, the server's limits and its version."""

    name: str = ""
    source_language: str = ""
    target_language: str = ""
    d_model: int = 0
    n_heads: int = 0
    n_encoder_layers: int = 0
    n_decoder_layers: int = 0
    vocab_size: int = 0
    max_input_tokens: int = 0
    max_new_tokens: int = 0
    max_beam_size: int = 0
    max_batch_texts: int = 0
    bundle_sha256: str = ""
    quantization: str = ""
    version: str = ""
    max_input_chars: int = 0  # characters of one text (0: a server that does not say)
    max_segments: int = 0  # segments to translate in one text
    languages: Tuple[Tuple[str, str], ...] = ()  # every (source, target) pair the model translates
    is_default: bool = False  # the model of calls that name none
    serving: bool = False  # False while its engine restarts (a server without models: False)
    formality: bool = False  # both registers work: formality "more" and "less"
    registers: Tuple[str, ...] = ()  # those that work ("formal", "informal"); one only: the other is refused

    @classmethod
    def from_pb(cls, message: translator_pb2.ModelInfo) -> "ModelInfo":
        own = ("languages", "registers")
        fields = {name: getattr(message, name) for name in cls.__dataclass_fields__ if name not in own}
        languages = tuple((p.source, p.target) for p in message.languages)
        return cls(languages=languages, registers=tuple(message.registers), **fields)
