"""Regular plurals of Spanish, French, Italian and Portuguese glossary terms (forms.py says which
rules, and docs/glossary.md how far they go).

A Romance noun phrase puts its head first and its adjectives after it, and a complement starts
with a preposition: the words before the first preposition or conjunction take the plural
("fichero oculto" -> "ficheros ocultos", "barra degli strumenti" -> "barre degli strumenti").
"""

from __future__ import annotations

import re

_ACCENTED = str.maketrans("áéíóú", "aeiou")
_WORD = re.compile(r"\w+|\W+")
_STOP = {
    "es": {"de", "del", "a", "al", "en", "para", "por", "con", "sin", "sobre", "entre", "y", "o"},
    "fr": {"de", "du", "des", "d", "à", "au", "aux", "en", "pour", "par", "sur", "avec", "sans", "et", "ou"},
    "it": {"di", "d", "a", "ad", "da", "in", "su", "con", "per", "tra", "fra", "senza", "e", "ed", "o", "od"}
    | {p + a for p in ("de", "a", "da", "ne", "su") for a in ("l", "llo", "lla", "ll", "i", "gli", "lle")},
    "pt": {"de", "do", "da", "dos", "das", "d", "em", "no", "na", "nos", "nas", "num", "numa", "a", "ao", "aos"}
    | {"à", "às", "para", "pra", "por", "pelo", "pela", "pelos", "pelas", "com", "sem", "sobre", "entre", "até"}
    | {"contra", "e", "ou"},
}


def _plural_es(word: str) -> str:
    low = word.lower()
    if not low[-1:].isalpha() or low[-1] in "sx":
        return word
    if low[-1] == "z":
        return word[:-1] + ("C" if word[-1].isupper() else "c") + ("ES" if word.isupper() else "es")
    if low[-1] in "aeiouáéó":
        return word + ("S" if word.isupper() else "s")
    if len(low) > 2 and low[-2] in "áéíóú":  # "configuración" -> "configuraciones": the accent goes
        word = word[:-2] + word[-2].translate(_ACCENTED) + word[-1]
    return word + ("ES" if word.isupper() else "es")


def _plural_fr(word: str) -> str:
    low, upper = word.lower(), word.isupper()
    if not low[-1:].isalpha() or low[-1] in "sxz":
        return word
    if low.endswith(("au", "eu")):
        return word + ("X" if upper else "x")
    if low.endswith("al") and len(low) > 3:
        return word[:-1] + ("UX" if upper else "ux")
    return word + ("S" if upper else "s")


# Italian: what the endings do not say
_IT_IRREGULAR = {"uomo": "uomini", "uovo": "uova", "dio": "dei", "bue": "buoi", "ala": "ali", "arma": "armi"}
_IT_STRESSED_IO = {"zio", "invio", "rinvio", "pendio", "leggio", "ronzio", "brusio", "fruscio", "mormorio", "oblio"}
_IT_INVARIABLE = {"cinema", "foto", "radio", "auto", "moto", "bici", "video", "audio", "euro", "metro", "serie"}
# English words ending in -e that Italian uses as they are ("i file"); those ending in a consonant
# or -y are invariable by their ending
ITALIAN_LOANS = {"file", "mouse", "database", "template", "cache", "device", "update", "byte", "smartphone"}
ITALIAN_LOANS |= {"touchscreen", "feature", "home", "core", "site", "joystick", "chipset", "username"}
# masculine nouns in -a (from Greek): -a -> -i
_IT_MASCULINE_A = {
    "cinema",
    "clima",
    "dramma",
    "dogma",
    "enigma",
    "paradigma",
    "stigma",
    "diploma",
    "assioma",
    "idioma",
}
_IT_MASCULINE_A |= {"aroma", "genoma", "poema", "panorama", "pigiama", "trauma", "dilemma", "lemma", "pianeta"}
_IT_VOWELS = re.compile(r"[aeiouàèéìíòóùú]+")


def masculine_in_a(low: str) -> bool:
    """An Italian noun in -a that is masculine ("sistema", "programma"): its plural is -i."""
    return low in _IT_MASCULINE_A or low.endswith(("gramma", "ema")) and low != "crema"


def _plural_it(word: str) -> str:
    low = word.lower()
    if not low[-1:].isalpha() or (len(word) > 1 and word.isupper()):
        return word  # an acronym is invariable ("le CPU")
    if low in _IT_IRREGULAR:
        return word[0] + _IT_IRREGULAR[low][1:]
    if low in _IT_STRESSED_IO:
        return word[:-1] + "i"  # "invio" -> "invii"
    if low in _IT_INVARIABLE or low in ITALIAN_LOANS or low.endswith(("ware", "line")):
        return word
    if low[-1] not in "aoe" or low.endswith("ie"):
        return word  # a consonant, an accented vowel, -i, -u, -y, -ie: "i computer", "le città", "le serie"
    vowels = _IT_VOWELS.findall(low)
    if len(vowels) == 1 and not low.endswith(("ia", "io")):
        return word  # one syllable: "i re", "le gru"
    if low[-1] == "a":
        if masculine_in_a(low):
            return word[:-1] + "i"  # "sistema" -> "sistemi"
        if low.endswith(("ca", "ga")):
            return word[:-1] + "he"  # "banca" -> "banche", "riga" -> "righe"
        if low.endswith(("cia", "gia")) and len(low) > 3 and low[-4] not in "aeiou":
            return word[:-2] + "e"  # "arancia" -> "arance" (but "valigia" -> "valigie")
        return word[:-1] + "e"
    if low[-1] == "o":
        if low.endswith("io"):
            return word[:-1]  # "archivio" -> "archivi"
        if low.endswith(("co", "go")) and not low.endswith(("ico", "iaco")):
            return word[:-1] + "hi"  # "blocco" -> "blocchi", "catalogo" -> "cataloghi"
        return word[:-1] + "i"  # "grafico" -> "grafici"
    return word[:-1] + "i"  # -e: "impostazione" -> "impostazioni"


# Portuguese: -ão words that are not -ões, and English words that take a bare -s
_PT_AO = {"mão": "mãos", "irmão": "irmãos", "cidadão": "cidadãos", "cristão": "cristãos", "órgão": "órgãos"}
_PT_AO |= {"órfão": "órfãos", "sótão": "sótãos", "bênção": "bênçãos", "grão": "grãos", "chão": "chãos"}
_PT_AO |= {"pão": "pães", "cão": "cães", "alemão": "alemães", "capitão": "capitães", "charlatão": "charlatães"}
_PT_LOANS = {"driver", "scanner", "player", "server", "browser", "container", "banner", "buffer", "cluster"}
_PT_LOANS |= {"hacker", "router", "printer", "designer", "trigger", "parser", "handler", "listener", "poster"}
_PT_LOANS |= {"laser", "timer", "reader", "loader", "folder", "toner", "pixel", "kernel", "tunnel", "label"}
_PT_ACCENT = re.compile(r"[áéíóúâêô]")


def _plural_pt(word: str) -> str:
    low = word.lower()
    if not low[-1:].isalpha():
        return word
    if (len(word) > 1 and word.isupper()) or low in _PT_LOANS:
        return word + "s"  # "as CPUs", "os drivers"
    upper = word.isupper()
    if low in _PT_AO:
        return word[:-2] + (_PT_AO[low][-3:].upper() if upper else _PT_AO[low][-3:])
    if low.endswith("ão"):
        return word[:-2] + ("ÕES" if upper else "ões")  # "opção" -> "opções", "botão" -> "botões"
    end = _ending(upper)
    if low[-1] in "aeiouáéíóúâêôã":
        return word + end("s")
    if low[-1] == "m":
        return word[:-1] + end("ns")  # "mensagem" -> "mensagens", "item" -> "itens"
    if low[-1] in "sx":
        if low.endswith("ís"):
            return word + end("es")  # "país" -> "países"
        if low.endswith(("ás", "ês", "ós")):  # "mês" -> "meses", "gás" -> "gases"
            return word[:-2] + end({"á": "a", "ê": "e", "ó": "o"}[low[-2]] + "ses")
        return word  # "vírus", "lápis", "tórax"
    if low[-1] == "l":
        unstressed = bool(_PT_ACCENT.search(low[:-2]))  # an accent before the ending: "nível", "portátil"
        if low.endswith("il"):
            return word[:-2] + end("eis" if unstressed else "is")  # "perfil" -> "perfis"
        if low.endswith(("el", "ol")):
            vowel = low[-2] if unstressed else {"e": "é", "o": "ó"}[low[-2]]
            return word[:-2] + end(vowel + "is")  # "painel" -> "painéis", "nível" -> "níveis"
        return word[:-1] + end("is")  # "canal" -> "canais", "azul" -> "azuis"
    if low[-1] in "rz":
        return word + end("es")  # "servidor" -> "servidores", "luz" -> "luzes"
    return word + end("s")  # any other consonant (English words): "link" -> "links"


def _ending(upper: bool):
    return (lambda s: s.upper()) if upper else (lambda s: s)


_WORD_PLURALS = {"es": _plural_es, "fr": _plural_fr, "it": _plural_it, "pt": _plural_pt}


def romance_plural(phrase: str, language: str) -> str:
    """Pluralise the words of `phrase` up to its first preposition or conjunction (`language`:
    es, fr, it or pt)."""
    plural, stop = _WORD_PLURALS[language], _STOP[language]
    out, stopped = [], False
    for part in _WORD.findall(phrase):
        if part[0].isalnum() or part[0] == "_":  # a word
            if part.lower() in stop:
                stopped = True
            elif not stopped:
                part = plural(part)
        out.append(part)
    return "".join(out)
