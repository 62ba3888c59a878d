"""Decoding options shared by every engine (PyTorch reference, ONNX engine, the server).

Pure Python: the serving image imports it without torch.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, replace
from functools import lru_cache

from .errors import InvalidInput  # an option out of range; the message names it


@dataclass(frozen=True)
class DecodingOptions:
    max_new_tokens: int = 0  # 0: automatic, see auto_max_new_tokens
    min_new_tokens: int = 0  # EOS is suppressed until this many tokens are out
    beam_size: int = 1
    temperature: float = 0.0  # 0: greedy (or beam search when beam_size > 1); > 0: sampling
    top_k: int = 0  # 0: no top-k filter
    top_p: float = 1.0  # 1: no nucleus filter
    seed: int = 0  # sampling seed; the same seed gives the same tokens
    return_scores: bool = False
    target_language: str = ""  # a multilingual model's target (a code of its bundle's languages); "": its default
    source_language: str = ""  # a many-to-many model's source (NLLB, M2M100); "": its default
    register: str = ""  # "formal" or "informal" (model/controls.py; a model trained with the tags); "": the model's own
    stop_loops: bool = True  # end an output that loops (model/constraints.py); off: to compare with generate()
    alternatives: int = 0  # other translations wanted: the beam's next-best hypotheses (for_segment widens the beam)

    @property
    def sampling(self) -> bool:
        return self.temperature > 0


# A caller's formality, as DeepL names it, -> the register it asks (model/controls.py). "more" and
# "less" require a model that delivers that register; the "prefer_" ones fall back to the default.
FORMALITIES = {"default": "", "more": "formal", "less": "informal", "prefer_more": "formal", "prefer_less": "informal"}


def register_of(formality: str, registers: Collection[str]) -> str:
    """The register for `formality` ("" or one of FORMALITIES) on a model that delivers `registers`
    (the tokenizer's: none for a model trained without register tags, one where only one was
    measured to work); InvalidInput for an unknown value, or "more"/"less" the model lacks."""
    if not formality:
        return ""
    if formality not in FORMALITIES:
        raise InvalidInput(f"formality {formality!r}: must be one of {', '.join(FORMALITIES)}")
    register = FORMALITIES[formality]
    if not register or register in registers:
        return register
    if formality.startswith("prefer_"):
        return ""
    if not registers:
        why = "this model has none (trained without register tags, or its config.json lists no register)"
    else:
        why = f"this model delivers only the {' and '.join(registers)} register"
    raise InvalidInput(f"formality {formality!r}: {why}; prefer_{formality} falls back to the default")


@dataclass(frozen=True)
class Limits:
    max_input_tokens: int = 256
    max_new_tokens: int = 256
    max_beam_size: int = 8
    stop_loops: bool = True  # the server's --no-loop-rule turns the loop rule off for every call
    beam_size: int = 1  # the beam a greedy call is decoded with (the server's --beam-size; for_segment)


def auto_max_new_tokens(source_tokens: int, cap: int) -> int:
    """A translation is rarely more than twice as long as its source (in subword tokens)."""
    return max(1, min(cap, 2 * source_tokens + 10))


SHORT_SOURCE_TOKENS = 3  # a segment of at most this many tokens, EOS included (one or two pieces: "hi", "do")
SHORT_SOURCE_BEAM = 4


def for_segment(options: DecodingOptions, source_tokens: int, limits: Limits) -> DecodingOptions:
    """The options a text segment of `source_tokens` tokens is decoded with: the caller's, except
    that greedy decoding (beam_size 1, no sampling) becomes the server's beam (`limits.beam_size`,
    its --beam-size: 1 by default, greedy stays greedy), and a beam of at least 4 (at most the
    server's --max-beam-size) in two cases.

    The server's beam: an operator who would rather give every call a beam search's quality than
    greedy decoding's speed (LibreTranslate, DeepL and the page have no beam for a caller to ask;
    a beam of 4 gained 0.8 to 1.3 chrF on the packaged models' documentation for about 5 times the
    decoding time: docs/model-card.md, "Beam search on the packaged models").

    A one- or two-piece segment: greedily, the packaged models often start such a word with
    SentencePiece's bare word-start piece and stop one letter later: "hi" into German gave "h",
    "do" "t", "be" into Spanish "s"; the beam keeps the whole word ("hi", "tun", "ser"). On the
    packaged models' memory entries of at most three tokens (400 of each length per language),
    exact matches went from 514 to 535 (de), 566 to 571 (es) and 559 to 567 (fr). Such a segment
    takes a few decode steps, so the beam's rows cost little.

    A register asked for (formality more/less): the decoders' register bans (model/constraints.py)
    take the wrong pronoun away, and greedy decoding keeps the verb it began with ("Bitte geben
    deines Passworts ein"), where a beam picks the verb that goes with the pronoun ("Bitte gib dein
    Passwort ein"; docs/model-card.md, the register bans).

    Alternatives asked for (`alternatives` N): the beam is at least N + 1 wide, and at least 4
    (at most --max-beam-size), so that N hypotheses other than the best are there to choose from
    when two of them spell the same text; the main translation is then the beam's best.

    Applied where a text is cut into segments (the service's pipeline/protect.py, decode.py's wrapped
    texts, `traductor translate`); the engine itself decodes what it is given."""
    if options.alternatives > 0 and not options.sampling:
        wide = max(options.beam_size, options.alternatives + 1, SHORT_SOURCE_BEAM)
        return replace(options, beam_size=max(1, min(wide, limits.max_beam_size)))
    if options.beam_size != 1 or options.sampling:
        return options
    wanted = limits.beam_size
    if source_tokens <= SHORT_SOURCE_TOKENS or options.register:
        wanted = max(wanted, SHORT_SOURCE_BEAM)
    beam = max(1, min(wanted, limits.max_beam_size))
    return options if beam == 1 else replace(options, beam_size=beam)


def resolve(options: DecodingOptions, source_tokens: int, limits: Limits) -> DecodingOptions:
    """Check every option against the limits; fill in the automatic max_new_tokens."""
    o = options
    if source_tokens > limits.max_input_tokens:
        raise InvalidInput(
            f"input is {source_tokens} tokens, over the limit of {limits.max_input_tokens} (--max-input-tokens)"
        )
    if not 0 <= o.max_new_tokens <= limits.max_new_tokens:
        raise InvalidInput(
            f"max_new_tokens must be between 1 and {limits.max_new_tokens} (0 for automatic; the server's "
            f"--max-new-tokens), got {o.max_new_tokens}"
        )
    max_new = o.max_new_tokens or auto_max_new_tokens(source_tokens, limits.max_new_tokens)
    if not 0 <= o.min_new_tokens <= max_new:
        raise InvalidInput(f"min_new_tokens must be between 0 and max_new_tokens ({max_new}), got {o.min_new_tokens}")
    if not 1 <= o.beam_size <= limits.max_beam_size:
        raise InvalidInput(
            f"beam_size must be between 1 and {limits.max_beam_size} (the server's --max-beam-size), got {o.beam_size}"
        )
    if not (math.isfinite(o.temperature) and 0 <= o.temperature <= 100):
        raise InvalidInput(f"temperature must be a finite number between 0 and 100, got {o.temperature}")
    if not (math.isfinite(o.top_p) and 0 < o.top_p <= 1):
        raise InvalidInput(f"top_p must be in (0, 1], got {o.top_p}")
    if o.top_k < 0:
        raise InvalidInput(f"top_k must be >= 0, got {o.top_k}")
    if o.seed < 0:
        raise InvalidInput(f"seed must be >= 0, got {o.seed}")
    if o.sampling and o.beam_size > 1:
        raise InvalidInput("beam search and sampling cannot be combined: set temperature 0 or beam_size 1")
    if o.alternatives and (o.sampling or not 0 < o.alternatives < o.beam_size):
        most = limits.max_beam_size - 1
        raise InvalidInput(
            f"alternatives must be between 0 and {most} (the server's --max-beam-size less one) and come from "
            f"beam search (not with sampling), got {o.alternatives}"
        )
    return _resolved(o, max_new, o.stop_loops and limits.stop_loops)


@lru_cache(maxsize=1024)
def _resolved(o: DecodingOptions, max_new_tokens: int, stop_loops: bool) -> DecodingOptions:
    """`o` with these two fields: frozen, so one copy serves every call that asks the same, instead of a
    `dataclasses.replace` a call."""
    return replace(o, max_new_tokens=max_new_tokens, stop_loops=stop_loops)
