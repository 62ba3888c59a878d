"""One language module reads every code form a model declares or a caller sends (issue 34):
ISO 639-1 and 639-3, BCP 47 with script and region, NLLB/FLORES-200, M2M100 and OPUS-MT codes."""

from __future__ import annotations

import pytest

from traductor.errors import InvalidInput
from traductor.languages import CodeTable, UnknownLanguage, name, tag

# A slice of NLLB's own codes (FLORES-200), with its awkward cases: two Chinese scripts, two
# Norwegians, Serbian in Cyrillic only, Akan and Twi (one macrolanguage), Standard Arabic.
NLLB = [
    "eng_Latn", "fra_Latn", "deu_Latn", "spa_Latn", "por_Latn", "zho_Hans", "zho_Hant", "yue_Hant",
    "nob_Latn", "nno_Latn", "srp_Cyrl", "aka_Latn", "twi_Latn", "arb_Arab", "ary_Arab", "tgl_Latn",
]  # fmt: skip


@pytest.mark.parametrize(
    "code, expected",
    [
        ("fr", "fr"),
        ("FR", "fr"),
        ("fra", "fr"),
        ("fre", "fr"),  # ISO 639-2/B
        ("fra_Latn", "fr"),
        ("__fr__", "fr"),
        (">>fra<<", "fr"),
        ("zho_Hant", "zh-Hant"),
        ("zh-hans", "zh-Hans"),
        ("pt_BR", "pt-BR"),
        ("sr-Latn", "sr-Latn"),
        ("arb_Arab", "ar"),
        ("iw", "he"),
    ],
)
def test_every_form_reads_as_one_tag(code, expected):
    assert tag(code) == expected


@pytest.mark.parametrize("code", ["", "xx", "auto", "english", "12", "fr_", "<b>", "e" * 40])
def test_a_code_that_names_no_language_is_an_invalid_input(code):
    with pytest.raises(UnknownLanguage, match="is not a language code") as raised:
        tag(code)
    assert isinstance(raised.value, InvalidInput)


def test_names_are_english_display_names():
    assert [name(c) for c in ("fr", "fra_Latn", "zh-Hant", "tw", "nb")] == [
        "French",
        "French",
        "Chinese (Traditional)",
        "Twi",
        "Norwegian Bokmål",
    ]
    assert name("xx") == "xx"


def test_a_model_is_shown_in_short_tags_each_apart():
    table = CodeTable(NLLB)
    shown = [table.shown(c) for c in NLLB]
    assert shown[:8] == ["en", "fr", "de", "es", "pt", "zh-Hans", "zh-Hant", "yue-Hant"]
    assert len(set(shown)) == len(NLLB)  # Akan and Twi read as one tag; shown apart
    assert table.shown("aka_Latn").startswith("ak") and table.shown("twi_Latn").startswith("tw")


@pytest.mark.parametrize(
    "code, own",
    [
        ("fr", "fra_Latn"),
        ("FRA", "fra_Latn"),
        ("fra_Latn", "fra_Latn"),
        ("fr-CA", "fra_Latn"),  # a region never stops a match
        ("pt-BR", "por_Latn"),
        ("pt-PT", "por_Latn"),
        ("es-419", "spa_Latn"),
        ("zh", "zho_Hans"),  # Chinese without a script is Simplified
        ("zh-CN", "zho_Hans"),
        ("zh-TW", "zho_Hant"),
        ("zh-HK", "zho_Hant"),
        ("zh-Hant", "zho_Hant"),
        ("no", "nob_Latn"),  # Norwegian is Bokmål ...
        ("nn", "nno_Latn"),  # ... and Nynorsk by its own name
        ("sr", "srp_Cyrl"),
        ("tw", "twi_Latn"),  # Twi before its macrolanguage Akan
        ("ak", "aka_Latn"),
        ("ar", "arb_Arab"),
        ("tl", "tgl_Latn"),
    ],
)
def test_a_callers_code_finds_the_models_own(code, own):
    assert CodeTable(NLLB).own(code) == own


@pytest.mark.parametrize("code", ["sr-Latn", "it", "ca", "ja"])
def test_another_script_or_language_is_not_served(code):
    """Serbian in Latin script is not the model's Cyrillic; Catalan is not the nearest Spanish."""
    assert CodeTable(NLLB).own(code) is None


def test_an_exact_regional_tag_wins_over_a_near_one():
    table = CodeTable(["pt-BR", "pt-PT", "en"])
    assert (table.own("pt-PT"), table.own("pt_BR"), table.own("pt")) == ("pt-PT", "pt-BR", "pt-BR")


def test_other_families_codes():
    """M2M100's __xx__ and OPUS-MT's >>xxx<< tokens, and plain codes, as a model may declare them."""
    m2m = CodeTable(["__en__", "__fr__", "__zh__", "__no__"])
    assert [m2m.own(c) for c in ("fr", "fra_Latn", "zh-Hans", "nb")] == ["__fr__", "__fr__", "__zh__", "__no__"]
    opus = CodeTable([">>fra<<", ">>spa<<", ">>por<<"])
    assert [opus.own(c) for c in ("fr", "es", "pt-BR", "de")] == [">>fra<<", ">>spa<<", ">>por<<", None]
    assert [opus.shown(c) for c in opus.codes] == ["fr", "es", "pt"]


def test_a_private_code_beside_standard_ones_breaks_no_match():
    """M2M100 declares `ns` (Northern Sotho; the standard is `nso`): it is shown and reached as
    itself, and the nearest-tag search for the others skips it."""
    table = CodeTable(["de", "fr", "ns"])
    assert [table.own(c) for c in ("de-AT", "fra", "ns", "zh")] == ["de", "fr", "ns", None]
    assert table.shown("ns") == "ns"


def test_a_script_that_is_part_of_the_usual_one_is_the_language():
    """NLLB's kor_Hang is Korean as usually written (Kore: Hangul with Han): shown `ko`, reached by
    `ko`, `ko-KR`, `kor`; its text is detected as it (tests/test_import.py)."""
    table = CodeTable(["kor_Hang", "jpn_Jpan", "eng_Latn"])
    assert table.shown("kor_Hang") == "ko" and table.shown("jpn_Jpan") == "ja"
    assert [table.own(c) for c in ("ko", "ko-KR", "kor", "ja-JP")] == ["kor_Hang", "kor_Hang", "kor_Hang", "jpn_Jpan"]
