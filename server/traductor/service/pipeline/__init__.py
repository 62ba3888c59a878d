"""The text pipeline: what happens to a call's text between an edge and the engine.

Every edge (gRPC Translate, TranslateBatch and TranslateStream, both HTTP APIs, files, the page)
calls it once, with plain Python values and the engine of the model the call goes to (or a
`PivotEngine`, service/pivot.py, standing in its place for a pair through English), and knows
nothing of its stages. A call's segments pass these stages in order, each one module of this
package, each entered once:

    cut       cut.py       lines, sentences, a sentence too long for the model cut, pass-through
                           pieces, HTML markup kept aside; the text limits
    protect   protect.py   per segment: the memory's answer, or the engine's input: placeholders
                           and protected spans behind <phK> tokens, glossary terms (and the
                           masked input of their second pass), the register, markup pairs to
                           check, the segment's options
    decode    decode.py    every segment of the call in ONE engine group, with the decodes the
                           other stages need in that group (the words a pair wraps and each
                           glossary term, alone); a glossary's second pass as a second group
    restore   restore.py   the glossary's terms in place of the model's own words (or unmarked
                           after the second pass); each markup pair on the words it wrapped
    register  register.py  for a register the model delivers by a rewrite (model/controls.Registers),
                           each segment rewritten into it (text/register_convert), or flagged
    verify    verify.py    every segment against its source (text/verify.py): a certain repair
                           made, else the segment flagged
    join      join.py      the segments put back with the source's separators: one event a text
    stream    stream.py    or, for a stream, deltas in text order as the segments finish

    prepare(engine, text, options, format, glossary)       cut -> protect (run.py): a Prepared,
                                                           every check made before any model work
    translate(...), translate_many(...)                    the whole line (run.py): one event a text
    translate_all(engine, texts, options, id, refused)     the same for any number of texts, a refused
                                                           one left out (the offline commands)
    stream(engine, prepared, request_id, timeout)          decode -> restore -> register -> verify -> stream

Per segment: the decoding options apply to each segment on its own (`options.for_segment`), and
the model's input limit is a segment's: a longer sentence is cut, not refused. Per text:
`engine.text_limits` (characters and segments; beyond them `LimitExceeded`). A text's output
depends only on its own segments, never on what else is in the batch.

`traductor translate` and `traductor evaluate` run this same line (offline.py) over an AsyncEngine
whose core decodes a group inside `submit` (service/engine_inline.py), so a text is cut,
protected, verified and joined offline exactly as it is served.

This package knows nothing about gRPC, HTTP, metrics or logging (the engine records those; the
verifier's counts go to `engine.metrics`)."""

from .protect import Prepared
from .run import prepare, translate, translate_all, translate_many
from .stream import stream

__all__ = ["Prepared", "prepare", "stream", "translate", "translate_all", "translate_many"]
