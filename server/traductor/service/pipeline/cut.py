"""cut: a text into its segments (the first stage).

The text layer (`traductor.text.plan`) cuts a text into lines and sentences, cuts a sentence too
long for the model (`max_input_tokens`, measured in the model's tokens), keeps pass-through pieces
(numbers, punctuation, placeholders alone) and, for HTML, the markup outside and around the
segments; beyond `engine.text_limits` (characters, segments) it raises `LimitExceeded`. Every
piece measured is tokenized once, and the protect stage takes those tokens (`Cut.encoded`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...options import DecodingOptions
from ...text import Plan, TextError, plan
from ..async_engine import AsyncEngine


@dataclass(frozen=True)
class Cut:
    """A text's plan, and each piece's (source ids, placeholder values) as measured."""

    plan: Plan
    format: str = "text"
    encoded: dict[str, tuple[list[int], list[str]]] = field(default_factory=dict)


def cut(engine: AsyncEngine, text: str, options: DecodingOptions, format: str = "text") -> Cut:
    """The text's plan; TextError (or LimitExceeded) for a text that cannot be translated."""
    if not text or not text.strip():
        raise TextError("text is empty")
    limit, encoded = engine.limits.max_input_tokens, {}

    def too_long(piece: str) -> bool:  # each piece tokenized once
        if piece not in encoded:
            encoded[piece] = engine.encode(piece, options)
        return len(encoded[piece][0]) > limit

    pieces = plan(text, format, too_long=too_long, limits=engine.text_limits, language=engine.language)
    return Cut(pieces, format, encoded)
