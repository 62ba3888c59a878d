"""Align a groff `man` page (not mdoc) with its translation by structure, for docs_corpus.py.

A page is sections (.SH) of paragraphs (.PP, .TP, .IP, blank lines; a .TP tag is a paragraph of
its own; .nf/.EX blocks skipped), formatting stripped to plain text (`man_sections`). Sections are
paired in order when both pages have as many, paragraphs when a section has as many on both
sides (`align_man`). Help pages and package descriptions are docs_align.py's.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from pathlib import Path

from ..errors import CorpusError

_NAMED = {
    "em": "—", "en": "–", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "bu": "•",
    "co": "©", "rg": "®", "tm": "™", "hy": "-", "mi": "-", "pl": "+", "mu": "×", "di": "÷", "->": "→",
    "<-": "←", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›", "ga": "`", "ti": "~", "ha": "^", "rs": "\\",
    "sl": "/", "ba": "|", "at": "@", "sh": "#", "Do": "$", "ps": "¶", "sc": "§", "de": "°", "+-": "±",
    "lA": "⇐", "rA": "⇒", "ua": "↑", "da": "↓", "bv": "|", "br": "|",
}  # fmt: skip
_ESCAPE = re.compile(
    r"\\(?:f(?:\[[^\]]*\]|\(..|.)"  # font changes
    r"|\((?P<two>..)|\[(?P<long>[^\]]+)\]"  # named characters
    r"|\*(?:\[[^\]]*\]|\(..|.)"  # strings
    r"|s[-+]?(?:\d|\(\d\d|\[\d+\])"  # size changes
    r"|[kwhvlLnxyzoAbDHRSXY]'[^']*'|[kn](?:\(..|\[[^\]]*\]|.)"  # motions, registers
    r"|(?P<char>.))"
)
_FONT_MACROS = {"B", "I", "SM", "SB"}
_ALTERNATING = {"BR", "RB", "IR", "RI", "BI", "IB"}
_BREAKS = {"PP", "P", "LP", "sp", "HP", "SS", "RS", "RE", "TQ"}


_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", ":": "\u0308", "~": "\u0303", ",": "\u0327", "o": "\u030a"}
_LETTERS = {"ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o/": "ø", "O/": "Ø", "r!": "¡", "r?": "¿"}


def _named(name: str) -> str:
    r"""A groff special character: \(em, \('e (é), \[:u] (ü), \[u00E9]; "" when unknown."""
    if name in _NAMED or name in _LETTERS:
        return _NAMED.get(name) or _LETTERS[name]
    if len(name) == 2 and name[0] in _ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + _ACCENTS[name[0]])
    if re.fullmatch(r"u[0-9A-F]{4,5}", name):
        return chr(int(name[1:], 16))
    return ""


def _unescape(line: str) -> str:
    def one(m: re.Match) -> str:
        if m.group("two") or m.group("long"):
            return _named(m.group("two") or m.group("long"))
        char = m.group("char")
        if char is None:
            return ""
        return {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "t": " ", "'": "'", "`": "`"}.get(
            char, ""
        )

    return _ESCAPE.sub(one, line)


def _args(rest: str) -> list[str]:
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', rest)]


def man_sections(text: str) -> list[list[str]]:
    """A man page's sections, each a list of plain-text paragraphs; [] for mdoc or .so pages."""
    if re.search(r"^\.(?:Sh|Dd|so)\b", text, re.M):
        return []
    sections: list[list[str]] = []
    para: list[str] = []
    nofill = tag_next = False
    skipping_macro = False

    def flush() -> None:
        if para and sections:
            joined = " ".join(" ".join(para).split())
            if joined:
                sections[-1].append(joined)
        para.clear()

    for raw in text.splitlines():
        if skipping_macro:
            skipping_macro = not raw.startswith("..")
            continue
        if raw.startswith((".", "'")):
            request, _, rest = raw[1:].strip().partition(" ")
            if request.startswith('\\"') or request == "":
                continue
            if request in ("de", "de1", "am", "ig"):
                skipping_macro = True
            elif request == "SH":
                flush()
                sections.append([])
            elif request in ("nf", "EX"):
                flush()
                nofill = True
            elif request in ("fi", "EE"):
                nofill = False
            elif nofill:
                continue
            elif request in _BREAKS:
                flush()
            elif request in ("TP", "IP"):
                flush()
                tag_next = request == "TP"
            elif request in _FONT_MACROS | _ALTERNATING:
                words = [_unescape(a) for a in _args(rest)]
                para.append(("" if request in _ALTERNATING else " ").join(words))
                if tag_next:
                    flush()
                    tag_next = False
            elif request in ("UR", "MT", "UE", "ME"):
                if request in ("UE", "ME") and rest.strip():
                    para[-1:] = [(para[-1] if para else "") + _unescape(rest.strip())]
            continue
        if nofill:
            continue
        if not raw.strip():
            flush()
            continue
        para.append(_unescape(raw))
        if tag_next:
            flush()
            tag_next = False
    flush()
    return sections


def read_man(path: Path) -> str:
    data = Path(path).read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise CorpusError(f"{path}: not a readable gzip file ({e})") from e
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def align_man(english: str, translated: str) -> list[tuple[str, str]]:
    a, b = man_sections(english), man_sections(translated)
    if len(b) == len(a) + 1:  # manpages-l10n adds a last section: the translators and the licence
        b = b[:-1]
    if not a or len(a) != len(b):
        return []
    return [pair for sa, sb in zip(a, b) if len(sa) == len(sb) for pair in zip(sa, sb)]
