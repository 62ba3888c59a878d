"""A target language's code as a translated file writes it.

The services name a target in their own spelling ("fr", "pt-BR", DeepL's "EN-GB", NLLB's
"fra_Latn" is not a target code here: the HTTP API takes ISO codes). A file says its language in
its format's own way: gettext's ``Language:`` header "pt_BR", HTML's ``lang`` "pt-BR"
(BCP 47). ``tag(code, separator)`` gives either: the language lower case, a region upper case,
a script title case.

What this module does not know: which languages exist.
"""

from __future__ import annotations

import re

_PARTS = re.compile(r"[A-Za-z0-9]+")


def tag(code: str, separator: str = "-") -> str:
    """ "EN-GB" -> "en-GB", "zh_hant" -> "zh-Hant", "pt-br" with "_" -> "pt_BR"; "" -> ""."""
    parts = _PARTS.findall(code or "")
    if not parts:
        return ""
    out = [parts[0].lower()]
    for part in parts[1:]:
        out.append(part.title() if len(part) == 4 and part.isalpha() else part.upper() if len(part) <= 3 else part)
    return separator.join(out)


__all__ = ["tag"]
