"""The text layer: whole texts (plain or HTML) in, model-sized segments out, and back.

It knows about lines, sentences, markup and the text-level limits of a request; it knows
nothing about models, tokenizers or the service (a segment's length limit is a callable given by
the caller), and it never imports torch.

    p = plan(text, "text", too_long=lambda s: len(tok.encode(s)) > 200)
    outs = [translate(s.text) for s in p.segments]      # all together: rows of one batch
    p.assemble(outs)                                     # the text with the same separators

    stream = DeltaStream(p)                              # streaming, in text order
    send(stream.begin()); send(stream.push(i, delta)); send(stream.finish(i, text))
"""

from .limits import ControlCharacter, LimitExceeded, TextError, TextLimits, TooManyChars, TooManySegments, UnknownFormat
from .pieces import Kind, Piece, needs_translation
from .segment import FORMATS, Plan, Segment, char_budget, plan
from .stream import DeltaStream

__all__ = [
    "FORMATS",
    "ControlCharacter",
    "DeltaStream",
    "Kind",
    "LimitExceeded",
    "Piece",
    "Plan",
    "Segment",
    "TextError",
    "TextLimits",
    "TooManyChars",
    "TooManySegments",
    "UnknownFormat",
    "char_budget",
    "needs_translation",
    "plan",
]
