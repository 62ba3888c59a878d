"""Filling a document: which units to translate, which texts to send, and writing back the
translations that pass the checks. The same steps for every format and for both callers (the
client command through gRPC ``TranslateBatch``, the HTTP server through its engine):

    job = Job(document, include_review=False)
    job.requests        {"text": [distinct texts], "html": [...]}: what to send, each text once
    (the caller translates them its own way, into {(format, text): Outcome})
    job.finish(outcomes, mark_review=True) -> the units filled; job.report says what happened

A translation the service cut short (at its length limit, or stopped looping), flagged as failing
a check of the output against its source (the note names the checks) or gave with low
confidence is written marked for review (po fuzzy, XLIFF needs-review, Qt unfinished) whatever
``mark_review`` says, counted apart from the filled units and listed with why (``Report.review``);
a format that cannot mark a translation for review does not get a cut-short or a flagged one at all
(skipped: its source stays).

A text's leading and trailing whitespace and newlines ("Usage:\\n", "Name: ") are not sent:
they are copied from the source onto the translation (msgfmt requires it for newlines, and
subtitles and Markdown depend on it). Everything in between is sent whole.

What this module does not know: how a format reads, checks or writes a unit (the document
does, in ``fill``), nor how texts reach the service.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Protocol, Sequence, Tuple

from traductor_client.files.units import FIXED, OBSOLETE, REVIEW, TRANSLATED, Report, Unit

# (translation, "") or (None, why there is none); a third item, when there is one, says why the
# translation needs review ("" when it does not; `outcome` writes CUT_SHORT or LOW_CONFIDENCE notes)
Outcome = Tuple[Optional[str], ...]
CUT_SHORT = "cut short"
LOW_CONFIDENCE = "low confidence"
MARKUP_UNSURE = "markup not placed with confidence"  # its confidence is low too (docs/segmentation.md)
FAILED_CHECKS = "failed checks"  # the output differs from its source where it must not (docs/protected-spans.md)


class Document(Protocol):
    """A parsed translation file (one implementation per format, in ``formats``)."""

    kind: str  # "po", "xliff", ... (the format's name in reports and docs)
    units: List[Unit]
    review_word: str  # how the format marks a translation for review ("fuzzy", "unfinished"...)
    review_flag: str  # the CLI option that retranslates units waiting for review

    def fill(self, unit: Unit, translations: List[str], mark_review: bool) -> Tuple[str, str]:
        """Check and write the translations of ``unit``: ("filled", "") or ("rejected" or
        "skipped", why)."""

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        """The file with the filled units, everything else as read byte for byte; ``language``
        (the target's code, when known) where the format says the file's language (.po
        ``Language:`` when missing, ``<html lang>``)."""


def split_edges(text: str) -> Tuple[str, str, str]:
    """(leading whitespace, the text to translate, trailing whitespace)."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core) :]


_CUTS = {
    "length": "the service stopped it at its length limit",
    "loop": "the service stopped it repeating itself",
}


def outcome(
    text: str,
    finish_reason: str,
    confidence: Optional[float] = None,
    low: bool = False,
    markup: bool = False,
    checks: Sequence[str] = (),
) -> Outcome:
    """A service answer as an Outcome: a text with a part left untranslated, an empty text or one
    that ended for another reason is not written; a sentence cut short, one that failed the
    service's `checks` of the output against its source (named in the note), or a translation of
    low `confidence` (the service's `low` flag), is written for review; `markup`: the low
    confidence is an inline element the service could not place with confidence."""
    if finish_reason == "untranslated":
        return None, "the service could not translate part of it (nothing came back for a sentence)", ""
    if finish_reason not in ("eos", *_CUTS):
        return None, f"the service stopped before the end of the sentence ({finish_reason})", ""
    if not text.strip():
        return None, "the service returned an empty translation", ""
    failed = f"{FAILED_CHECKS}: {', '.join(checks)}" if checks else ""
    if finish_reason in _CUTS:
        return text.strip(), "", "; ".join(filter(None, (f"{CUT_SHORT}: {_CUTS[finish_reason]}", failed)))
    if checks:
        return text.strip(), "", failed
    if low:
        why = MARKUP_UNSURE if markup else LOW_CONFIDENCE
        return text.strip(), "", f"{why} ({confidence:.2f})" if confidence is not None else why
    return text.strip(), "", ""


class Job:
    def __init__(self, document: Document, include_review: bool = False) -> None:
        self.document = document
        self.report = Report(document.review_word, document.review_flag)
        self.todo: List[Unit] = []
        for unit in document.units:
            if unit.state == OBSOLETE:
                self.report.obsolete += 1
            elif unit.state == REVIEW and not include_review:
                self.report.review_kept += 1
            elif unit.state == TRANSLATED:
                self.report.already_translated += 1
            elif unit.state == FIXED:
                self.report.not_translatable += 1
            elif unit.skip:
                self.report.skipped.append((unit, unit.skip))
            else:
                self.todo.append(unit)
        self.requests: Dict[str, List[str]] = {}
        for unit in self.todo:
            for source in unit.requests:
                texts = self.requests.setdefault(unit.format, [])
                core = split_edges(source)[1]
                if core not in texts:
                    texts.append(core)

    @property
    def text_count(self) -> int:
        return sum(len(texts) for texts in self.requests.values())

    def finish(self, outcomes: Mapping[Tuple[str, str], Outcome], mark_review: bool = True) -> List[Unit]:
        """Write every translation that passes its checks; returns the units written (those
        needing review among them, marked so)."""
        filled = []
        for unit in self.todo:
            translations, reason, notes = [], "", []
            for source in unit.requests:
                lead, core, trail = split_edges(source)
                text, reason, note = (*outcomes.get((unit.format, core), (None, "not translated")), "")[:3]
                if text is None:
                    break
                notes += [note] if note and note not in notes else []
                translations.append(lead + text + trail)
            cut = next((n for n in notes if n.startswith((CUT_SHORT, FAILED_CHECKS))), "")
            if not reason and cut and not self.document.review_word:
                reason = f"{cut}; a {self.document.kind} file cannot mark it for review"
            review = mark_review or bool(notes)
            result, reason = ("skipped", reason) if reason else self.document.fill(unit, translations, review)
            if result == "filled" and notes:
                self.report.review.append((unit, "; ".join(notes)))
                filled.append(unit)
            elif result == "filled":
                self.report.filled += 1
                filled.append(unit)
            else:
                getattr(self.report, result).append((unit, reason))
        return filled
