"""What the register readers (text/address.py for es, fr, de; text/address_more.py for it,
pt-BR, nl, ru) share: a translation's words with what stands before each, and what the English
source says about who is addressed ("you", "your" without another owner, "she"/"they", a
described action such as "Saves the file" rather than an imperative).
"""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[^\W\d_]+")
SENTENCE_END = re.compile(r"[.!?:;…\n]")
_PRINTF = re.compile(r"%[\d$.*#+-]*\Z")  # "%u", "%lu", "%1$u": a conversion, not the word "u"
_YOU = re.compile(r"\byou\b", re.IGNORECASE)
_YOUR = re.compile(r"\byours?\b", re.IGNORECASE)
_OTHER_OWNER = re.compile(r"\b(?:his|her|hers|its|their|theirs)\b", re.IGNORECASE)
_SHE_THEY = re.compile(r"\b(?:she|they)\b", re.IGNORECASE)
_EN_DESCRIBES = re.compile(r"^\W*[a-z]+(?:(?<!s)s|ing|ed)\b", re.IGNORECASE)  # "Saves the file": no imperative


class Words:
    """A text's words with what stands before each: the separator and the word before it."""

    def __init__(self, text: str):
        self.text = text
        # the letters of a printf conversion ("%u", "%lu", "%1$s") are no word: Dutch "u"
        self.spans = [(m.start(), m.end()) for m in WORD.finditer(text) if not self._conversion(m.start())]
        self.words = [text[a:b] for a, b in self.spans]
        self.lower = [w.lower() for w in self.words]

    def _conversion(self, start: int) -> bool:
        return bool(_PRINTF.search(self.text, max(0, start - 12), start))

    def separator(self, i: int) -> str:
        start = self.spans[i - 1][1] if i else 0
        return self.text[start : self.spans[i][0]]

    def starts_sentence(self, i: int) -> bool:
        return i == 0 or bool(SENTENCE_END.search(self.separator(i)))

    def after_comma(self, i: int) -> bool:
        return i > 0 and "," in self.separator(i)

    def inside_sentence(self, i: int) -> bool:
        """Whether the word at `i` follows another word of its sentence with one space between
        (not a sentence's first word, nor one after a comma, a quote, a line break or a column).
        Digits glued to the word before belong to it ("Gcolor3 Le permette", "GTK4 La")."""
        return i > 0 and self.separator(i).lstrip("0123456789_") in (" ", "\u00a0")

    def follows(self, i: int, openers: frozenset[str], between: frozenset[str] = frozenset()) -> bool:
        """Whether the word at `i` follows one of `openers` (lower case) in its sentence, words of
        `between` skipped: "se premi", "quando lo selezioni" with pronouns between."""
        k = i - 1
        while k >= 0 and self.lower[k] in between and self.inside_sentence(k + 1):
            k -= 1
        return k >= 0 and self.inside_sentence(k + 1) and self.lower[k] in openers

    def in_question(self, i: int) -> bool:
        """Whether the sentence of the word at `i` ends with a question mark."""
        end = SENTENCE_END.search(self.text, self.spans[i][1])
        return end is not None and end.group(0) == "?"

    def next_lower(self, i: int) -> str:
        return self.lower[i + 1] if i + 1 < len(self.lower) else ""


def plain(word: str) -> str:
    """`word` without its accents ("inténtalo" -> "intentalo"), ñ kept."""
    out = unicodedata.normalize("NFD", word.replace("ñ", "\0"))
    return "".join(c for c in out if unicodedata.category(c) != "Mn").replace("\0", "ñ")


def says_you(source: str) -> bool:
    """Whether the English source has "you" (False without a source)."""
    return bool(source) and bool(_YOU.search(source))


def says_your(source: str) -> bool:
    """Whether the English source has "your" and no other owner (his, her, its, their)."""
    return bool(source) and bool(_YOUR.search(source)) and not _OTHER_OWNER.search(source)


def says_she_or_they(source: str) -> bool:
    return bool(source) and bool(_SHE_THEY.search(source))


def describes(source: str) -> bool:
    """Whether the English source opens with a described action ("Saves the file", "Loading"),
    so that a verb opening the translation is no imperative."""
    return bool(source) and bool(_EN_DESCRIBES.match(source))
