"""Align a document with its translation by structure: help pages, man pages, package descriptions.

    help pages    Mallard (.page) and DocBook (.xml, .docbook) translated with itstool or po4a keep the
                  English element tree. Each block (p, title, desc, para, term, entry, ...; not code,
                  screen or synopsis) becomes one text, inline markup reduced to its text; blocks
                  are paired when both documents have the same element paths, else only those
                  before the first and after the last difference (align_blocks)
    man pages     groff `man` pages: docs_man.py
    descriptions  Debian's Translation-LL files: the short description, then the paragraphs (` .`
                  lines) of the long one, split further at list bullets when both sides have as many

Every function returns (english, translation) text pairs; what is kept (lengths, sentences) is
docs_corpus.py's business, and so is which package a document belongs to.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from lxml import etree

from ..errors import CorpusError

# A block is one translatable unit; inline elements inside it are part of its text.
BLOCKS = frozenset(
    {
        "p", "title", "subtitle", "desc", "caption", "td", "th",  # Mallard (td/th when they hold no p)
        "para", "simpara", "term", "entry", "glossterm", "refpurpose", "member", "label", "attribution",
    }
)  # fmt: skip
# Never text to translate: code, terminal sessions, synopses, index terms, editorial comments.
SKIP = frozenset(
    {
        "code", "screen", "synopsis", "programlisting", "cmdsynopsis", "funcsynopsis", "literallayout",
        "indexterm", "comment", "remark", "address", "credit", "othercredit", "authorgroup", "author",
        "copyright", "legalnotice", "revhistory", "releaseinfo", "date",
        "screeninfo",
    }
)  # fmt: skip
# A picture inside a paragraph: its alt text is not part of the sentence (a picture on its own
# line is visited like any element, so a Mallard <media><p>alt text</p></media> is a block).
PICTURES = frozenset({"mediaobject", "inlinemediaobject", "media", "screenshot"})
_PARSER = dict(resolve_entities=False, no_network=True, recover=True, load_dtd=False, remove_comments=True)


def _name(el) -> str:
    """The element's name without its namespace (`{uri}p`, `mal:p` -> `p`); "" for comments and PIs."""
    return el.tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1] if isinstance(el.tag, str) else ""


def _text(el) -> str:
    """The text of a block, with nested blocks and skipped elements left out."""
    if _name(el) in ("keyseq", "keycombo"):  # <keyseq><key>Ctrl</key><key>G</key></keyseq>: Ctrl+G
        keys = [_text(k) for k in el if isinstance(k.tag, str)]
        return (el.get("join") or "+").join(k for k in keys if k) or " ".join((el.text or "").split())
    if _name(el) in ("guiseq", "menuchoice"):  # <guiseq><gui>Edit</gui><gui>Find</gui></guiseq>: Edit ▸ Find
        items = [_text(k) for k in el if isinstance(k.tag, str) and _name(k) != "shortcut"]
        return " ▸ ".join(k for k in items if k) or " ".join((el.text or "").split())
    parts = [el.text or ""]
    for child in el:
        if isinstance(child, etree._Entity):
            parts.append(child.text or "")
        elif isinstance(child.tag, str) and _name(child) not in BLOCKS | SKIP | PICTURES:
            parts.append(_text(child))
        elif isinstance(child.tag, str) and _name(child) in SKIP and _name(child) == "code":
            parts.append(_text(child))  # inline code inside a paragraph is part of the sentence
        parts.append(child.tail or "")
    return " ".join("".join(parts).split())


def _inline(el) -> str:
    """The inline elements and entities of a block, as a sorted list: a translation keeps them
    (in its own order), an outdated one that says something else mostly does not."""
    found = []
    for child in el:
        if isinstance(child, etree._Entity):
            found.append(child.text or "")
        elif _name(child) and _name(child) not in BLOCKS:
            found += [_name(child)] + _inline(child).split(",")
    return ",".join(sorted(f for f in found if f))


_ENTITY_DECLARATION = re.compile(r"<!ENTITY\s+([A-Za-z][\w.-]*)\s+(?:\"([^\"]*)\"|'([^']*)')\s*>")
_ENTITY_REFERENCE = re.compile(r"&([A-Za-z][\w.-]*);")
_DOCTYPE = re.compile(rb"<!DOCTYPE[^\[>]*(?:\[.*?\]\s*)?>", re.S)


def entity_definitions(text: str) -> dict[str, str]:
    """The text entities a DTD or a document's internal subset declares, as plain text (markup
    stripped, references to each other resolved); the first declaration of a name wins, as in XML.
    Parameter (%) and external (SYSTEM, PUBLIC) entities are not text and are not read."""
    raw: dict[str, str] = {}
    for found in _ENTITY_DECLARATION.finditer(text):
        raw.setdefault(found.group(1), found.group(2) if found.group(2) is not None else found.group(3))

    def expand(value: str, depth: int) -> str:
        def one(m: re.Match) -> str:
            return expand(raw[m.group(1)], depth + 1) if m.group(1) in raw and depth < 8 else m.group(0)

        return _ENTITY_REFERENCE.sub(one, value)

    return {name: " ".join(html.unescape(re.sub(r"<[^>]*>", "", expand(v, 0))).split()) for name, v in raw.items()}


def _expand(text: str, known: dict[str, str]) -> str:
    """Entity references replaced by their text (a page's own may refer to KDE's: "&kde; Writer"),
    HTML's (&nbsp;, &mdash;) by their character."""
    for _ in range(4):
        expanded = _ENTITY_REFERENCE.sub(lambda m: known.get(m.group(1)) or html.unescape(m.group(0)), text)
        if expanded == text:
            break
        text = expanded
    return text


def kde_entities(customization: Path, lang: str) -> dict[str, str]:
    """KDE's documentation entities (&kde;, &konqueror;, &Ctrl;, &eg;) in `lang`, from kdoctools'
    customization folder: the language's own files first, then the general and the English ones."""
    text = []
    for folder in (lang, "entities", "en"):
        text += [
            f.read_text(encoding="utf-8", errors="replace") for f in sorted((customization / folder).glob("*.entities"))
        ]
    return entity_definitions("\n".join(text))


def xml_blocks(data: bytes, entities: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(element path and inline markup, text) of every block of a help page, in document order;
    entity references are replaced by the page's own declarations, then by `entities`."""
    prologue = _DOCTYPE.search(data[:20000])
    known = {**(entities or {}), **entity_definitions(prologue.group(0).decode("utf-8", "replace") if prologue else "")}
    if prologue:  # without it every entity stays a reference that `known` replaces (libxml2 drops some)
        data = data[: prologue.start()] + data[prologue.end() :]
    try:
        root = etree.fromstring(data, etree.XMLParser(**_PARSER))
    except etree.XMLSyntaxError as e:
        raise CorpusError(f"not a readable XML page ({e})") from e
    if root is None:
        raise CorpusError("not a readable XML page (empty)")
    out: list[tuple[str, str]] = []

    def visit(el, path: str) -> None:
        name = _name(el)
        if not name or name in SKIP:
            return
        path = f"{path}/{name}"
        if name in BLOCKS and not (name in ("td", "th") and any(_name(c) in BLOCKS for c in el)):
            # an empty <link xref="..."/> shows the linked page's title, which is not in this file
            holes = any(_name(d) == "link" and not "".join(d.itertext()).strip() for d in el.iter())
            text = "" if holes else " ".join(_expand(_text(el), known).split())
            holes = holes or bool(_ENTITY_REFERENCE.search(text))  # declared in a file not read here
            text = "" if holes else text
            if holes or any(c.isalpha() for c in text):
                out.append((f"{path}[{_inline(el)}]", text))
        for child in el:
            visit(child, path)

    visit(root, "")
    return out


def _credit(block: tuple[str, str]) -> bool:
    """A paragraph with an e-mail address: who wrote or translated the page (a translation adds its own)."""
    return "email" in block[0].split("[", 1)[-1].split(",") or "@" in block[1]


def align_blocks(english: list[tuple[str, str]], translated: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Pair the blocks of a page and its translation.

    Blocks are compared by element path, leaving out the credits (`_credit`). The same paths
    throughout (itstool's output for the same version of a page): block i is paired with block i.
    Otherwise the translation is of another version of the page, and where the two differ a run of
    look-alike paragraphs can pair the wrong ones: only the blocks before the first difference and
    after the last one are paired, less a run of blocks of one path that reaches the difference.
    In all cases a pair whose inline markup differs is left out (the translation says something else)."""
    english = [x for x in english if not _credit(x)]
    translated = [x for x in translated if not _credit(x)]
    a, b = [p.split("[", 1)[0] for p, _ in english], [p.split("[", 1)[0] for p, _ in translated]
    shorter = min(len(a), len(b))
    head = next((i for i in range(shorter) if a[i] != b[i]), shorter)
    tail = 0
    if a != b:
        tail = next((i for i in range(shorter - head) if a[len(a) - 1 - i] != b[len(b) - 1 - i]), shorter - head)
        if head and (a[head - 1] in a[head : head + 1] or a[head - 1] in b[head : head + 1]):
            run = a[head - 1]
            while head and a[head - 1] == run:
                head -= 1
        if tail and a[len(a) - tail] in a[len(a) - tail - 1 : len(a) - tail] + b[len(b) - tail - 1 : len(b) - tail]:
            run = a[len(a) - tail]
            while tail and a[len(a) - tail] == run:
                tail -= 1
    chosen = list(zip(english[:head], translated[:head]))
    chosen += list(zip(english[len(a) - tail :], translated[len(b) - tail :])) if tail else []
    return [(s, t) for (ps, s), (pt, t) in chosen if ps == pt and s and t]


def align_help(
    english: Path, translated: Path, entities: tuple[dict[str, str], dict[str, str]] = ({}, {})
) -> list[tuple[str, str]]:
    """The pairs of a page and its translation; `entities`: each one's named entities (`kde_entities`)."""
    return align_blocks(
        xml_blocks(Path(english).read_bytes(), entities[0]), xml_blocks(Path(translated).read_bytes(), entities[1])
    )


# ---- package descriptions ----------------------------------------------------------------


def read_translations(text: str) -> dict[str, tuple[str, str]]:
    """Package -> (Description-md5, description) of a Translation-LL file's text."""
    out = {}
    for record in text.split("\n\n"):
        name = re.search(r"^Package: (\S+)", record, re.M)
        md5 = re.search(r"^Description-md5: (\S+)", record, re.M)
        desc = re.search(r"^Description-[A-Za-z_]+: (.*(?:\n .*)*)", record, re.M)
        if name and md5 and desc:
            out[name.group(1)] = (md5.group(1), desc.group(1))
    return out


_BULLET = re.compile(r"^\s*(?:[*+o-]|\d+[.)])\s+")


def description_units(description: str) -> list[list[str]]:
    """[[short]] + per paragraph of the long description, its list items (or the paragraph whole)."""
    lines = description.split("\n")
    out = [[lines[0].strip()]]
    for block in "\n".join(lines[1:]).split("\n .\n"):
        units: list[str] = []
        for line in block.split("\n"):
            line = line[1:] if line.startswith(" ") else line
            if line.strip() == ".":
                continue
            if _BULLET.match(line) or not units:
                units.append(_BULLET.sub("", line).strip())
            else:
                units[-1] += " " + line.strip()
        units = [u for u in units if u]
        if units:
            out.append(units)
    return out


def align_description(english: str, translated: str) -> list[tuple[str, str]]:
    a, b = description_units(english), description_units(translated)
    if len(a) != len(b):
        return [(a[0][0], b[0][0])]
    pairs = []
    for ua, ub in zip(a, b):
        if len(ua) == len(ub):
            pairs += zip(ua, ub)
        else:
            pairs.append((" ".join(ua), " ".join(ub)))
    return pairs
