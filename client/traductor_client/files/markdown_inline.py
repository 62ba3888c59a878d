"""Markdown's inline syntax as HTML for the service, and back.

translate-toolkit's Markdown reader gives each block's text with its inline syntax as written
(``**Encrypted** storage``, a code span, ``[the settings]{1}``: a link's target or a piece of
inline HTML is a ``{n}`` placeholder it puts back itself). Sent as plain text, the model rewrote
code spans and broke emphasis (``** Almacenamiento cifrado*``). So a block's text goes to the
service as HTML, whose tags the service keeps in order:

    **x** __x__ ***x***   <b>x</b>         *x* _x_    <i>x</i>        ~~x~~    <s>x</s>
    a code span           <code>...</code> (kept verbatim: traductor_client.markup)
    [text]{1}  ![alt]{1}  <a>text</a>      (the "]{1}" stays with its bracket)
    {1} alone, \\* \\_    <img/>           a hard line break ("  " or "\\" at a line's end)  <br/>
    & < >                 &amp; &lt; &gt;

``to_html(text) -> (html, pieces)``: the HTML and, for each tag in it, the Markdown it stands
for. ``from_html(translation, html, pieces, escape)``: the translation must hold the sent tags, in
the same order (else None); each tag becomes its Markdown again and the text is unescaped; with
``escape``, the characters Markdown would read as syntax in the model's words (``* _ ` [ ] \\
<``) get a backslash (the document tries without first). ``difference(source, result)``
compares what mistletoe (the reader translate-toolkit uses) parses in each: emphasis, code and
its content, links, images, hard breaks.

What this module does not know: files, units, the service.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Iterator, List, Optional, Tuple

from traductor_client import markup

_TOKEN = re.compile(
    r"(?P<code>(`+)(?!`).+?(?<!`)\2(?!`))"  # a code span
    r"|(?P<hard>(?: {2,}|\\)\n)"  # a hard line break
    r"|(?P<escape>\\[!-/:-@\[-`{-~])"
    r"|(?P<image>!\[)|(?P<open>\[)|(?P<close>\]\{\d+\})"
    r"|(?P<placeholder>\{\d+\})"
    r"|(?P<delim>\*+|_+|~~)",
    re.S,
)
_SPECIAL = re.compile(r"([\\`*_\[\]<])")
_TAGS = {"*": "i", "_": "i", "**": "b", "__": "b", "~~": "s"}


def _punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith(("P", "S"))


def _flanks(text: str, start: int, end: int) -> Tuple[bool, bool]:
    """(can open, can close) of the delimiter run text[start:end] (CommonMark's flanking rules)."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    left = not after.isspace() and (not _punct(after) or before.isspace() or _punct(before))
    right = not before.isspace() and (not _punct(before) or after.isspace() or _punct(after))
    if text[start] == "_":
        return left and (not right or _punct(before)), right and (not left or _punct(after))
    return left, right


def _pairs(text: str, found: List[re.Match]) -> dict:
    """token index -> "open" | "close" for the delimiters and brackets that pair up."""
    roles, stack = {}, []  # stack: (token index, what closes it)
    for i, m in enumerate(found):
        kind = m.lastgroup
        if kind in ("open", "image"):
            stack.append((i, "]"))
        elif kind == "close":
            at = next((k for k in range(len(stack) - 1, -1, -1) if stack[k][1] == "]"), None)
            if at is not None:
                roles[stack[at][0]], roles[i] = "open", "close"
                del stack[at:]
        elif kind == "delim":
            can_open, can_close = _flanks(text, m.start(), m.end())
            run = m.group()
            at = next((k for k in range(len(stack) - 1, -1, -1) if stack[k][1] == run), None) if can_close else None
            if at is not None:
                roles[stack[at][0]], roles[i] = "open", "close"
                del stack[at:]
            elif can_open:
                stack.append((i, run))
    return roles


def _tag(m: re.Match, role: Optional[str]) -> Optional[str]:
    """The HTML a token becomes (None: it is text)."""
    kind, raw = m.lastgroup, m.group()
    if kind == "code":
        return f"<code>{html.escape(raw, quote=False)}</code>"
    if kind == "hard":
        return "<br/>"
    if kind in ("escape", "placeholder"):
        return "<img/>"
    if role is None:
        return None
    name = "a" if kind in ("open", "image", "close") else _TAGS.get(raw, "b")
    return f"<{name}>" if role == "open" else f"</{name}>"


def to_html(text: str) -> Tuple[str, List[str]]:
    """(the HTML of a block's Markdown text, the Markdown each of its tags stands for)."""
    found = list(_TOKEN.finditer(text))
    roles = _pairs(text, found)
    out, pieces, at = [], [], 0
    for i, m in enumerate(found):
        tag = _tag(m, roles.get(i))
        if tag is None:
            continue
        out.append(html.escape(text[at : m.start()], quote=False))
        out.append(tag)
        pieces.append(m.group())
        at = m.end()
    out.append(html.escape(text[at:], quote=False))
    return "".join(out), pieces


def _tags(text: str) -> Iterator[Tuple[bool, str]]:
    """(is a tag, source characters) of an HTML text; a kept element (<code>) is one tag."""
    toks = markup.tokens(text)
    runs = dict(markup.kept_runs(toks))
    i = 0
    while i < len(toks):
        sort = toks[i][1]
        last = runs.get(i, i)
        yield sort in ("start", "end", "void") or i in runs, "".join(t[0] for t in toks[i : last + 1])
        i = last + 1


def from_html(translation: str, sent: str, pieces: List[str], escape: bool = True) -> Optional[str]:
    """The Markdown of a translation of `sent` (see the module docstring); None when its tags
    are not those sent, in the same order. `escape`: backslash the model's Markdown characters."""
    if [raw for tag, raw in _tags(translation) if tag] != [raw for tag, raw in _tags(sent) if tag]:
        return None
    out, k = [], 0
    for tag, raw in _tags(translation):
        if tag:
            if escape and pieces[k].startswith("[") and out and out[-1].endswith("!"):
                out[-1] = out[-1][:-1] + "\\!"  # "!" then a link's "[" would make an image
            out.append(pieces[k])
            k += 1
        else:
            text = html.unescape(raw)
            out.append(_SPECIAL.sub(r"\\\1", text) if escape else text)
    return "".join(out)


_LINK_PLACEHOLDER = re.compile(r"\]\{(\d+)\}")


def shape(text: str) -> List[tuple]:
    """What mistletoe reads in a text, without its words: every token but plain text (escaped
    characters included), a code span's content, a link's target, an image's source.
    translate-toolkit's "]{1}" reads as a link's end ("](#1)"), as it will once the reader puts
    the target back."""
    import mistletoe  # with translate-toolkit's markdown reader, only for this format

    text = _LINK_PLACEHOLDER.sub(r"](#\1)", text)
    out: List[tuple] = []

    def walk(token) -> None:
        name = type(token).__name__
        if name in ("RawText", "EscapeSequence") or (name == "LineBreak" and token.soft):
            return  # words, and characters written with a backslash to be words
        detail = getattr(token, "target", None) or getattr(token, "src", None) or ""
        if name == "InlineCode":
            detail = token.children[0].content if token.children else ""
        out.append((name, detail))
        for child in token.children or ():
            walk(child)
        out.append(("/" + name, ""))

    walk(mistletoe.Document(text))
    return out


def difference(source: str, result: str) -> Optional[str]:
    """Why `result` does not read as `source` does (its Markdown structure), or None."""
    want, got = shape(source), shape(result)
    if want == got:
        return None
    names = lambda s: " ".join(n for n, _ in s if not n.startswith("/"))  # noqa: E731
    return f"Markdown structure changed ({names(want)} -> {names(got)})"


__all__ = ["difference", "from_html", "shape", "to_html"]
