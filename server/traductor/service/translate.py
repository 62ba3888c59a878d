"""One text translated, the same way for every protocol.

The HTTP API calls `translate` and `translate_many` here, with plain Python values: a text,
`DecodingOptions`, a request id, a timeout and a format ("text" or "html"). They are the very
functions the gRPC servicer calls (`Translate`, `TranslateBatch`), defined in `texts.py`: the
text is cut into segments by the text layer (plain text and HTML alike), all segments of a
request decode together as one engine group, and their translations are put back with the
text's own separators. So both protocols get the same engine, the same limits, the same checks
and the same result for the same text; protobuf and JSON stay at their own edges.
"""

from __future__ import annotations

from .texts import check_finish, prepare, translate, translate_many

__all__ = ["check_finish", "prepare", "translate", "translate_many"]
