"""Plurals of Dutch glossary terms, best effort (forms.py and docs/glossary.md say how far).

Dutch writes a compound as one word ("bestandsnaam") and puts adjectives before the noun
("verborgen bestand"), so the plural goes on the last word before the first preposition or
conjunction ("verborgen bestanden", "map van de gebruiker" -> "mappen van de gebruiker").

Where the rules are cheap they are followed: -s after an unstressed -el/-er/-em/-en and after
-e and -je ("sleutel" -> "sleutels", "module" -> "modules"), -'s after a, i, o, u, y ("menu's",
"foto's"), -ën after -ee and the stressed -ie of -gie/-rie/-fie/-pie ("idee" -> "ideeën",
"categorie" -> "categorieën"), -heid -> -heden; else -en, a doubled long vowel written single
before it ("naam" -> "namen"), s/f voiced after a long vowel ("huis" -> "huizen"), and the final
consonant doubled after a short one ("map" -> "mappen"). Stress is guessed, not known: "tabel"
(stressed -el: "tabellen") gets "tabels"; English words that keep -s in Dutch are a short list.
"""

from __future__ import annotations

import re

_STOP = {"van", "voor", "met", "in", "op", "aan", "uit", "bij", "naar", "om", "over", "tot", "zonder", "door"}
_STOP |= {"en", "of", "de", "het", "een"}
_LOANS = {"account", "app", "bit", "blog", "bug", "chat", "chip", "client", "e-mail", "email", "mail", "link"}
_LOANS |= {"login", "log", "plug-in", "plugin", "script", "tab", "tag", "tablet", "thread", "widget", "webcam"}
_LOANS |= {"podcast", "stream", "feed", "download", "upload", "item", "bookmark", "hashtag", "laptop", "desktop"}
_LOANS |= {"shortcut", "checkbox", "inbox", "job", "team", "bot", "host", "backup", "tweet", "pixel", "hotel"}
_STRESSED = {"tabel": "tabellen", "model": "modellen", "kanaal": "kanalen", "serie": "series"}
_LONG = re.compile(r"(aa|ee|oo|uu)([^aeiouy])$")
_DIPHTHONG = re.compile(r"(ie|oe|ui|ei|ij|eu|ou|au)[sf]$")
_SHORT = re.compile(r"(?:^|[^aeiou])[aeiou]([bdgklmnprst])$")
_NO_DOUBLING = ("ig", "ik", "or")  # unstressed: "monnik" -> "monniken", "motor" -> "motoren"


def _word(word: str) -> str:
    low = word.lower()
    if not low[-1:].isalpha():
        return word
    if len(word) > 1 and word.isupper():
        return word + "'s"  # "URL's"
    upper = word.isupper()

    def end(suffix: str) -> str:
        return suffix.upper() if upper else suffix

    if low in _LOANS or low.endswith(("um", "ion")):
        return word + end("s")  # "links", "albums", "stations"
    if low in _STRESSED:
        return word[:1] + end(_STRESSED[low][1:]) if not upper else _STRESSED[low].upper()
    if low.endswith("heid"):
        return word[:-3] + end("eden")  # "mogelijkheid" -> "mogelijkheden"
    if low.endswith("ee") or low.endswith(("gie", "rie", "fie", "pie")):
        return word + end("ën")  # "idee" -> "ideeën", "kopie" -> "kopieën"
    if low[-1] == "e" or low[-1] == "é":
        return word + end("s")  # "module" -> "modules", "functie" -> "functies", "mapje" -> "mapjes"
    if low[-1] in "aiouy":
        return word + end("s" if low[-2:] in ("au", "ou", "eu") else "'s")  # "menu's", "bureaus"
    if re.search(r"[^aeiou]e[lmnr]$", low) and len(re.findall(r"[aeiouy]+", low)) > 1:
        return word + end("s")  # unstressed: "sleutel" -> "sleutels", "gebruiker" -> "gebruikers"
    long = _LONG.search(low)
    if long:
        word = word[: long.start() + 1] + word[long.start(2) :]  # "naam" -> "nam"
        low = word.lower()
        if low[-1] in "sf":
            word = word[:-1] + end({"s": "z", "f": "v"}[low[-1]])  # "kaas" -> "kaz"
    elif _DIPHTHONG.search(low):
        word = word[:-1] + end({"s": "z", "f": "v"}[low[-1]])  # "huis" -> "huiz", "brief" -> "briev"
    elif _SHORT.search(low) and not (len(re.findall(r"[aeiouy]+", low)) > 1 and low.endswith(_NO_DOUBLING)):
        word = word + word[-1]  # "map" -> "mapp", "knop" -> "knopp", "adres" -> "adress"
    return word + end("en")


def dutch_plural(phrase: str) -> str:
    """The plural of a Dutch term: its last word before the first preposition or conjunction
    (words are parted by spaces; a hyphenated word is one: "plug-in" -> "plug-ins")."""
    parts = re.split(r"(\s+)", phrase)
    words = [i for i, p in enumerate(parts) if p and not p.isspace()]
    last = None
    for i in words:
        if parts[i].lower() in _STOP and last is not None:
            break
        last = i
    if last is None:
        return phrase
    token = parts[last]
    if token.lower() in _LOANS:
        parts[last] = token + ("S" if token.isupper() and len(token) > 1 else "s")
    else:
        head, tail = re.match(r"(.*?)(\w*)$", token).groups()
        parts[last] = head + _word(tail) if tail else token
    return "".join(parts)
