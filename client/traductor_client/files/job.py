"""Filling a document: which units to translate, which texts to send, and writing back the
translations that pass the checks. The same steps for every format and for both callers (the
client command through gRPC ``TranslateBatch``, the HTTP server through its engine):

    job = Job(document, include_review=False)
    job.requests        {"text": [distinct texts], "html": [...]}: what to send, each text once
    (the caller translates them its own way, into {(format, text): Outcome})
    job.finish(outcomes, mark_review=True) -> the units filled; job.report says what happened

A text's leading and trailing whitespace and newlines ("Usage:\\n", "Name: ") are not sent:
they are copied from the source onto the translation (msgfmt requires it for newlines, and
subtitles and Markdown depend on it). Everything in between is sent whole.

What this module does not know: how a format reads, checks or writes a unit (the document
does, in ``fill``), nor how texts reach the service.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Protocol, Tuple

from traductor_client.files.units import FIXED, OBSOLETE, REVIEW, TRANSLATED, Report, Unit

Outcome = Tuple[Optional[str], str]  # (translation, "") or (None, why there is none)


class Document(Protocol):
    """A parsed translation file (one implementation per format, in ``formats``)."""

    kind: str  # "po", "xliff", ... (the format's name in reports and docs)
    units: List[Unit]
    review_word: str  # how the format marks a translation for review ("fuzzy", "unfinished"...)
    review_flag: str  # the CLI option that retranslates units waiting for review

    def fill(self, unit: Unit, translations: List[str], mark_review: bool) -> Tuple[str, str]:
        """Check and write the translations of ``unit``: ("filled", "") or ("rejected" or
        "skipped", why)."""

    def render(self, filled: List[Unit]) -> bytes:
        """The file with the filled units, everything else as read."""


def split_edges(text: str) -> Tuple[str, str, str]:
    """(leading whitespace, the text to translate, trailing whitespace)."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core) :]


def outcome(text: str, finish_reason: str) -> Outcome:
    """A service answer as an Outcome: a sentence cut short, a text with a part left untranslated
    or an empty text is not written."""
    if finish_reason == "untranslated":
        return None, "the service could not translate part of it (nothing came back for a sentence)"
    if finish_reason != "eos":
        return None, f"the service stopped before the end of the sentence ({finish_reason})"
    if not text.strip():
        return None, "the service returned an empty translation"
    return text.strip(), ""


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
        """Write every translation that passes its checks; returns the units filled."""
        filled = []
        for unit in self.todo:
            translations, reason = [], ""
            for source in unit.requests:
                lead, core, trail = split_edges(source)
                text, reason = outcomes.get((unit.format, core), (None, "not translated"))
                if text is None:
                    break
                translations.append(lead + text + trail)
            result, reason = ("skipped", reason) if reason else self.document.fill(unit, translations, mark_review)
            if result == "filled":
                self.report.filled += 1
                filled.append(unit)
            else:
                getattr(self.report, result).append((unit, reason))
        return filled
