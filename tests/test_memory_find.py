"""engine/memory.find: a segment's entry in a translation memory, exact or, for a text beginning
with a lowercase letter, its capitalised form's with the translation's first letter lowered."""

from __future__ import annotations

from traductor.engine.memory import find
from traductor.languages import capitalizes_nouns

ENTRIES = {
    "Edge": "Край",
    "Hello": "¡Hola",
    "Open URL": "URL öffnen",
    "Show URL": "URL mostrar",
    "M": "S",
    "edge": "ребро",
    "Kante": "Kante",
    "Running...": "12 en curso...",
}


def test_the_exact_entry_comes_first():
    assert find(ENTRIES, "Edge", "ru") == "Край"
    assert find(ENTRIES, "edge", "ru") == "ребро", "the text's own entry, not its capitalised form's"
    assert find(ENTRIES, "Nothing", "es") is None and find({}, "edge", "es") is None


def test_a_lowercase_text_takes_its_capitalised_entry_lowered():
    assert find({"Edge": "Край"}, "edge", "ru") == "край"
    assert find(ENTRIES, "hello", "es") == "¡hola", "the first letter, after punctuation"
    assert find(ENTRIES, "show URL", "es") == "URL mostrar", "an all-capitals word stays"
    assert find(ENTRIES, "running...", "es") == "12 en curso...", "already lowercase after the digits"
    assert find({"Open": "{Name} abierto"}, "open", "es") == "{Name} abierto", "a placeholder is never changed"
    assert find({"Save": "<b>Guardar</b>"}, "save", "es") == "<b>guardar</b>", "the first letter after the tag"


def test_no_variant_for_a_lone_letter_a_capital_start_or_a_language_that_capitalises_nouns():
    assert find(ENTRIES, "m", "es") is None, "'m' (minutes) is not 'M'"
    assert find(ENTRIES, "EDGE", "ru") is None and find({"edge": "край"}, "Edge", "ru") is None
    assert find({"Edge": "Kante"}, "edge", "de") == "Kante" and find({"Edge": "Kante"}, "edge", "de-AT") == "Kante"
    assert capitalizes_nouns("de") and capitalizes_nouns("lb") and not capitalizes_nouns("nl")
    assert not capitalizes_nouns("") and not capitalizes_nouns("xx-unknown-thing")
