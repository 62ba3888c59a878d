"""What a translation file is made of, whatever its format: units, and the report of what
happened to each.

A :class:`Unit` is one translatable message: its text (and its plural, if any), its state in
the file (to translate, translated, waiting for review, obsolete, not translatable), how the
service must read it (plain text or HTML, and the text sent when it is not the unit's own, as
Markdown's HTML) and, when it cannot be translated safely at all, why.
The format's reader keeps its own object in ``handle``; nothing here looks into it.

What this module does not know: any format, or the service.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

# A unit's state in its file
TODO = "todo"  # untranslated: to fill
TRANSLATED = "translated"  # translated and not waiting for review: untouched
REVIEW = "review"  # translated but waiting for review (po fuzzy, Qt unfinished...): kept unless asked
OBSOLETE = "obsolete"  # kept for history only (po #~, Qt vanished): untouched
FIXED = "fixed"  # marked not translatable (Android translatable="false"): untouched


@dataclass(eq=False)
class Unit:
    where: str  # "line 12", 'id "hello"', "00:00:01,000 --> ...": where a person finds it
    order: int  # the report lists units in this order (line number, or position)
    sources: List[str]  # the text, or [singular, plural]
    state: str = TODO
    context: str = ""  # shown in the report as "[context]"
    format: str = "text"  # how the service reads the texts: "text" or "html"
    skip: str = ""  # why it cannot be translated safely: reported, left as it is
    handle: Any = None  # the reader's own object for this unit
    sent: List[str] = field(default_factory=list)  # what the service gets, when not `sources` (Markdown: HTML)

    @property
    def requests(self) -> List[str]:
        """The texts sent to the service for this unit."""
        return self.sent or self.sources

    def label(self) -> str:
        """Where the unit is and what it says, on one line (newlines shown as \\n)."""
        text = json.dumps(self.sources[0], ensure_ascii=False)
        text = text if len(text) <= 60 else text[:56] + '..."'
        context = f"[{self.context}] " if self.context else ""
        return f"{self.where}: {context}{text}"


@dataclass
class Report:
    """What happened to every unit; ``lines()`` is the summary the CLI prints, ``as_json()`` the
    one the HTTP API and the page show."""

    review_word: str = "fuzzy"  # how the format says "waiting for review" ("": it cannot)
    review_flag: str = "--include-review"  # the option that retranslates those
    filled: int = 0
    already_translated: int = 0
    review_kept: int = 0
    obsolete: int = 0
    not_translatable: int = 0
    rejected: List[Tuple[Unit, str]] = field(default_factory=list)  # (unit, reason)
    skipped: List[Tuple[Unit, str]] = field(default_factory=list)
    # written but marked for review whatever was asked (not in `filled`): cut short, failed checks, low confidence
    review: List[Tuple[Unit, str]] = field(default_factory=list)

    def lines(self, marked: bool) -> List[str]:
        mark = f"marked {self.review_word}" if self.review_word else "listed below: the format cannot mark them"
        rows = [
            ("filled", self.filled, f"marked {self.review_word} for review" if marked and self.review_word else ""),
            ("needs review", len(self.review), f"written, {mark}: cut short, failed a check or low confidence"),
            ("rejected", len(self.rejected), "placeholders or markup do not match: not written"),
            ("skipped", len(self.skipped), "not translated"),
            ("already translated", self.already_translated, "untouched"),
            (f"{self.review_word or 'for review'}, kept", self.review_kept, f"{self.review_flag} retranslates them"),
            ("obsolete", self.obsolete, "untouched"),
        ]
        if self.not_translatable:
            rows.append(("not translatable", self.not_translatable, "untouched"))
        width = max(19, *(len(name) + 1 for name, _, _ in rows))
        out = [f"  {name:<{width}}{count:>6}" + (f"  ({note})" if count and note else "") for name, count, note in rows]
        for title, items in (("needs review", self.review), ("rejected", self.rejected), ("skipped", self.skipped)):
            if items:
                out.append(f"{title}:")
                out.extend(f"  {unit.label()}: {reason}" for unit, reason in sorted(items, key=_order))
        return out

    def as_json(self) -> Dict[str, Any]:
        def listed(items: List[Tuple[Unit, str]]) -> List[Dict[str, str]]:
            return [{"unit": unit.label(), "reason": reason} for unit, reason in sorted(items, key=_order)]

        return {
            "filled": self.filled,
            "alreadyTranslated": self.already_translated,
            "reviewKept": self.review_kept,
            "obsolete": self.obsolete,
            "notTranslatable": self.not_translatable,
            "rejected": listed(self.rejected),
            "skipped": listed(self.skipped),
            "needsReview": listed(self.review),
        }


def _order(item: Tuple[Unit, str]) -> int:
    return item[0].order
