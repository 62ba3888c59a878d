"""What the code knows of languages, in one place: no other module writes or parses a language code.

Two kinds of code meet here. A model declares its own (its bundle's `languages` and, for a
multilingual model, its tokenizer's target codes): `en`, `fra_Latn` (NLLB, FLORES-200),
`__fr__` (M2M100), `>>fra<<` (OPUS-MT). A caller sends whatever its tool sends: `fr`, `FR`,
`fra`, `fr-FR`, `zh-Hans`, `pt_BR`, or the model's own code. `tag` reads every one of these forms
into the shortest BCP 47 tag of the same language (ISO 639-1 where there is one, a script only
where the language is written in several); `CodeTable` is one model's codes, what each is shown
as (that tag, the English name) and which of them a caller's code means.

The standards and the names come from `langcodes` with `language_data` (the CLDR and IANA
registry data, kept current by their maintainers): it parses 639-1/639-3 and BCP 47, maps
individual languages to their macrolanguage (`arb` -> `ar`), knows each language's usual script
(so `fra_Latn` is `fr` while `zho_Hant` stays `zh-Hant`) and its English display name. Babel's
CLDR data has names but not the 639-3 and macrolanguage tables, so it was not chosen.

Decisions (docs/languages.md):
- a caller's region never stops a match (`pt-BR`, `pt-PT` -> a model's `pt`; `es-419` -> `es`),
  but an exact tag wins (a model with `pt-BR` and `pt-PT` gets each its own);
- a script does: `zh`, `zh-CN`, `zh-SG` mean Simplified, `zh-TW`, `zh-HK`, `zh-MO` Traditional,
  `sr` Cyrillic, `sr-Latn` only a Latin-script model; a caller is never served another script;
- Norwegian `no` means Bokmål (`nb`) when the model has no `no`; Nynorsk (`nn`) only by name;
- two of a model's codes that read as one tag (NLLB's `aka_Latn` and `twi_Latn` are both Akan)
  are shown apart: the one whose own code is the macrolanguage's keeps the short tag, the other
  its individual language's (`tw-Latn`); each stays reachable by its own code.

What a model is for (`ENGLISH`, the language of gettext msgids and the one `/detect`'s
heuristic knows; `LEGACY_PAIR`, the pair of checkpoints written before the pair was recorded) is
here too. This module does not know which models are served: the registry asks a model's table.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import langcodes
from langcodes.tag_parser import LanguageTagError

from .errors import InvalidInput

ENGLISH = "en"
SPANISH = "es"
LEGACY_PAIR = {"source": ENGLISH, "target": SPANISH}
AUTO = "auto"  # a call's source when the server is to detect it (LibreTranslate's convention)

# langcodes' distance between two tags (0: the same; 4-5: another region; 10 and more: another
# language or a script the reader may not read): up to this, a caller's code matches a model's.
MAX_DISTANCE = 9

# A script that is part of a language's usual one (Korean is written in Kore: Hangul with Han):
# a code naming the part means the language as usually written (NLLB's kor_Hang is `ko`).
PART_OF = {"Hang": "Kore", "Hira": "Jpan", "Kana": "Jpan"}

MAX_REMEMBERED = 4096  # codes a CodeTable remembers the answer for

_WRAPPED = re.compile(r">>(?P<opus>[^<>]+)<<|__(?P<m2m>[^_].*?)__")


class UnknownLanguage(InvalidInput):
    """A code that names no language in any form this module reads (INVALID_ARGUMENT, HTTP 400)."""


@functools.lru_cache(maxsize=4096)
def _language(code: str, macro: bool = True) -> langcodes.Language:
    text = code.strip()
    wrapped = _WRAPPED.fullmatch(text)
    if wrapped:
        text = wrapped.group("opus") or wrapped.group("m2m")
    try:
        language = langcodes.Language.get(langcodes.standardize_tag(text.replace("_", "-"), macro=macro))
    except (LanguageTagError, ValueError) as e:
        raise UnknownLanguage(f"{code!r} is not a language code") from e
    if not language.language or language.language == "und" or not language.is_valid():
        raise UnknownLanguage(f"{code!r} is not a language code")
    language = language.simplify_script()
    if language.script in PART_OF and _script(langcodes.Language.make(language.language)) == PART_OF[language.script]:
        language = langcodes.Language.make(language.language, territory=language.territory)  # kor_Hang is `ko`
    return language


def tag(code: str) -> str:
    """Any form of a language code -> its shortest BCP 47 tag: `FRA`, `fra_Latn`, `__fr__`,
    `>>fra<<` -> `fr`; `zho_Hant` -> `zh-Hant`; `pt_BR` -> `pt-BR`. UnknownLanguage if none."""
    return _language(code).to_tag()


def name(code: str) -> str:
    """The English display name of a code in any form ("French", "Chinese (Traditional)"; an
    individual language by its own name: `tw` is "Twi", not its macrolanguage's "Akan"); the code
    itself when it names no language."""
    try:
        return _language(code, macro=False).display_name()
    except UnknownLanguage:
        return code


def _script(language: langcodes.Language) -> str | None:
    return language.maximize().script


def script(code: str) -> str | None:
    """The ISO 15924 script a code's language is usually written in (`sr` -> Cyrl, `zh-Hant` ->
    Hant, `fra_Latn` -> Latn), or None when the data does not know it."""
    return _script(_language(code, macro=False))


def base(code: str) -> str:
    """A code's language alone, macrolanguage first: `zh-Hant` -> zh, `fra_Latn` -> fr, `arb` -> ar."""
    return _language(code).language


def known_base(code: str) -> str:
    """`base(code)`, or "" for no code or one that is not a language (the verifier's checks then
    read no language's punctuation: text/toolkit_checks.py)."""
    try:
        return base(code) if code else ""
    except UnknownLanguage:
        return ""


CAPITALIZED_NOUNS = frozenset({"de", "lb"})  # German and Luxembourgish write every noun with a capital


def capitalizes_nouns(code: str) -> bool:
    """Whether the language writes every noun with a capital letter ("Datei", not "datei"): a
    translation's first letter then says nothing of the source's case (engine/memory.find)."""
    return known_base(code) in CAPITALIZED_NOUNS


def through_english(source: str, target: str) -> bool:
    """Whether a pair no model translates directly may go through English (the server's routing and
    `traductor translate --from --to` ask the same): two known languages, neither English, not the
    same language (`de-AT` -> `de` is no pair to pivot)."""
    first, second = known_base(source), known_base(target)
    return bool(first and second) and ENGLISH not in (first, second) and first != second


class CodeTable:
    """One model's language codes: the tag each is shown as, and which one a caller's code means.

    Built from the model's own codes (any form); `shown(own)` and `own(code)` answer from it. A
    model's codes are few (one to about two hundred) and fixed, so the table is made once."""

    def __init__(self, codes: Iterable[str]):
        self.codes = list(dict.fromkeys(codes))
        self._shown: dict[str, str] = {}
        by_tag: dict[str, list[str]] = {}
        for own in self.codes:
            by_tag.setdefault(_safe_tag(own), []).append(own)
        for shown, owners in by_tag.items():
            if len(owners) == 1:
                self._shown[owners[0]] = shown
                continue
            for own in owners:  # one macrolanguage's individual languages: apart, by their own tags
                individual = _safe_tag(own, macro=False)
                self._shown[own] = shown if _is_macro_of(own, shown) else individual
        self._own = {shown: own for own, shown in self._shown.items()}
        self._found: dict[str, str | None] = {}  # a caller's code -> own(code), as asked

    def shown(self, own: str) -> str:
        """The tag a model's own code is shown as (`fra_Latn` -> `fr`)."""
        return self._shown.get(own, own)

    def own(self, code: str) -> str | None:
        """The model's own code a caller's code means: the code itself, the same tag, or the nearest
        tag of the same language and script (another region, `no` -> `nb`); None when none is, or
        when the code names no language. Remembered: a server asks the same few codes again and
        again, and the nearest-tag search is the slow part."""
        if code not in self._found:
            if len(self._found) >= MAX_REMEMBERED:  # callers' codes are not ours to keep without bound
                self._found.clear()
            try:
                self._found[code] = self._search(code)
            except UnknownLanguage:
                self._found[code] = None
        return self._found[code]

    def _search(self, code: str) -> str | None:
        if code in self._shown:
            return code
        wanted = [_safe_tag(code, macro=False), tag(code)]  # `tw` is Twi before it is Akan
        for exact in wanted:
            if exact in self._own:
                return self._own[exact]
        for near in wanted:  # the same language subtag first: langcodes puts Twi at distance 0 of Akan
            language = _language(near, macro=False).language
            same = [t for t in self._own if _subtag(t) == language] or [t for t in self._own if _subtag(t)]
            best = langcodes.closest_supported_match(near, same, max_distance=MAX_DISTANCE)
            if best is not None and _same_script(near, best):
                return self._own[best]
        return None


def _same_script(a: str, b: str) -> bool:
    """Whether two tags are written in one script (a language whose usual script the data does
    not know is taken to be written in the other's)."""
    first, second = _script(_language(a, macro=False)), _script(_language(b, macro=False))
    return first is None or second is None or first == second


def _subtag(tag: str) -> str | None:
    """A shown tag's language subtag; None for a model's private code (M2M100's `ns`)."""
    try:
        return _language(tag, macro=False).language
    except UnknownLanguage:
        return None


def _safe_tag(code: str, macro: bool = True) -> str:
    """A model's own code as a tag; a code no standard knows (a private one) is shown as itself."""
    try:
        return _language(code, macro).to_tag()
    except UnknownLanguage:
        return code


def _is_macro_of(own: str, shown: str) -> bool:
    """Whether a model's code names the macrolanguage itself (`aka_Latn` for `ak`), not one of its
    individual languages (`twi_Latn`)."""
    try:
        return _language(own, macro=False).language == _language(shown).language
    except UnknownLanguage:
        return False
