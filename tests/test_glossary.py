"""Glossaries as strings (traductor.glossary): validation naming the bad entry, where terms are
found (whole words, case-insensitive, multi-word, longest first, plurals, not inside
placeholders), the target forms (plural, capitals) and the masking with the segment's own
placeholders."""

from __future__ import annotations

import pytest

from traductor.errors import InvalidInput, NotFound
from traductor.glossary import NO_GLOSSARIES, Glossary, GlossaryError
from traductor.glossary.forms import plural
from traductor.glossary.masking import mask, protect, switch, terms, unmark
from traductor.glossary.substitute import substitute
from traductor.model import placeholders

ENTRIES = (
    ("file", "fichero"),
    ("hidden file", "fichero oculto"),
    ("file system", "sistema de ficheros"),
    ("settings", "ajustes"),
    ("mouse", "ratón"),
    ("mice", "ratones"),
    ("configuration", "configuración"),
    ("e-mail", "correo-e"),
    ("C++", "C++"),
)
G = Glossary("en", "es", ENTRIES)


def found(text: str, glossary: Glossary = G) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], target) for f, target in terms(glossary, text)]


@pytest.mark.parametrize(
    "entries, message",
    [
        ((), "has no entries"),
        ((("file", ""),), "glossary entry 1 ('file'): target is empty"),
        ((("file", "fichero"), ("", "x")), "glossary entry 2 (''): source is empty"),
        ((("file", "fichero"), ("File", "archivo")), "glossary entry 2 ('File'): the source term is entry 1"),
        ((("file ", "fichero"),), "starts or ends with whitespace"),
        ((("file", "fi\tchero"),), "holds a tab or a line break"),
        ((("file", "x" * 1025),), "longer than 1024 characters"),
        ((("file", 3),), "target must be a string"),
        ((("file",),), "glossary entry 1: must be a (source, target) pair"),
    ],
)
def test_a_bad_glossary_is_invalid_input_naming_the_entry(entries, message):
    with pytest.raises(GlossaryError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        Glossary("en", "es", entries)
    assert issubclass(GlossaryError, InvalidInput)


def test_bad_languages_and_entries_type_are_named():
    with pytest.raises(GlossaryError, match="source_language"):
        Glossary(None, "es", ENTRIES)
    with pytest.raises(GlossaryError, match="entries must be a tuple"):
        Glossary("en", "es", [("file", "fichero")])
    assert Glossary.from_pairs("en", "es", [["file", "fichero"]]).entries == (("file", "fichero"),)


def test_no_glossaries_answers_not_found():
    with pytest.raises(NotFound, match="'abc' not found"):
        NO_GLOSSARIES.get("abc")


def test_whole_words_case_insensitive_longest_first():
    assert found("Open the FILE") == [("FILE", "FICHERO")]
    assert found("profile files_x filed file.") == [("file", "fichero")]
    assert found("a hidden  file in the file system") == [
        ("hidden  file", "fichero oculto"),
        ("file system", "sistema de ficheros"),
    ]
    assert found("Settings of e-mail in C++") == [("Settings", "Ajustes"), ("e-mail", "correo-e"), ("C++", "C++")]
    assert found("nothing here") == []


def test_plurals_take_the_target_plural_and_an_entry_of_its_own_wins():
    assert found("hidden files and file systems") == [
        ("hidden files", "ficheros ocultos"),
        ("file systems", "sistemas de ficheros"),
    ]
    assert found("configurations, mice") == [("configurations", "configuraciones"), ("mice", "ratones")]
    assert (
        plural("luz", "es") == "luces" and plural("virus", "es") == "virus" and plural("canción", "es") == "canciones"
    )
    assert (
        plural("journal", "fr") == "journaux"
        and plural("bureau", "fr") == "bureaux"
        and plural("fichier caché", "fr") == "fichiers cachés"
    )
    assert plural("base de données", "fr") == "bases de données"
    assert plural("Datei", "de") == "Datei"  # German plurals are not regular: the term as written
    assert plural("directory", "en") == "directories"


def test_terms_inside_placeholders_are_not_terms():
    assert found("use --file or <a href='file'>file</a> and %(file)s") == [("file", "fichero")]


def test_masking_numbers_terms_with_the_segment_placeholders_in_order():
    text = "cannot open %s: file not found in <b>settings</b>"
    m = mask(text, terms(G, text))
    assert m.text == "cannot open <ph0>: <ph1> not found in <ph2><ph3><ph4>"
    assert m.values == ["%s", "fichero", "<b>", "ajustes", "</b>"]
    assert placeholders.unmask(m.text, m.values) == "cannot open %s: fichero not found in <b>ajustes</b>"
    assert switch(text, terms(G, text)) == "cannot open %s: fichero not found in <b>ajustes</b>"


def test_terms_beyond_the_placeholder_tokens_are_written_in():
    text = " ".join(["%s"] * 15) + " file and settings"
    m = mask(text, terms(G, text))
    assert m.values == ["%s"] * 15 + ["fichero"]
    assert m.text.endswith("<ph14> <ph15> and ajustes")
    many = " ".join(["%s"] * 17) + " file"
    assert mask(many, terms(G, many)) == placeholders.mask(many.replace("file", "fichero"))


def test_plurals_are_derived_for_an_english_source_only():
    assert found("files", Glossary("fr", "es", (("file", "fichero"),))) == []
    assert found("files", Glossary("", "es", (("file", "fichero"),))) == [("files", "ficheros")]
    assert found("files", Glossary("EN-GB", "es", (("file", "fichero"),))) == [("files", "ficheros")]


def test_spanish_determiners_agree_with_the_term_that_replaced_a_word():
    own = {"folder": "carpeta", "folders": "carpetas", "settings": "configuración", "password": "contraseña"}
    glossary = Glossary("en", "es", (("folder", "directorio"), ("settings", "ajustes"), ("password", "clave")))

    def sub(source: str, translation: str) -> str | None:
        return substitute(translation, terms(glossary, source), own, "es")

    assert sub("Open the folder", "Abrir la carpeta") == "Abrir el directorio"
    assert sub("data of the folder", "Datos de la carpeta") == "Datos del directorio"
    assert sub("Folders", "Las carpetas") == "Los directorios"
    assert sub("A password", "Una contraseña") == "Una clave"  # both feminine
    assert sub("The settings", "La configuración") == "Ajustes"  # plural for singular, no gender: dropped
    assert sub("Save the settings", "Guardar la configuración") == "Guardar ajustes"
    options = Glossary("en", "es", (("settings", "opciones"),))  # plural for singular, feminine said: plural
    saved = substitute("Guardar la configuración", terms(options, "Save the settings"), own, "es")
    assert saved == "Guardar las opciones"
    assert sub("Open the password", "Abrir la contraseña") == "Abrir la clave"  # -e, singular: left alone
    assert sub("the folder", "el documento") is None  # no own word: pass 2
    assert substitute("Abrir la carpeta", terms(glossary, "Open the folder"), own, "fr") == "Abrir la directorio"


def test_unmark_parts_a_glued_term_and_leaves_words_that_contain_it():
    text = "Confirm File Replacing"
    m = mask(text, terms(G, text), marked=True)
    assert m.values == ["\ue000Fichero\ue001"]
    glued = placeholders.unmask("Confirmar <ph0>reemplazar", m.values)
    assert unmark(glued) == "Confirmar Fichero reemplazar"
    assert unmark(placeholders.unmask("ficheros y <ph0>", m.values)) == "ficheros y Fichero"  # "ficheros" untouched


@pytest.mark.parametrize(
    "text, whole",
    [
        ("file", "fichero"),
        ("Files:", "Ficheros:"),  # the plural and the capital of the occurrence
        ("  HIDDEN FILES!  ", "  FICHEROS OCULTOS!  "),
        ("%s: settings", "%s: ajustes"),  # a placeholder is kept as it stands
        ("file, mice", "fichero, ratones"),
        ("the file", None),  # words left for the model
        ("file 2", "fichero 2"),
        ("Open file", None),
    ],
)
def test_a_segment_that_is_nothing_but_terms_is_answered_with_their_target_forms(text, whole):
    held = protect(G, text, list(placeholders.finditer(text)))
    assert held.whole == whole
