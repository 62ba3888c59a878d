"""Rewrites of a text from one register into the other by each language's rules: formal -> informal
for Russian and Dutch (вы -> ты, u -> je), informal -> formal for Italian and Brazilian Portuguese
(tu -> Lei, você -> o senhor).

The first serve data augmentation: corpora of Russian and Dutch address the reader formally far
more often than informally, so a model sees too few informal references to learn the register on
request (scripts/model/register_augment.py, docs/register-augment.md). The second serve Italian and
Brazilian `formality=more`, whose catalogs almost never say Lei / o senhor: the text pipeline's
register stage (service/pipeline/register.py) rewrites a model's informal output.

`informal(text, language)` and `formal(text, language)` share one recipe: the text must read in
the other register (text/address, the reader scripts/measure/formality_eval.py measures with), no
word of it may be glued to an accelerator, the language's rules must convert every word of that
register with certainty, and the result must read in the register wanted. They return (text,
CONVERTED), or (None, reason).

One module a language (russian.py, dutch.py, italian.py, portuguese.py: what each converts and
skips), what they share in common.py, their word tables in words.py. This package knows nothing
of models, tags or the pipeline.
"""

from __future__ import annotations

import re

from .. import address
from ..address_text import Words
from . import common as C
from . import dutch, italian, portuguese, russian
from .common import ACCELERATOR, Skip

CONVERTED = "converted"
NOT_FORMAL = "not read formal"
LEFT_FORMAL = "formal word left after the rules"
NOT_INFORMAL = "result not read informal"
NOT_INFORMAL_TEXT = "not read informal"
LEFT_INFORMAL = "informal word left after the rules"
NOT_FORMAL_RESULT = "result not read formal"

_ACCELERATOR = re.compile(r"(?<=\w)&(?=\w)")


def informal(text: str, language: str, source: str = "") -> tuple[str | None, str]:
    """(the informal rewrite, CONVERTED) of a text the reader reads as formal, else (None, reason)."""
    return _rewrite(text, language, source, address.FORMAL, address.INFORMAL)


def formal(text: str, language: str, source: str = "") -> tuple[str | None, str]:
    """(the formal rewrite, CONVERTED) of a text the reader reads as informal, else (None, reason)."""
    return _rewrite(text, language, source, address.INFORMAL, address.FORMAL)


FROM = {address.FORMAL: address.INFORMAL, address.INFORMAL: address.FORMAL}  # a register -> the one rewritten into it


def rewrite(text: str, register: str, language: str, source: str = "") -> tuple[str | None, str]:
    """`formal` or `informal`, by the `register` wanted (a model's register_rewrites name it)."""
    return _rewrite(text, language, source, FROM[register], register)


# why a text is not rewritten, by the register it is read in ("not read formal"), or left in
# after the rules ("formal word left"), or by the register the rewrite failed to reach
_NOT_READ = {address.FORMAL: NOT_FORMAL, address.INFORMAL: NOT_INFORMAL_TEXT}
_LEFT = {address.FORMAL: LEFT_FORMAL, address.INFORMAL: LEFT_INFORMAL}
_NOT_REACHED = {address.INFORMAL: NOT_INFORMAL, address.FORMAL: NOT_FORMAL_RESULT}


def _rewrite(text: str, language: str, source: str, have: str, want: str) -> tuple[str | None, str]:
    """A text the reader reads in register `have`, rewritten into `want` by its language's rules."""
    rules = _RULES if want == address.INFORMAL else _FORMAL_RULES
    base = language.replace("_", "-").lower().split("-")[0]
    if base not in rules:
        known = ", ".join(sorted(INFORMAL_LANGUAGES if want == address.INFORMAL else FORMAL_LANGUAGES))
        raise ValueError(f"no conversion rules to the {want} register for {language!r} (known: {known})")
    if address.read(text, language, source) != have:
        return None, _NOT_READ[have]
    if _ACCELERATOR.search(text) or _glued_words(text, language, source, have):
        return None, ACCELERATOR
    try:
        out = rules[base](text, source)
    except Skip as e:
        return None, str(e)
    found = address.read(out, language, source)
    if found != want:
        return None, _LEFT[have] if found in (have, address.MIXED) else _NOT_REACHED[want]
    return out, CONVERTED


def _glued_words(text: str, language: str, source: str, register: str) -> bool:
    """Whether a word of `register` is glued to an accelerator or an escape."""
    words = set(address.markers(text, language, source)[register])
    w = Words(text)
    return any(word in words and C.glued(text, *w.spans[i]) for i, word in enumerate(w.words))


_RULES = {"ru": russian.informal, "nl": dutch.informal}  # into the informal register
_FORMAL_RULES = {"it": italian.formal, "pt": portuguese.formal}  # into the formal one

INFORMAL_LANGUAGES = frozenset(_RULES)  # `informal` rewrites these
FORMAL_LANGUAGES = frozenset({"it", "pt-BR"})  # `formal` rewrites these (Portuguese as Brazil's)


def check(register: str, language: str) -> None:
    """ValueError unless the rules rewrite texts of `language` into `register` ("formal":
    `formal`, "informal": `informal`), as a model that delivers a register by a rewrite needs
    (model/controls.Registers)."""
    rules, known = (_FORMAL_RULES, FORMAL_LANGUAGES) if register == address.FORMAL else (_RULES, INFORMAL_LANGUAGES)
    if register not in FROM or language.replace("_", "-").lower().split("-")[0] not in rules:
        raise ValueError(
            f"no rules rewrite {language or 'its target'!r} into the {register} register "
            f"(known: {', '.join(sorted(known))})"
        )
