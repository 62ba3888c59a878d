"""Training sources that teach the control tokens (model/controls.py): a register tag before
sources whose reference addresses the reader in one register, and glossary terms annotated in
sources whose reference uses a known translation of them.

    register   the reference's pronouns say it: German du/dich/dein... against Sie/Ihnen/Ihr...
               (a capital "Sie" or "Ihr" inside a sentence), French tu/te/ton... against
               vous/votre/vos, Spanish tú/te/ti/tu... against usted/ustedes: the words of
               model/controls.ADDRESS, the table whose other register the decoders ban (a
               catalog's keyboard accelerator inside a word, "Hô&te", is dropped first).
               Spanish interfaces mostly say it with verbs instead, so in Spanish also: a
               second-person verb (puedes, deseas...) is informal; a message that opens with an
               imperative of the common interface verbs is informal or formal by its form
               (Pulsa/Pulse, Elige/Elija, asegúrate/asegúrese),
               when the English opens with an imperative too ("Selects all" is described, and
               "Selecciona todo" then says nothing); and with "you" in the English, su/sus or a
               third-person form of desear/poder/querer/deber/tener/necesitar is formal.
               Italian, Brazilian Portuguese, Dutch and Russian references are read by
               text/address.py, the reader their formality is measured with (imperatives and
               verb forms too: "Выбери клип" is informal). A
               reference with both, or neither, says nothing and gets no tag, so no tag keeps
               meaning "the register catalogs use".
    terms      a dictionary made from the corpus itself: short messages ("Folder" -> "Carpeta",
               "folder" -> "directorio" in another package) give each source word the target
               words packages use for it. A longer pair whose source has such a word and whose
               reference has one of its translations (or an inflected form: "Dateien" for
               "Datei") gets that word annotated with the reference's own form. Different packages
               translate a word differently, with other genders, so the words around the term in
               the references agree with the annotated term and the model learns to follow it.
               Most packages translate a word the same way, though, and a model can ignore an
               annotation that says what it would write anyway: so in half of the annotations the
               source word itself is replaced by another word of the dictionary ("Create a new
               <term> printer <to> carpeta </term>"), and only the annotation says what to write.

Which share of the pairs get each is the run's setting (TrainConfig.register_tags,
term_annotations); the choice is seeded, so a run's data are the same on every restart.
This module knows text only: not tokens, batches nor models.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter, defaultdict

from ..model import controls
from ..text import address


def _address(language: str, register: str) -> re.Pattern:
    """A reference's words of address in one register (model/controls.ADDRESS, the decoders' ban
    lists too): any of them as a whole word, those of READ_INSIDE_SENTENCE only inside a sentence."""
    inside = controls.READ_INSIDE_SENTENCE.get((language, register), ())
    words = [w for w in controls.ADDRESS[language][register] if w not in inside]
    alternatives = [rf"\b(?:{'|'.join(re.escape(w) for w in sorted(words, key=len, reverse=True))})\b"] if words else []
    if inside:
        alternatives.append(rf"(?<=[\w,] )(?:{'|'.join(map(re.escape, inside))})\b")
    return re.compile("|".join(alternatives), 0 if (language, register) in controls.CASE_EXACT else re.IGNORECASE)


_INFORMAL = {language: _address(language, "informal") for language in controls.ADDRESS}
_FORMAL = {language: _address(language, "formal") for language in controls.ADDRESS}
_ACCELERATOR = re.compile(r"(?<=\w)&(?=\w)")  # a catalog's keyboard accelerator inside a word


# Spanish imperatives of interface verbs, tú -> usted: a message that opens with one addresses the reader
_ES_IMPERATIVES = dict(
    pair.split("/")
    for pair in (
        "selecciona/seleccione pulsa/pulse presiona/presione haz/haga introduce/introduzca escribe/escriba "
        "elige/elija abre/abra cierra/cierre guarda/guarde comprueba/compruebe asegúrate/asegúrese "
        "intenta/intente inténtalo/inténtelo vuelve/vuelva usa/use utiliza/utilice añade/añada agrega/agregue "
        "elimina/elimine borra/borre busca/busque espera/espere reinicia/reinicie instala/instale "
        "ejecuta/ejecute configura/configure revisa/revise cambia/cambie pon/ponga sal/salga ten/tenga "
        "di/diga toca/toque arrastra/arrastre mira/mire indica/indique especifica/especifique "
        "proporciona/proporcione activa/active desactiva/desactive conecta/conecte inserta/inserte "
        "acepta/acepte confirma/confirme verifica/verifique descarga/descargue actualiza/actualice "
        "mueve/mueva renombra/renombre sigue/siga contacta/contacte envía/envíe recuerda/recuerde "
        "visita/visite lee/lea ingresa/ingrese teclea/teclee"
    ).split()
)
_ES_FORMAL_FORMS = frozenset(_ES_IMPERATIVES.values())
_ES_OPENING = re.compile(r"^[¡¿\s]*(?:por favor,?\s+)?([^\W\d_]+)", re.IGNORECASE)
_EN_OPENING = re.compile(r"^\W*(?:please\s+)?([a-z]+)\b", re.IGNORECASE)
_ES_FORMAL_WITH_YOU = re.compile(r"\b(?:su|sus|desea|puede|quiere|debe|tiene|necesita)\b", re.IGNORECASE)
_YOU = re.compile(r"\byou(?:r|rs)?\b", re.IGNORECASE)


# The languages packaged after Spanish, French and German: their references are read by the text
# layer's reader (text/address.py: pronouns, imperatives and verb forms), the one that measures
# the models' formality (scripts/measure/formality_eval.py), so that a run is taught what is
# measured. Its readers of es/fr/de are not used here: those runs' recipes stay as they were.
_READ_BY_TEXT_LAYER = ("it", "pt-BR", "nl", "ru")


def register(target: str, language: str, source: str = "") -> str | None:
    """ "formal", "informal" or None (both, neither, or a language without rules) for a reference;
    the English source, where given, lets Spanish verb forms count (the module's docstring)."""
    if language in _READ_BY_TEXT_LAYER:
        read = address.read(_ACCELERATOR.sub("", target), language, source)
        return read if read in (address.FORMAL, address.INFORMAL) else None
    informal, formal = _INFORMAL.get(language), _FORMAL.get(language)
    if informal is None:
        return None
    target = _ACCELERATOR.sub("", target)  # "Hô&te", "te&mps": no "te" in them
    a, b = bool(informal.search(target)), bool(formal.search(target))
    if language == "es" and source:
        verbs = _spanish_verbs(target, source)
        a, b = a or verbs == "informal", b or verbs == "formal"
    return "informal" if a and not b else "formal" if b and not a else None


def _spanish_verbs(target: str, source: str) -> str | None:
    """What the verbs of a Spanish reference say of its register (see `register`)."""
    opening = _ES_OPENING.match(target)
    word = opening.group(1).lower() if opening else ""
    verb = _EN_OPENING.match(source)
    # an English imperative: "Select", "Press", not "Selects", "Selecting", "Selected"
    if verb and (verb.group(1).lower().endswith("ss") or not verb.group(1).lower().endswith(("s", "ing", "ed"))):
        if word in _ES_IMPERATIVES:
            return "informal"
        if word in _ES_FORMAL_FORMS:
            return "formal"
    if _YOU.search(source) and _ES_FORMAL_WITH_YOU.search(target):
        return "formal"
    return None


_SHORT = re.compile(r"[^\W\d_]{4,}(?: [^\W\d_]+)?")  # one or two words, letters only, the first of 4 or more
# English words that are no one's glossary term
_FUNCTION_WORDS = frozenset(
    "about above after again also back been before being below both does down during each else from have here "
    "into just last like many more most much must next only other over same should some such than that their "
    "them then there these they this those through under until very what when where which while will with "
    "would your yours".split()
)
_TARGET = re.compile(r"[^\W\d_]+(?:[ '-][^\W\d_]+){0,2}")
_CLEAN = re.compile(r"[_&]|\.\.\.$|…$|:$")
_WORD = re.compile(r"\w+")


def term_dictionary(pairs, min_count: int = 2) -> dict[str, set[str]]:
    """source word(s), lower case -> the target words packages translate it with, as written: from
    the pairs whose source is one or two words and whose target is at most three."""
    counts: Counter = Counter()
    for p in pairs:
        source, target = _CLEAN.sub("", p.source).strip(), _CLEAN.sub("", p.target).strip()
        if (
            _SHORT.fullmatch(source)
            and _TARGET.fullmatch(target)
            and source.lower() != target.lower()
            and source.split()[0].lower() not in _FUNCTION_WORDS
        ):
            counts[source.lower(), target.lower()] += 1
    out: dict[str, set[str]] = defaultdict(set)
    for (source, target), n in counts.items():
        if n >= min_count:
            out[source].add(target)
    return dict(out)


def _form_in(reference: str, target: str) -> tuple[int, int] | None:
    """Where the reference uses `target` or an inflected form of it (the same word with up to three
    letters more or one less at its end, for a word of five letters or more)."""
    exact, inflected = _form_patterns(target)
    m = exact.search(reference) or (inflected.search(reference) if inflected else None)
    return m.span() if m else None


@functools.cache  # one entry per dictionary translation; re's own cache of 512 was thrashed
def _form_patterns(target: str) -> tuple[re.Pattern, re.Pattern | None]:
    exact = re.compile(rf"(?<![\w-]){re.escape(target)}(?![\w-])", re.IGNORECASE)
    if " " in target or len(target) < 5:
        return exact, None
    return exact, re.compile(rf"(?<![\w-]){re.escape(target[:-1])}\w{{0,4}}(?![\w-])", re.IGNORECASE)


class Augmenter:
    """Turns a training pair's source into what the model is trained on (see the module's docstring)."""

    def __init__(self, pairs, language: str, register_tags: float, term_annotations: float, seed: int):
        self.language, self.register_tags, self.term_annotations = language, register_tags, term_annotations
        self.terms = term_dictionary(pairs) if term_annotations > 0 else {}
        self.seed = seed
        self.words = sorted(self.terms)  # the stand-ins for a source word (`annotate`)

    def source(self, source: str, target: str) -> str:
        rng = random.Random(f"{self.seed}\t{source}\t{target}")  # the same choice on every run and worker
        text = source
        if self.terms and rng.random() < self.term_annotations and source.count(" ") >= 2:
            text = self.annotate(source, target, rng)
        tag = register(target, self.language, source) if self.register_tags > 0 else None
        if tag and rng.random() < self.register_tags:
            text = controls.with_register(text, tag)
        return text

    def known(self, word: str) -> bool:
        """A dictionary word, or one with an "s" more (lower case)."""
        return word in self.terms or (word[-1:] == "s" and word[:-1] in self.terms)

    def term_words(self, source: str):
        """(start, end) of each dictionary word or two-word term in the source, left to right, a
        two-word one first: a whole word (not after "<", ">" or "-", nor before ">" or "-"), the
        dictionary's or with an "s" more, case aside. A walk over the words and set look-ups: one
        regular expression of every term took 1.5 ms a source (the dictionary has thousands)."""
        every = list(_WORD.finditer(source))
        words = [m for m in every if m.start() == 0 or source[m.start() - 1] not in "<>-"]
        after = {m.start(): m for m in every}  # a word by where it starts
        i = 0
        while i < len(words):
            first = words[i]
            second = after.get(first.end() + 1) if source[first.end() : first.end() + 1] == " " else None
            for last in (second, first):
                if last is None or source[last.end() : last.end() + 1] in (">", "-"):
                    continue
                if self.known(source[first.start() : last.end()].lower()):
                    yield first.start(), last.end()
                    i += 2 if last is second else 1
                    break
            else:
                i += 1

    def annotate(self, source: str, target: str, rng: random.Random) -> str:
        spans = []
        for at, until in self.term_words(source):
            word = source[at:until].lower()
            options = self.terms.get(word) or self.terms.get(word[:-1], ())
            found = [span for t in sorted(options) if (span := _form_in(target, t))]
            if found:
                start, end = rng.choice(found)
                spans.append((at, until, target[start:end]))
        if len(spans) > 2:
            spans = sorted(rng.sample(spans, 2))
        if not spans:
            return source
        # half the time the source word gives no hint: another word of the dictionary stands in
        out, at = [], 0
        for start, end, term in spans:
            word = rng.choice(self.words) if rng.random() < 0.5 else source[start:end]
            out += [source[at:start], f"{controls.TERM} {word} {controls.TERM_TO} {term} {controls.TERM_END}"]
            at = end
        return "".join(out) + source[at:]
