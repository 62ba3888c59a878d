"""The target term as a matched occurrence needs it: its number and its capital letter.

Number: an occurrence matched through a term's English plural ("files" for the entry
"file -> fichero") gets the target term's plural by the regular rules of the target language
(the code of a BCP 47 tag: "pt-BR" is pt):

    es  the words before the first preposition or conjunction take -s after a vowel, -es after
        a consonant (-ón -> -ones, -z -> -ces), none after -s/-x: "fichero oculto" -> "ficheros
        ocultos", "sistema de ficheros" -> "sistemas de ficheros", "configuración" -> "configuraciones"
    fr  the same span: -s, none after -s/-x/-z, -au/-eu -> -x, -al -> -aux
    it  the same span: -o -> -i, -a -> -e, -e -> -i, -io -> -i ("archivio" -> "archivi"), -ca/-ga
        -> -che/-ghe, -co/-go -> -chi/-ghi but -ico -> -ici ("grafico" -> "grafici"), -cia/-gia
        after a consonant -> -ce/-ge; masculine -a -> -i ("sistema" -> "sistemi", -ema, -gramma and
        a list); invariable: an accented vowel ("città"), -i, -u, -ie, a consonant or -y (English
        words: "computer", "directory"), a short list of English words in -e ("file", "mouse",
        "database"), one syllable ("re"), abbreviations ("foto", "video"), acronyms ("CPU")
    pt  the same span (pt-BR and pt-PT alike): -s after a vowel, -ão -> -ões (a list of -ãos and
        -ães), -m -> -ns, -r/-z -> -es, -al -> -ais, -el -> -éis, -ol -> -óis, -il -> -is (-eis, -ois
        when an accent earlier says the ending is unstressed: "nível" -> "níveis", "portátil" ->
        "portáteis"), -ês -> -eses, -ás -> -ases, -ís -> -íses, other -s and -x invariable
        ("vírus"), other consonants and acronyms -s ("links", "CPUs"), a list of English words -s
        ("drivers", "pixels")
    nl  the last word before the first preposition or conjunction (Dutch compounds are one word:
        "verborgen bestand" -> "verborgen bestanden"), best effort: plurals_dutch.py
    en  -s/-es/-ies on the last word
    any other language: the term as written (German and Russian plurals are not regular enough
        to derive: Russian also changes a noun's case with the words around it, which a
        replacement cannot see)

A noun used as a modifier takes the plural like an adjective ("nome utente" -> "nomi utenti",
where Italian keeps "nomi utente"): an irregular or compound plural is given as an entry of its
own ("mouse -> ratón" and "mice -> ratones"), which wins over the derived one. Nothing else is
inflected here: agreement.py makes a determiner before a replaced word agree (es, it, pt), and
the model does not see the term in pass 2 (it sees a placeholder), so an adjective elsewhere in
the sentence may not agree with it (docs/glossary.md measures how often this matters).

Case: when the occurrence starts with a capital letter and the entry's source term does not
("File" for "file"), the target's first letter is capitalised; an occurrence in capitals ("FILE")
gets the target in capitals. Otherwise the target is written as the entry has it.
"""

from __future__ import annotations

from .matching import Found, english_plural
from .plurals_dutch import dutch_plural
from .plurals_romance import romance_plural


def plural(term: str, language: str) -> str:
    """The plural of a target term in `language` (a BCP 47 tag or any code starting with one)."""
    base = language.replace("_", "-").split("-")[0].lower()
    if base in ("es", "fr", "it", "pt"):
        return romance_plural(term, base)
    if base == "nl":
        return dutch_plural(term)
    if base == "en":
        head, _, last = term.rpartition(" ")
        return (head + " " if head else "") + english_plural(last) if last[-1:].isalpha() else term
    return term


def target_form(found: Found, occurrence: str, language: str) -> str:
    """The target text that replaces `occurrence` (the source text matched as `found`)."""
    target = plural(found.target, language) if found.plural else found.target
    letters = [c for c in occurrence if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters) and not found.source.isupper():
        return target.upper()
    if occurrence[:1].isupper() and not found.source[:1].isupper():
        return target[:1].upper() + target[1:]
    return target
