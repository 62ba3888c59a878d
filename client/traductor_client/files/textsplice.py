"""A text file written back as read, with only the translated texts replaced.

translate-toolkit writes the text formats by rebuilding the whole file from what it parsed: JSON
re-indented, SubRip with "\\n" line endings, text without its whitespace-only lines, Markdown
re-rendered (tables re-padded, hard breaks respelled). So a format finds, when it reads the file,
where each unit's text lies in it (``Places``), and ``Places.render`` replaces those stretches
only: everything else keeps its bytes. A format that cannot place every unit (``Places.complete``
false) is written by translate-toolkit as before.

What this module does not know: any format's syntax.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

Span = Tuple[int, int]


class Places:
    """Where each unit's text lies in the file's text (unit id -> span)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: Dict[int, Span] = {}
        self.complete = True
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def line(self, number: int) -> int:
        """The offset where a line (1-based) begins (the end of the text past the last line)."""
        return self.line_starts[number - 1] if 0 < number <= len(self.line_starts) else len(self.text)

    def put(self, key: int, span: Optional[Span]) -> None:
        """Record a unit's span; None: it was not found, so the file is not spliced."""
        if span is None:
            self.complete = False
        else:
            self.spans[key] = span

    def render(self, replacements: Dict[int, str]) -> str:
        """The text with each unit's span (by key) replaced by its new text."""
        edits: List[Tuple[int, int, str]] = sorted((*self.spans[key], new) for key, new in replacements.items())
        out, at = [], 0
        for start, stop, new in edits:
            out += [self.text[at:start], new]
            at = stop
        out.append(self.text[at:])
        return "".join(out)


__all__ = ["Places"]
