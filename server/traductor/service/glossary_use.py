"""Which glossary a call uses, for the model it goes to: the part every protocol shares.

    requested(lookup, glossary_id, entries)  the call's glossary: a stored one by id (the lookup's
                                             GlossaryNotFound), inline entries (GlossaryError names
                                             the bad one), neither (None); both is InvalidInput
    for_model(glossary, model, target)        the glossary for the model's pair: inline entries take
                                             the pair; a stored glossary gives its dictionary of the
                                             pair (DeepL v3 glossaries have several); none: refused

Languages are compared by their primary language (`languages.tag`: "EN", "en-GB", NLLB's
"eng_Latn" are all English). This module knows nothing about gRPC or HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import languages
from ..errors import InvalidInput
from ..glossary import Glossary, GlossaryError, GlossaryLookup
from .models import Model


def requested(lookup: GlossaryLookup, glossary_id: str, entries: Sequence[tuple[str, str]]) -> Glossary | None:
    if glossary_id and entries:
        raise InvalidInput("a call takes glossary_id or inline glossary entries, not both")
    if glossary_id:
        return lookup.get(glossary_id)
    if entries:
        return Glossary("", "", tuple((s, t) for s, t in entries))
    return None


def _base(code: str) -> str:
    return languages.tag(code).split("-")[0]


def for_model(glossary: Glossary | None, model: Model, target_language: str = "") -> Glossary | None:
    """The glossary with the languages of the pair `model` translates this call into."""
    if glossary is None:
        return None
    pairs = model.languages
    pair = next((p for p in pairs if target_language and _base(p.target) == _base(target_language)), pairs[0])
    if not glossary.source_language and not glossary.target_language:
        return glossary.with_languages(pair.source, pair.target)
    for candidate in (glossary, *glossary.others):  # a stored glossary may have a dictionary per pair
        if _base(pair.source) == _base(candidate.source_language) and _base(pair.target) == _base(
            candidate.target_language
        ):
            return candidate  # the first keeps the others beside it: nothing applies them
    has = ", ".join(f"{g.source_language}->{g.target_language}" for g in (glossary, *glossary.others))
    raise GlossaryError(f"the glossary is {has}, the call translates {pair.source}->{pair.target} (model {model.name})")
