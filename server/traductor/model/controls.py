"""Control tokens: what a caller asks of the project's models beyond the text, written into the
source as reserved SentencePiece symbols.

    register   `<formal>` or `<informal>` before the text: address the reader as "Sie"/"vous"/"usted"
               or as "du"/"tu"/"tú". No tag: the register most catalogs use (the model's own choice).
    terms      `<term> folder <to> Verzeichnis </term>`: a glossary term annotated in place, the source
               words followed by the target words the translation must use, inflected and agreed
               with as the sentence needs (the model learns it from references annotated with the
               word they use: training/augment.py).

A model knows these tokens when its tokenizer has them (`supported`): models trained before they
existed, and imported models, do not, and callers are told so rather than served text with tags
in it. A model that knows the tags may still deliver only one register (the Italian model writes
"tu" when asked, but "Lei" is too rare in its catalogs for `<formal>` to work): its config.json
then lists the registers that do (`checked_registers`; scripts/measure/formality_eval.py measures
them), and a call asking another is refused. A model whose untagged output mixes the registers (the
Russian model's does: docs/model-card.md) may name the register that a call asking none gets where
its source says "you" (`checked_default_register`, `addresses_reader`): the tag then goes in as if
asked. A model may also deliver a register by rewriting its output in another
(`checked_rewrites`: the Italian model decodes "tu", and the text pipeline rewrites it to "Lei":
service/pipeline/register.py). `Registers` holds the three as a config.json writes them.

This module knows the tokens and how to write them; not how a reference's register is recognised
(training/augment.py) nor which requests ask for what (service/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FORMAL, INFORMAL = "<formal>", "<informal>"
TERM, TERM_TO, TERM_END = "<term>", "<to>", "</term>"
TOKENS = (FORMAL, INFORMAL, TERM, TERM_TO, TERM_END)
REGISTERS = {"formal": FORMAL, "informal": INFORMAL}


def with_register(text: str, register: str | None) -> str:
    """`text` asked in `register` ("formal", "informal" or None: the model's own)."""
    return f"{REGISTERS[register]} {text}" if register else text


def annotate(text: str, terms: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, target) span annotated: `<term> source <to> target </term>`
    (spaces around the words, so that they are cut into pieces as anywhere else). Spans are in
    order and do not overlap."""
    out, at = [], 0
    for start, end, target in terms:
        out += [text[at:start], f"{TERM} {text[start:end]} {TERM_TO} {target} {TERM_END}"]
        at = end
    return "".join(out) + text[at:]


def checked_registers(value) -> tuple[str, ...] | None:
    """A config.json's `registers` (a checkpoint's or a bundle's: the registers the model was measured
    to deliver), in REGISTERS' order; None when absent (every register its tags have). ValueError
    names what is wrong."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(r, str) and r in REGISTERS for r in value):
        raise ValueError(f"registers: expected a list of {', '.join(REGISTERS)}, got {value!r}")
    return tuple(r for r in REGISTERS if r in value)


def checked_default_register(value, registers: tuple[str, ...] | None) -> str:
    """A config.json's `default_register` ("" when absent: untagged input, the model's own choice),
    which must be one of the model's `registers` (checked_registers'; None: any); ValueError names
    what is wrong."""
    if value is None or value == "":
        return ""
    allowed = registers if registers is not None else tuple(REGISTERS)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"default_register: expected one of {', '.join(allowed) or 'no register'}, got {value!r}")
    return value


def checked_rewrites(value, registers: tuple[str, ...] | None) -> dict[str, str]:
    """A config.json's `register_rewrites` ({} when absent): each register the model delivers by
    rewriting its output in another, asked -> decoded ({"formal": "informal"}); the decoded one must
    be one of the model's `registers` (checked_registers'; None: any), the asked one not (its tag
    would deliver it). ValueError names what is wrong."""
    if value is None:
        return {}
    delivered = registers if registers is not None else tuple(REGISTERS)
    if not isinstance(value, dict) or not all(
        asked in REGISTERS and asked not in delivered and decoded in delivered for asked, decoded in value.items()
    ):
        raise ValueError(
            f"register_rewrites: expected {{register asked: register decoded}}, the decoded one among "
            f"{', '.join(delivered) or 'no register'} and the asked one not, got {value!r}"
        )
    return dict(value)


@dataclass(frozen=True)
class Registers:
    """What a config.json (a checkpoint's or a bundle's) says of a model's registers, under its keys:

    registers           measured   those its tags were measured to deliver; None: every one they have
    default_register    default    the one a call asking none gets where its source says "you"; "": none
    register_rewrites   rewrites   those it delivers by rewriting its output in another (asked -> decoded)
    """

    measured: tuple[str, ...] | None = None
    default: str = ""
    rewrites: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, config: dict) -> Registers:
        """The three keys of a config.json, checked; ValueError names the one that is wrong."""
        measured = checked_registers(config.get("registers"))
        default = checked_default_register(config.get("default_register"), measured)
        return cls(measured, default, checked_rewrites(config.get("register_rewrites"), measured))

    def to_config(self) -> dict:
        """The keys a config.json writes: only those that say something."""
        out: dict = {}
        if self.measured is not None:
            out["registers"] = list(self.measured)
        if self.default:
            out["default_register"] = self.default
        if self.rewrites:
            out["register_rewrites"] = dict(self.rewrites)
        return out


def supported(piece_to_id, unk_id: int) -> bool:
    """Whether a SentencePiece vocabulary (its `piece_to_id`) has every control token."""
    return all(piece_to_id(t) != unk_id for t in TOKENS)


# Words that address the reader in one register only, by target language, in one table for both
# uses: a decoder asked for one register may not write the other's (model/constraints.py bans their
# pieces; `register_bans`), and training reads a reference's register from them
# (training/augment.register, with READ_INSIDE_SENTENCE and its Spanish verb rules).
# Words are matched as written, and capitalised too unless the language's CASE_EXACT register says
# otherwise (German "Sie"/"Ihr" are formal only with a capital: "sie"/"ihr" are she/they/her). A
# word starting with "-" is a clitic after a verb ("Voulez-vous"). Words that are also something
# else ("su" is his/her/their too, "le" him) are not here: no ban may take a word from a sentence
# that does not address the reader.
ADDRESS = {
    "de": {
        "formal": ("Sie", "Ihnen", "Ihr", "Ihre", "Ihren", "Ihrem", "Ihrer", "Ihres"),
        "informal": (
            "du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "deines",
            "euch", "euer", "eure", "euren", "eurem", "eurer", "eures",
        ),
    },
    "fr": {
        "formal": ("vous", "votre", "vos", "-vous"),
        "informal": ("tu", "toi", "ton", "ta", "tes", "te", "t'", "t’", "-tu", "-toi"),
    },
    "es": {
        "formal": ("usted", "ustedes"),
        "informal": (
            "tú", "tu", "tus", "ti", "te", "contigo", "vosotros", "vuestro", "vuestra", "vuestros", "vuestras",
            # second-person singular verbs, never formal
            "puedes", "debes", "tienes", "quieres", "deseas", "necesitas", "estás", "eres", "has", "sabes", "prefieres",
        ),
    },
    # Italian Lei/Suo are formal only with a capital and inside a sentence ("lei" is she)
    "it": {
        "formal": ("Lei", "Suo", "Sua", "Suoi", "Sue"),
        "informal": ("tu", "ti", "te", "tuo", "tua", "tuoi", "tue", "vuoi", "puoi", "devi", "hai"),
    },
    # Brazilian Portuguese: você is the everyday register, o senhor / a senhora the formal one
    "pt-BR": {
        "formal": ("senhor", "senhora", "senhores", "senhoras"),
        "informal": ("você", "vocês", "tu", "te", "teu", "tua", "teus", "tuas", "contigo"),
    },
    "nl": {
        "formal": ("u", "uw"),
        "informal": ("je", "jij", "jou", "jouw", "jullie", "jezelf"),
    },
    # Russian вы is formal in interface text (a group is rarely addressed); ты informal
    "ru": {
        "formal": (
            "вы", "вас", "вам", "вами", "ваш", "ваша", "ваше", "ваши", "вашего", "вашей", "вашему", "вашим",
            "вашими", "ваших", "вашу",
        ),
        "informal": (
            "ты", "тебя", "тебе", "тобой", "твой", "твоя", "твоё", "твое", "твои", "твоего", "твоей", "твоему",
            "твоим", "твоими", "твоих", "твою",
        ),
    },
}  # fmt: skip
CASE_EXACT = {("de", "formal"), ("it", "formal")}
# Formal words that open a sentence in another sense too ("Sie" they, "Ihr" her/their/you all): a
# reference's register is read from them only inside a sentence, after a word or a comma. The
# decoders ban them everywhere (with the capital, as CASE_EXACT says).
READ_INSIDE_SENTENCE = {("de", "formal"): ("Sie", "Ihr"), ("it", "formal"): ("Lei", "Suo", "Sua", "Suoi", "Sue")}
# Words of address that begin other words more often than they stand alone ("tu" in "tutoriel",
# "Te" in "Teinte", "du" in "dump", "ti" in "tirar"; counted on the targets of the documentation
# corpus, docs/model-card.md), as written: banned only where the word ends, so that the other
# words are still written. The price: a greedy decoder that began one meaning the word itself
# must go on with a longer one ("Hast dus vergessen"). So the others are banned wherever their
# pieces are ("▁Sie", which the weights write far more often than "Siehe").
WHOLE_WORD = {
    "de": {"du", "Du", "dich", "Dich", "dir"},
    "fr": {"tu", "Tu", "ta", "Ta", "te", "Te", "tes", "Tes"},
    "es": {"Tu", "ti", "Ti", "te", "Te"},
    "it": {"tu", "Tu", "ti", "Ti", "te", "Te", "tuo", "Tuo", "tua", "Tua", "tue", "Tue", "hai", "Hai"},
    "pt-BR": {"tu", "Tu", "te", "Te", "teu", "Teu", "tua", "Tua"},
    "nl": {"u", "U", "uw", "Uw", "je", "Je", "jou", "Jou"},
    "ru": {"ты", "Ты", "вы", "Вы", "вас", "Вас", "вам", "Вам", "ваш", "Ваш", "тебе", "Тебе"},
}
WORD_END = None  # in a sequence of `register_bans`: any piece that ends the word before it
GLUED = ...  # first in a sequence of `register_bans`: any piece a word can be glued to ("▁(", "„", "<ph0>")
GLUE = "("  # what a word is glued to when it is cut as it is after punctuation


# Verb forms of one register only, banned as ADDRESS's words are (training reads Spanish verbs
# its own way: training/augment.py): usted imperatives ("Introduzca", "Inténtelo") and French vous
# forms ("Saisissez", "Veuillez"), never informal: the irregular ones as written, and those of
# regular interface verbs made from their infinitives (`_es_usted`, `_fr_vous`). A translation
# asked for `informal` that began one of them takes another verb (the call's beam of 4:
# options.for_segment). Spanish ones are banned where the word ends (VERBS_WHOLE_WORD), so that
# "seleccionemos", "pulsera"... are still written.
_ES_REGULAR = (
    "seleccionar pulsar presionar guardar intentar utilizar agregar eliminar borrar buscar esperar instalar "
    "ejecutar configurar revisar cambiar tocar arrastrar mirar indicar especificar activar desactivar conectar "
    "insertar aceptar confirmar verificar descargar actualizar renombrar contactar visitar ingresar "
    "teclear iniciar quitar dejar cancelar copiar pegar desconectar apagar cargar consultar rellenar completar "
    "llenar marcar desmarcar escanear reintentar editar llamar pagar registrar reiniciar navegar asegurar anotar "
    "avisar cerciorar comunicar dirigir identificar habilitar deshabilitar "
    "escribir abrir leer añadir permitir compartir subir describir responder imprimir recibir descubrir "
    "acceder aprender comprender insistir decidir"
).split()
_ES_IRREGULAR = (
    "haga introduzca elija cierre compruebe vuelva ponga salga tenga diga mueva siga recuerde continúe escoja "
    "envíe encienda pruebe muestre restablezca reproduzca traduzca proporcione inténtelo asegúrese regístrese "
    "identifíquese conéctese póngase cerciórese diríjase comuníquese"
).split()
_FR_ER = (
    "saisir sélectionner vérifier cliquer appuyer entrer redémarrer réessayer essayer fermer enregistrer "
    "supprimer patienter insérer taper indiquer accepter confirmer connecter consulter contacter modifier "
    "utiliser installer télécharger activer désactiver annuler continuer ajouter créer copier coller renommer "
    "déplacer chercher rechercher changer cocher décocher garder laisser donner regarder quitter relancer "
    "recommencer glisser déposer sauvegarder spécifier souhaiter désirer oublier imprimer "
    "partager afficher éditer remplir choisir définir fournir"
).split()
_FR_IRREGULAR = (
    "veuillez êtes etes avez voulez pouvez devez souvenez assurez prenez écrivez lisez faites dites allez mettez "
    "attendez voyez savez soyez ayez sachez suivez ouvrez venez revenez tenez"
).split()


def _es_usted(infinitive: str) -> str:
    """The usted imperative of a regular Spanish verb ("buscar" -> "busque", "leer" -> "lea")."""
    stem, ending = infinitive[:-2], infinitive[-2:]
    if ending != "ar":
        return (stem[:-1] + "j" if stem.endswith("g") else stem) + "a"
    for hard, soft in (("c", "qu"), ("g", "gu"), ("z", "c")):
        if stem.endswith(hard):
            return stem[: -len(hard)] + soft + "e"
    return stem + "e"


def _fr_vous(infinitive: str) -> str:
    """The vous form of a French -er (or -ir of the second group) verb ("saisir" -> "saisissez")."""
    if infinitive.endswith("ir"):
        return infinitive[:-2] + "issez"
    return infinitive[:-2] + "ez"


VERB_FORMS = {
    "es": {"formal": tuple(dict.fromkeys([_es_usted(v) for v in _ES_REGULAR] + _ES_IRREGULAR))},
    "fr": {"formal": tuple(dict.fromkeys([_fr_vous(v) for v in _FR_ER] + _FR_IRREGULAR))},
}
# Words of one register only where the English source addresses the reader (one of SOURCE_YOU's
# words and none of SOURCE_OTHERS'): Spanish "su" is "your" then, not "his/its", and a third-person
# "desea", "puede" is "you". The decoders ban them for such a source only (`register_bans`'s
# `addressed`), where the word ends ("quieres", "puedes", "sustituir" are still written).
ADDRESSED = {
    "es": {
        "formal": tuple(
            "su sus desea puede quiere debe tiene necesita está podría debería tendrá podrá prefiere sabe".split()
        ),
        # tú imperatives, which are third persons too ("El programa sigue..."): with a capital only,
        # where they open a sentence ("Sigue las instrucciones de su pantalla")
        "informal": tuple(
            w.capitalize()
            for w in "selecciona pulsa presiona haz introduce escribe elige abre cierra guarda comprueba intenta "
            "vuelve usa utiliza añade agrega elimina borra busca espera reinicia instala ejecuta revisa cambia "
            "pon sal ten di toca arrastra indica activa desactiva conecta inserta acepta confirma verifica "
            "descarga actualiza mueve sigue envía recuerda lee ingresa inicia crea quita deja cancela continúa "
            "rellena llena completa escoge copia pega apaga enciende carga consulta".split()
        ),
    }
}
SOURCE_YOU = ("you", "You", "your", "Your", "yours", "yourself")
SOURCE_OTHERS = ("his", "His", "her", "Her", "its", "Its", "their", "Their")
VERBS_WHOLE_WORD = {"es"}
_YOU_WORDS = re.compile(r"\b(?:" + "|".join(sorted({w.lower() for w in SOURCE_YOU})) + r")\b", re.IGNORECASE)
_ANNOTATED_TARGETS = re.compile(re.escape(TERM_TO) + r".*?" + re.escape(TERM_END), re.DOTALL)


def addresses_reader(source: str) -> bool:
    """Whether an English source speaks to its reader with one of SOURCE_YOU's words (any case,
    whole words): where a model's `default_register` applies. An imperative without them ("Disable
    these plugins") is not read as addressing: Russian catalogs write such a button as an
    infinitive, which the formal tag would turn into an imperative ("Отключите"). The target side
    of a glossary annotation (`<to> … </term>`) is not the source's English and is not read."""
    return _YOU_WORDS.search(_ANNOTATED_TARGETS.sub(" ", source)) is not None


def address_words(language: str, register: str, table: dict | None = None) -> list[str]:
    """The words of `register` ("formal"/"informal") in `language` (of ADDRESS, or `table`), with
    their capitalised forms (none for a language without a list)."""
    words = (ADDRESS if table is None else table).get(language, {}).get(register, ())
    if (language, register) in CASE_EXACT:
        return list(words)
    out = []
    for w in words:
        out += [w] if w[:1] == "-" or w == w.capitalize() else [w, w.capitalize()]
    return out


def register_bans(language: str, encode, addressed: bool = False) -> dict[str, list[tuple]]:
    """For each register tag, the piece sequences a translation into `language` asked for it may
    not produce: the other register's words (ADDRESS, VERB_FORMS; with `addressed`, those of
    ADDRESSED too: for a source that addresses the reader), each cut into pieces by `encode` (text
    -> pieces, as SentencePiece cuts a word). A decoder bans a sequence's last piece wherever the
    output ends with the pieces before it; a WHOLE_WORD word's sequence ends with WORD_END (what may
    not follow its pieces is whatever ends a word). A clitic ("-vous") is cut without the word
    boundary before it.

    Each word is cut a second time as it is glued to punctuation ("(vous", "„Sie", "¿Puedes"): no
    "▁", and often shorter pieces ("(Ihre" is "▁(", "I", "hr", "e"). That sequence begins with
    GLUED (the piece before it must be one a word can be glued to), and ends with WORD_END where
    the word's own does: "(tutoriel" and "(dupliziert" are still written, "(Siehe" is not, as
    "Siehe" is not. (Banned where it ends, a glued "vous" the weights insist on is written on,
    glued to the next word: "(vousDémarrer", "Votres compte", "Ihrkonto".)"""
    other = {FORMAL: "informal", INFORMAL: "formal"}
    glue = tuple(encode(GLUE))
    bans = {}
    for tag, register in other.items():
        sequences = []
        verbs = address_words(language, register, VERB_FORMS)
        verbs += address_words(language, register, ADDRESSED) if addressed else []
        for word in address_words(language, register) + verbs:
            pieces = tuple(encode(word))
            if word[:1] == "-" and pieces[:1] == ("▁",):
                pieces = pieces[1:]
            ends = word.lstrip("-") in WHOLE_WORD.get(language, ()) or (word in verbs and language in VERBS_WHOLE_WORD)
            whole = (WORD_END,) if ends else ()
            if pieces:
                pieces += whole
            cut, glued = tuple(encode(GLUE + word)), ()
            # a clitic is glued already; a vocabulary that joins the word to the glue gives no cut
            if word[:1] != "-" and cut[: len(glue)] == glue and len(cut) > len(glue):
                glued = (GLUED, *cut[len(glue) :], *whole)
            for sequence in (pieces, glued):
                if sequence and sequence not in sequences:
                    sequences.append(sequence)
        bans[tag] = sequences
    return bans
