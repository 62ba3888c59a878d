"""Placeholders in software messages: find them, hide them from the model, put them back.

A translation of "cannot open %s: %s" that loses a `%s` crashes the program that prints it, so
placeholders never go through the model as text. Each one becomes a reserved token
`<ph0>`, `<ph1>`, ... (numbered in order of appearance in the source) before tokenization, and
the reserved tokens in the model's output are replaced by the source's placeholders after.

Recognised, by kind (`KINDS`, in the order the pattern tries them):

    python     `%(name)s`, `%(count)d`
    printf     `%s`, `%d`, `%1$s`, `%-10.2f`, `%lu`, `%%`, `%<PRIu64>`
    qt         Qt/KDE arguments `%1` .. `%99`, `%L1`
    brace      `{name}`, `{0}`, `{0:>8}`
    shell      `$HOME`, `${name}`
    markup     inline tags of Pango, Qt rich text and KDE's KUIT (`<b>`, `</b>`, `<a href="..">`,
               `<filename>`, `<br/>`) and character entities (`&amp;`, `&#169;`)
    mnemonic   the keyboard-accelerator marker of a menu or button label: GTK's `_` and Qt/KDE's
               `&` right before a letter (`_Open`, `Save &As`); the marker is the placeholder, so
               the model places it before a letter of the translation (`_Abrir`)
    option     command-line options (`--force`, `--no-verify`, `-r`), with a value or a
               metavariable written onto them (`--color=WHEN`, `--sort[=WORD]`, `--format=json`)

and the spans a careful localizer copies byte for byte (the "verbatim" kinds, tried first):

    url        `https://docs.example.com/setup/`, `www.example.org`, `mailto:a@b.org`, `<https://..>`
    email      `help-desk@example.org`, `user@example.co.uk`
    path       `/etc/app/app.conf`, `~/.config/app/`, `./configure`, `../x`, `$HOME/.cache`,
               `src/main.c`, `usr/share/doc/`, `C:\\Users\\me\\file.txt`
    address    IPv4 and IPv6 addresses, `host:port` (`127.0.0.1:8080`, `[::1]:53`, `localhost:631`)
    filename   a name with an extension or a domain: `config.toml`, `libfoo.so.3`,
               `foo_1.2-3_amd64.deb`, `example.com`, `.bashrc`, `*.txt` (not abbreviations such
               as `e.g.` or `i.e.`, nor `Done.Then`, a sentence missing its space)
    code       a token that is not a word of natural language (`_CODE` below): `%APPDATA%`,
               `#ff0000`, `$(EXIF.EXPOSURE)`, digits glued to letters or symbols (`x86_64`, `v2.1`,
               `0x1F`, `3f2a9c1e`), identifiers with underscores or inner capitals (`max_size`,
               `camelCase`, `macOS`), versions (`1.2.3`); not numbers, times, ordinals or percentages
    metavar    help-text metavariables: an upper-case word a message puts in an option's place
               (`-o FILE`, `--opt=ARG`, `[PATTERN]`, `WORD...`); every occurrence of that word in
               the message is one, so the option column and its description say it the same way

A verbatim span goes through the model as a <phK> token like any placeholder, so it comes back
unchanged wherever the model puts it. Models without <phK> tokens (imported ones) get their
output repaired instead (`repair`).

Tags are recognised only by name (the ones listed in `_TAG_NAMES`), so usage text such as
`cp <source> <dest>` is still translated.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from dataclasses import dataclass

MAX_PLACEHOLDERS = 16
TOKENS = [f"<ph{i}>" for i in range(MAX_PLACEHOLDERS)]

_PYTHON = r"%\([A-Za-z_][A-Za-z_0-9]*\)[-+#0 ]*(?:\d+)?(?:\.\d+)?[diouxXeEfFgGcrsa]"
_PRINTF = (
    r"%(?:\d+\$)?[-+#0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|q|j|z|t)?"
    r"(?:<PRI[a-zA-Z0-9]+>|[diouxXeEfFgGaAcspnm%])"
)
_QT = r"%L?[1-9][0-9]?(?![0-9$])"
_BRACE = r"\{[A-Za-z_0-9][A-Za-z_0-9.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"
_SHELL_VAR = r"\$\{[A-Za-z_][A-Za-z_0-9]*\}|\$[A-Za-z_][A-Za-z_0-9]*"
_TAG_NAMES = (
    "a|abbr|application|b|bcode|big|blockquote|body|br|center|code|command|dd|div|dl|dt|em|email|emphasis|envar|"
    "filename|font|h[1-6]|head|hr|html|i|icode|img|interface|item|kbd|li|link|list|message|nl|nobr|note|numid|ol|"
    "p|para|placeholder|pre|q|qt|resource|s|samp|shortcut|small|span|strike|strong|sub|subtitle|sup|table|td|th|"
    "title|tr|tt|u|ul|var|warning"
)
_MARKUP = (
    rf"</?(?:{_TAG_NAMES})(?![\w-])(?:\s+[^<>]*?)?\s*/?>"  # a known tag, with its attributes
    r"|&(?:[A-Za-z][A-Za-z0-9]{1,7}|#[0-9]{1,6}|#x[0-9A-Fa-f]{1,6});"  # a character entity
)
_MNEMONIC = r"(?<![\w&])_(?=[^\W\d_][^\W_]*(?![\w]))|(?<![\w&])&(?=[^\W\d_])"
_OPTION = (
    r"(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
    r"(?:\[=[A-Za-z0-9_:,./-]+\]|=(?:[A-Za-z0-9_:,./-]*[A-Za-z0-9_/]|\[[A-Z][A-Z0-9_-]*\]))?(?![\w])"
)
# The verbatim kinds. None may end on the punctuation that closes a sentence or a bracket after it.
_URL = (
    r"<(?:[a-z][a-z0-9+.-]*://|www\.|mailto:)[^\s<>]+>"  # <https://...>: the brackets are kept with it
    r"|(?<![\w@.-])(?:[a-z][a-z0-9+.-]*://|www\.|mailto:)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
)
_EMAIL = r"(?<![\w.+-])[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])"
_SEGMENT = r"[\w.+@%,=-]*[\w+@%=-]"  # one component of a path, not ending in sentence punctuation
_EXTENSION = r"\.[A-Za-z][A-Za-z0-9]{0,9}(?![\w-])"
_PATH = (
    rf"(?<![\w.~/\\<-])(?:~[\w.-]*|\.\.?|\$\{{?[A-Za-z_]\w*\}}?)?/(?:{_SEGMENT}/)*(?:{_SEGMENT}/?)"  # /a ~/a ./a $X/a
    rf"|(?<![\w.\\-])[A-Za-z]:\\(?:[\w .+@-]*[\w+@-]\\)*(?:[\w.+@-]*[\w+@-])?"  # C:\Users\me
    rf"|(?<![\w.~/\\-])\w[\w.+@-]*/(?:{_SEGMENT}/)+(?:{_SEGMENT}/?)?"  # relative, two slashes or more
    rf"|(?<![\w.~/\\-])\w[\w.+@-]*/(?:{_SEGMENT}/)*[\w+@-][\w.+@-]*{_EXTENSION}"  # relative, to a file
)
_ADDRESS = (
    r"(?<![\w.:])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?:/\d{1,2})?(?![\w.])"  # IPv4[:port][/prefix]
    r"|\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\](?::\d{1,5})?"  # [IPv6]:port
    r"|(?<![\w:])(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{1,4}:){7})(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"
    r"|(?<![\w.-])(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):\d{1,5}(?![\w])"  # host:port
)
# A name with an extension; each part has a letter or a digit, and it is not an abbreviation
# (`e.g`, `i.e`, `U.S.A`: every part one letter) nor a number (`3.14`: no letter at all).
# Two capitalised words around a dot are a sentence missing its space (`Done.Then`).
_FILENAME = (
    r"(?<![\w.@/\\-])(?=[\w+-]*[A-Za-z])(?![A-Za-z](?:\.[A-Za-z])+\b)(?![A-Z][a-z]+\.[A-Z][a-z]+\b)"
    r"[\w+-]*\w(?:\.[\w+-]*[A-Za-z0-9])+(?<=[A-Za-z0-9])(?![\w-]|\.\w)"
    r"|(?<![\w.@/\\*-])\*?\.[A-Za-z][\w-]*(?:\.[\w-]+)*(?<=[A-Za-z0-9])(?![\w-]|\.\w)"  # .desktop, *.txt
)
# A token that is not a word of natural language: a Windows variable, a colour, a Make/shell
# substitution, or a whole token (the punctuation around it left out) holding digits glued to letters
# or to `_#@`, an inner capital, an inner underscore (not a capitalised label with a mnemonic inside,
# `E_xit`) or a version's two dots; never a number, an ordinal (`2nd`, `1990s`) or a percentage.
_AFTER_TOKEN = r"[.,;:!?)\]}\"'»”’]*(?:\s|<|$)"
_CODE = (
    r"(?<![%\w])%[A-Za-z_][A-Za-z0-9_()]*[A-Za-z0-9_)]%(?![%\w])"  # %APPDATA%, %ProgramFiles(x86)%
    r"|(?<![\w#&])#[0-9A-Fa-f]{3,8}(?![\w-])"  # #ff0000, #fff
    r"|\$\([^()\s]+\)"  # $(EXIF.EXPOSURE), $(pwd)
    rf"|(?<![^\s(\[{{\"'«“‘¿¡>])(?!\d+(?:st|nd|rd|th|s|%)?{_AFTER_TOKEN})(?![A-Z][a-z]*_[a-z]+{_AFTER_TOKEN})(?=\w)"
    r"(?=\S*?(?:\d[A-Za-z_#@]|[A-Za-z_#@]\d|[a-z][A-Z]|(?<![A-Z])[A-Za-z0-9]_[A-Za-z0-9]|\d\.\d+\.\d))"
    rf"[^\s\"'«“‘(\[{{<>%$]*?[^\s.,;:!?)\]}}\"'»”’<>%$](?={_AFTER_TOKEN})"
)
# An upper-case word in an option's place (`--opt=WORD`, `--opt[=WORD]`, `-o WORD`, `--opt WORD`,
# `[WORD]`, `<WORD>`) or before `...` (`FILE...`): that word is a metavariable of the message.
_METAVAR_AT = re.compile(
    r"(?:(?<![\w-])--?[A-Za-z][\w-]*(?:=|\[=| )|\[|<)([A-Z][A-Z0-9_]*[A-Z0-9])(?=[\]>\s,=]|\.\.\.|$)"
    r"|(?<![\w-])([A-Z][A-Z0-9_]*[A-Z0-9])(?=\.\.\.)"
)
_METAVAR_WORD = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
VERBATIM = {"url": _URL, "email": _EMAIL, "path": _PATH, "address": _ADDRESS, "filename": _FILENAME, "code": _CODE}
KINDS = {
    **VERBATIM,
    "python": _PYTHON,
    "printf": _PRINTF,
    "qt": _QT,
    "brace": _BRACE,
    "shell": _SHELL_VAR,
    "markup": _MARKUP,
    "mnemonic": _MNEMONIC,
    "option": _OPTION,
}
PATTERN = re.compile("|".join(f"(?P<{kind}>{p})" for kind, p in KINDS.items()))
PROGRAM_PATTERN = re.compile("|".join(f"(?P<{kind}>{p})" for kind, p in KINDS.items() if kind not in VERBATIM))
_TOKEN = re.compile(r"<ph(\d+)>")
# Every kind above starts with one of these characters or has one of these pairs (a file name its
# dot between two word characters, an address its colon). Most messages have none, and this test
# is far cheaper than the long pattern, which the serving path runs several times per segment.
_STARTS = re.compile(r"[%{$<&_/\\@=\[~*#-]|\w\.\w|(?<!\w)\.[A-Za-z]|\w:\d|::|\w\.\.\.|\d[A-Za-z]|[A-Za-z]\d|[a-z][A-Z]")


@functools.lru_cache(maxsize=256)
def _with_metavars(names: tuple[str, ...]) -> re.Pattern:
    words = "|".join(map(re.escape, names))
    return re.compile(f"{PATTERN.pattern}|(?P<metavar>(?<![\\w-])(?:{words})(?![\\w-]))")


def pattern_for(text: str) -> re.Pattern:
    """The pattern that finds `text`'s placeholders: `PATTERN`, plus the text's metavariables."""
    names = {a or b for a, b in _METAVAR_AT.findall(text)}
    return _with_metavars(tuple(sorted(names))) if names else PATTERN


def finditer(text: str):
    """The placeholders of `text` as matches, in order (`m.lastgroup` is the kind)."""
    return pattern_for(text).finditer(text) if _STARTS.search(text) else iter(())


def first_letter(text: str, spans=None) -> int | None:
    """Where the first letter of `text` outside its placeholders (markup included) is; `spans`: its
    `finditer` matches, when the caller has them. None: no letter outside them."""
    if spans is None:
        spans = finditer(text)
    hidden = list(text)
    for m in spans:
        hidden[m.start() : m.end()] = "\0" * (m.end() - m.start())
    return next((i for i, c in enumerate(hidden) if c.isalpha()), None)


def finditer_as(source: str, text: str):
    """The placeholders of `text` as `source`'s pattern finds them (its metavariables), as matches."""
    return pattern_for(source).finditer(text) if _STARTS.search(text) else iter(())


def replace(repl, text: str, verbatim: bool = True) -> str:
    """Each placeholder of `text` replaced by `repl(match)` (or the string `repl`); `verbatim=False`:
    the program's own placeholders only (no URL, path, file name, address or metavariable)."""
    if not _STARTS.search(text):
        return text
    return (pattern_for(text) if verbatim else PROGRAM_PATTERN).sub(repl, text)


def markup(text: str, tags: bool = False) -> list[re.Match]:
    """The markup placeholders of `text` (tags, entities; `tags`: tags only) as matches, in order."""
    return [m for m in finditer(text) if m.lastgroup == "markup" and not (tags and m.group(0)[0] != "<")]


def find(text: str) -> list[str]:
    """The placeholders of `text`, in order."""
    return [m.group(0) for m in finditer(text)]


def find_kinds(text: str) -> list[tuple[str, str]]:
    """(kind, placeholder) for each placeholder of `text`, in order."""
    return [(m.lastgroup, m.group(0)) for m in finditer(text)]


@dataclass
class Masked:
    text: str  # the text with placeholders replaced by <phK>
    values: list[str]  # values[K] is the placeholder that <phK> stands for


def mask(text: str, keep=None) -> Masked:
    """Replace each placeholder by a reserved token; the first MAX_PLACEHOLDERS only.
    `keep(match)`, when given, says which ones are masked (the others stay text)."""
    values: list[str] = []

    def sub(m: re.Match) -> str:
        if len(values) >= MAX_PLACEHOLDERS or (keep is not None and not keep(m)):
            return m.group(0)
        values.append(m.group(0))
        return TOKENS[len(values) - 1]

    return Masked(replace(sub, text), values)


def mask_like(text: str, values: list[str]) -> str:
    """Mask a reference translation with the source's numbering (training data).

    The k-th occurrence of a placeholder string in the target gets the token of its k-th
    occurrence in the source; placeholders the source does not have stay as text. The source's
    metavariables are looked for in the target whatever their place there.
    """
    seen: Counter = Counter()

    def sub(m: re.Match) -> str:
        value = m.group(0)
        seen[value] += 1
        indices = [i for i, v in enumerate(values) if v == value]
        if seen[value] <= len(indices):
            return TOKENS[indices[seen[value] - 1]]
        return value

    names = tuple(sorted({v for v in values if _METAVAR_WORD.fullmatch(v)}))
    pattern = _with_metavars(names) if names else PATTERN
    return pattern.sub(sub, text) if names or _STARTS.search(text) else text


def mask_pair(source: str, target: str) -> tuple[Masked, str]:
    """A training pair masked: (source, target) as `mask` and `mask_like` give them, except that a
    verbatim span (or an option's written value) the reference does not copy stays text on both
    sides (a reference that translates a metavariable or points to a localized URL must not teach
    the model to drop a <phK> token)."""

    def copied(m: re.Match) -> bool:
        lenient = m.lastgroup in VERBATIM or m.lastgroup == "metavar" or (m.lastgroup == "option" and "=" in m.group(0))
        return not lenient or m.group(0) in target

    m = mask(source, keep=copied)
    return m, mask_like(target, m.values)


def unmask(text: str, values: list[str]) -> str:
    """Replace each <phK> by values[K]; a token with no value (a model error) is dropped."""
    return _TOKEN.sub(lambda m: values[int(m.group(1))] if int(m.group(1)) < len(values) else "", text)


_WORD = re.compile(r"\S+")
_EDGE = "\"'.,;:!?()[]{}«»“”‘’¿¡"  # sentence punctuation a word of the output may carry


def repair(output: str, values: list[str]) -> str:
    """An output of a model without <phK> tokens (an imported one) with the source's placeholders
    put back: each one `output` lacks replaces the word of `output` most like it (at least half
    the characters in common; the punctuation around the word kept), as in
    `https://docs.ejemplo.com/configuracion/` -> the source's `https://docs.example.com/setup/`.
    A placeholder with no such word stays missing (the model dropped it)."""
    missing = Counter(values) - Counter(find(output))
    for value in [v for v in values if missing[v]]:
        missing[value] -= 1
        core = value.strip(_EDGE) or value
        best, best_ratio = None, 0.5
        for w in _WORD.finditer(output):
            word = w.group(0).strip(_EDGE)
            if not word or word in values or core in word:
                continue
            ratio = difflib.SequenceMatcher(None, word, core, autojunk=False).ratio()
            if ratio > best_ratio:
                best, best_ratio = (w.start() + w.group(0).index(word), word), ratio
        if best is not None:
            at, word = best
            output = output[:at] + core + output[at + len(word) :]
    return output


def preserved(source: str, output: str) -> tuple[int, int]:
    """(placeholders of `source` found in `output`, placeholders in `source`), as multisets."""
    want = Counter(find(source))
    have = Counter(find(output))
    kept = sum(min(n, have[p]) for p, n in want.items())
    return kept, sum(want.values())
