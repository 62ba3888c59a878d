"""What the code knows of languages, in one place: no other module writes a language code.

A model's languages are its bundle's (`config.json`: `languages.source`, `languages.target`) and
the registry routes calls by them (service/registry.py); the text layer splits sentences with the
model's source language and `/detect` chooses among the served sources. What is not a model's
lives here:

- `NAMES`: the display names `/languages` and `/frontend/settings` show (a code missing is shown
  as itself);
- `ENGLISH`: the language of gettext msgids (gettext's convention: a corpus made from catalogs
  translates from it) and the one language `/detect`'s heuristic knows (service/http/detect.py);
- `LEGACY_PAIR`: the pair of checkpoints and corpora written before the pair was recorded, the
  project's first model's: English -> Spanish (and so `traductor corpus --lang`'s default).
"""

from __future__ import annotations

ENGLISH = "en"
SPANISH = "es"
LEGACY_PAIR = {"source": ENGLISH, "target": SPANISH}

NAMES = {
    "ar": "Arabic",
    "ca": "Catalan",
    "de": "German",
    ENGLISH: "English",
    SPANISH: "Spanish",
    "eu": "Basque",
    "fr": "French",
    "gl": "Galician",
    "it": "Italian",
    "ja": "Japanese",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "ru": "Russian",
    "uk": "Ukrainian",
    "zh": "Chinese",
}


def name(code: str) -> str:
    """The display name of a language code (the code itself when unknown)."""
    return NAMES.get(code, code)
