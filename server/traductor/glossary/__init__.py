"""Glossaries: source term -> target term for a language pair, applied to a call's texts.

INTERFACE (shared with the glossary store, service/glossaries.py, and every protocol):

    Glossary(source_language, target_language, entries)   frozen, validated (GlossaryError names
                                                          the bad field or entry: INVALID_ARGUMENT)
    Glossary.from_pairs(source, target, pairs)            entries from any iterable of pairs
    Glossary.others                                       a stored glossary's other pairs (DeepL v3)
    GlossaryLookup.get(glossary_id) -> Glossary           what the gRPC servicer and HTTP handlers
                                                          ask for a `glossary_id`; raises
                                                          GlossaryNotFound (gRPC NOT_FOUND, HTTP 404)
    NO_GLOSSARIES                                         a lookup that knows none
    pipeline.translate/translate_many/prepare(..., glossary=Glossary | None)   (service/pipeline)

How a glossary is applied (docs/glossary.md says why, with the measurements):
`matching.find` finds the terms of a segment (whole words, case-insensitive, multi-word, longest
match first; an English plural of a term counts as the term). The service (service/pipeline: protect,
decode, restore) translates the segment exactly as without a glossary and each term alone, and `substitute`
replaces the model's own word for each term by the glossary's (`forms.py`: plural, capitals);
where the model's word is not in the translation, the segment is translated again with
`masking.mask`: each term behind a placeholder token `<phK>` numbered with the segment's own
placeholders, whose value is the target term. The decoder must produce every source placeholder
exactly once, so the target term is in that translation. A segment with no term is encoded
exactly as without a glossary.

This package knows nothing about models, tokenizers, gRPC or HTTP: it works on strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Protocol

from ..errors import InvalidInput, NotFound

MAX_TERM_CHARS = 1024  # one side of one entry


class GlossaryError(InvalidInput):
    """A glossary that cannot be used as given; the message names the field or the entry."""


class GlossaryNotFound(NotFound):
    """A `glossary_id` that names no stored glossary (gRPC NOT_FOUND, HTTP 404)."""


def _check_term(where: str, side: str, value) -> None:
    if not isinstance(value, str):
        raise GlossaryError(f"{where}: {side} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise GlossaryError(f"{where}: {side} is empty")
    if value != value.strip():
        raise GlossaryError(f"{where}: {side} {value!r} starts or ends with whitespace")
    if any(c in value for c in "\t\r\n"):
        raise GlossaryError(f"{where}: {side} {value!r} holds a tab or a line break")
    if len(value) > MAX_TERM_CHARS:
        raise GlossaryError(f"{where}: {side} is longer than {MAX_TERM_CHARS} characters")


@dataclass(frozen=True)
class Glossary:
    """Source term -> target term for one language pair (codes in any form languages.py reads;
    "" means the pair of the model the call goes to, as for inline entries)."""

    source_language: str
    target_language: str
    entries: tuple[tuple[str, str], ...]
    # a stored glossary's other dictionaries (DeepL's v3 glossaries: one per pair); the service
    # uses the one of the call's pair (service/glossary_use.for_model)
    others: tuple[Glossary, ...] = field(default=(), repr=False)

    def __post_init__(self):
        for name in ("source_language", "target_language"):
            if not isinstance(getattr(self, name), str):
                raise GlossaryError(f"glossary {name} must be a string, got {getattr(self, name)!r}")
        if not isinstance(self.entries, tuple):
            kind = type(self.entries).__name__
            raise GlossaryError(f"glossary entries must be a tuple of (source, target) pairs, got {kind}")
        if not self.entries:
            raise GlossaryError("glossary entries: the glossary has no entries")
        seen: dict[str, int] = {}
        for i, entry in enumerate(self.entries, 1):
            if not isinstance(entry, tuple) or len(entry) != 2:
                raise GlossaryError(f"glossary entry {i}: must be a (source, target) pair, got {entry!r}")
            source, target = entry
            where = f"glossary entry {i} ({source!r})" if isinstance(source, str) else f"glossary entry {i}"
            _check_term(where, "source", source)
            _check_term(where, "target", target)
            key = " ".join(source.casefold().split())
            if key in seen:
                raise GlossaryError(f"{where}: the source term is entry {seen[key]} already (case-insensitive)")
            seen[key] = i

    @classmethod
    def from_pairs(cls, source_language: str, target_language: str, pairs: Iterable) -> Glossary:
        return cls(source_language, target_language, tuple(tuple(p) if isinstance(p, list) else p for p in pairs))

    def with_languages(self, source_language: str, target_language: str) -> Glossary:
        """The same entries for the given pair (an inline glossary takes the call's model's)."""
        return Glossary(source_language, target_language, self.entries)

    @cached_property
    def index(self):
        """The lookup table `matching.find` uses, built once per glossary."""
        from .matching import TermIndex

        english = self.source_language.replace("_", "-").split("-")[0].lower() in ("", "en", "eng")
        return TermIndex(self.entries, plurals=english)

    def find(self, text: str, protected: list[tuple[int, int]] = ()):
        """The terms of `text` (matching.Found), left to right, none overlapping `protected` spans."""
        from .matching import find

        return find(self, text, protected)


class GlossaryLookup(Protocol):
    """What gives the Glossary a `glossary_id` names (service/glossaries.py stores them)."""

    def get(self, glossary_id: str) -> Glossary:
        """The glossary; GlossaryNotFound if there is none by that id."""
        ...


class NoGlossaries:
    """A lookup that knows no glossary: every id is NOT_FOUND."""

    def get(self, glossary_id: str) -> Glossary:
        raise GlossaryNotFound(f"glossary {glossary_id!r} not found (this server stores no glossaries)")


NO_GLOSSARIES = NoGlossaries()

__all__ = [
    "Glossary",
    "GlossaryError",
    "GlossaryLookup",
    "GlossaryNotFound",
    "MAX_TERM_CHARS",
    "NO_GLOSSARIES",
    "NoGlossaries",
]
