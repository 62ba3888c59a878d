"""Plural messages translated into a language of three forms (Russian) and of two (pt-BR, nl, it):
gettext .po, Android <plurals> and Qt numerus messages (issue 55, item 2: "a Russian .po with
plurals round-trips through msgfmt --check").

The "service" answers "[ru] TEXT" (placeholders kept), so which source text fills which form is
visible. Outputs are checked by the formats' own tools where installed (GNU msgfmt, Qt's
lrelease/lconvert) and by translate-toolkit's and lxml's readers."""

from __future__ import annotations

import gettext
import os
import shutil
import subprocess

import polib
import pytest
from lxml import etree

from traductor_client.files import Job, read
from traductor_client.files.plurals import LANGUAGES, language

needs_msgfmt = pytest.mark.skipif(
    shutil.which("msgfmt") is None, reason="GNU msgfmt is not installed (apt-get install gettext)"
)
LRELEASE = shutil.which("lrelease") or next(
    (p for p in ("/usr/lib/qt6/bin/lrelease", "/usr/lib/qt5/bin/lrelease") if os.path.exists(p)), None
)
LCONVERT = shutil.which("lconvert") or next(
    (p for p in ("/usr/lib/qt6/bin/lconvert", "/usr/lib/qt5/bin/lconvert") if os.path.exists(p)), None
)
RUSSIAN = "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"


def fill(name: str, data: bytes, target: str = "ru", mark_review: bool = False):
    """(output bytes, report) of a file read for `target` and filled by the fake service."""
    document = read(name, data, language=target)
    job = Job(document)
    outcomes = {(f, t): (f"[ru] {t}", "") for f, texts in job.requests.items() for t in texts}
    return document.render(job.finish(outcomes, mark_review), target), job.report


def msgfmt(path) -> subprocess.CompletedProcess:
    return subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(path)], capture_output=True, text=True)


# -- the table ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code, forms",
    [
        ("ru", {1: 0, 21: 0, 101: 0, 2: 1, 4: 1, 22: 1, 0: 2, 5: 2, 11: 2, 12: 2, 14: 2, 111: 2, 25: 2}),
        ("ru_RU", {1: 0, 3: 1, 7: 2}),
        ("pt-BR", {0: 0, 1: 0, 2: 1}),
        ("PT_br", {0: 0, 1: 0, 2: 1}),
        ("pt", {0: 1, 1: 0, 2: 1}),
        ("fr", {0: 0, 1: 0, 2: 1}),
        ("nl", {0: 1, 1: 0, 2: 1}),
        ("it", {0: 1, 1: 0, 2: 1}),
        ("en", {0: 1, 1: 0, 2: 1}),
    ],
)
def test_standard_plural_forms_pick_the_form_of_each_number(code, forms):
    rule = language(code).plural_forms.split("plural=", 1)[1].rstrip(";")
    plural = gettext.c2py(rule)
    assert {n: plural(n) for n in forms} == forms


def test_table_counts_and_unknown_languages():
    assert (language("ru").numerus, language("ru").quantities) == (3, ("one", "few", "many", "other"))
    assert all(language(code).numerus == 2 for code in ("es", "fr", "de", "it", "pt-BR", "nl"))
    assert language("pl") is None and language("") is None and set(LANGUAGES) >= {"ru", "pt_BR", "nl", "it"}


# -- gettext -----------------------------------------------------------------------------------

PO_HEADER = """msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\\n"
"Last-Translator: Anna <anna@example.org>\\n"
"Language-Team: Russian <ru@example.org>\\n"
"Language: ru\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"""
PO_ENTRIES = """
#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""

#, c-format
msgid "One folder"
msgid_plural "%d folders"
msgstr[0] ""
msgstr[1] ""

msgid "One day"
msgid_plural "{count} days"
msgstr[0] ""
msgstr[1] ""

#, python-format
msgid "%(n)d item"
msgid_plural "%(n)d items"
msgstr[0] ""
msgstr[1] ""

msgid "Open"
msgstr ""
"""
EXPECTED = {
    "%d file": {0: "[ru] %d file", 1: "[ru] %d files", 2: "[ru] %d files"},
    # form 0 serves 1, 21, 31...: "One folder" has no %d, so it gets the plural (msgfmt wants the %d)
    "One folder": {0: "[ru] %d folders", 1: "[ru] %d folders", 2: "[ru] %d folders"},
    "One day": {0: "[ru] {count} days", 1: "[ru] {count} days", 2: "[ru] {count} days"},
    "%(n)d item": {0: "[ru] %(n)d item", 1: "[ru] %(n)d items", 2: "[ru] %(n)d items"},
}


def _plural_entries(path) -> dict:
    return {e.msgid: e.msgstr_plural for e in polib.pofile(str(path)) if e.msgid_plural}


@needs_msgfmt
def test_russian_catalog_fills_every_form_and_passes_msgfmt(tmp_path):
    data = (PO_HEADER + f'"Plural-Forms: {RUSSIAN}\\n"\n' + PO_ENTRIES).encode()
    out, report = fill("ru.po", data)
    assert report.filled == 5 and not report.rejected and not report.skipped, report.lines(False)
    path = tmp_path / "ru.po"
    path.write_bytes(out)
    assert _plural_entries(path) == EXPECTED
    result = msgfmt(path)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    # the singular "One folder" in form 0 would break the program for 21, 31...: msgfmt says so
    forced = polib.pofile(str(path))
    next(e for e in forced if e.msgid == "One folder").msgstr_plural[0] = "[ru] One folder"
    forced.save(str(tmp_path / "forced.po"))
    assert "msgstr[0]" in msgfmt(tmp_path / "forced.po").stderr


@needs_msgfmt
@pytest.mark.parametrize(
    "header, target",
    [
        ("", "ru"),  # no Plural-Forms: the target's standard one
        ("", ""),  # no target named: the header's Language
        ('"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"\n', "ru"),  # a template's
    ],
)
def test_russian_catalog_without_plural_forms_gets_the_standard_one(tmp_path, header, target):
    out, report = fill("ru.po", (PO_HEADER + header + PO_ENTRIES).encode(), target)
    assert report.filled == 5 and not report.skipped, report.lines(False)
    text = out.decode()
    assert f'"Plural-Forms: {RUSSIAN}\\n"\n' in text and "INTEGER" not in text
    path = tmp_path / "ru.po"
    path.write_bytes(out)
    assert _plural_entries(path) == EXPECTED
    result = msgfmt(path)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_catalog_without_language_takes_the_callers_target():
    data = (PO_HEADER.replace('"Language: ru\\n"\n', "") + PO_ENTRIES).encode()
    out, report = fill("messages.po", data, "pt-BR")
    po = polib.pofile(out.decode())
    assert po.metadata["Language"] == "pt_BR" and po.metadata["Plural-Forms"] == "nplurals=2; plural=(n > 1);"
    assert {e.msgid: e.msgstr_plural for e in po if e.msgid_plural}["%d file"] == {
        0: "[ru] %d file",
        1: "[ru] %d files",
    }
    # two forms, form 0 for 0 and 1 only: the singular fits even without the number
    assert {e.msgid: e.msgstr_plural for e in po if e.msgid_plural}["One folder"][0] == "[ru] One folder"


def test_unknown_language_without_plural_forms_is_skipped_with_the_reason():
    _, report = fill("pl.po", (PO_HEADER + PO_ENTRIES).encode(), "pl")
    reasons = {reason for _, reason in report.skipped}
    assert reasons == {"plural entry: the catalog has no Plural-Forms header (no standard one is known for 'pl')"}
    assert report.filled == 1 and len(report.skipped) == 4
    _, report = fill("x.po", (PO_HEADER.replace('"Language: ru\\n"\n', "") + PO_ENTRIES).encode(), "")
    assert {r for _, r in report.skipped} == {
        "plural entry: the catalog has no Plural-Forms header (and no Language to take one for)"
    }


# -- Android -----------------------------------------------------------------------------------

ANDROID = b"""<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="open">Open</string>
    <plurals name="files">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
    <plurals name="songs">
        <item quantity="zero">No songs</item>
        <item quantity="one">One song</item>
        <item quantity="other">%d songs</item>
    </plurals>
</resources>
"""


def _items(out: bytes) -> dict:
    root = etree.fromstring(out, etree.XMLParser(resolve_entities=False, no_network=True))  # well formed
    return {p.get("name"): [(i.get("quantity"), i.text) for i in p.iter("item")] for p in root.iter("plurals")}


def test_android_plurals_for_russian_carry_one_few_many_other():
    from translate.storage import aresource

    out, report = fill("strings.xml", ANDROID)
    assert report.filled == 3 and not report.rejected, report.lines(False)
    assert _items(out) == {
        "files": [
            ("one", "[ru] %d file"),
            ("few", "[ru] %d files"),
            ("many", "[ru] %d files"),
            ("other", "[ru] %d files"),
        ],
        # "one" serves 21, 31... in Russian: "One song" would be wrong there, the plural fills it
        "songs": [
            ("zero", "[ru] No songs"),
            ("one", "[ru] %d songs"),
            ("few", "[ru] %d songs"),
            ("many", "[ru] %d songs"),
            ("other", "[ru] %d songs"),
        ],
    }
    block = (
        b'    <plurals name="files">\n'
        b'        <item quantity="one">[ru] %d file</item>\n'
        b'        <item quantity="few">[ru] %d files</item>\n'
        b'        <item quantity="many">[ru] %d files</item>\n'
        b'        <item quantity="other">[ru] %d files</item>\n'
        b"    </plurals>\n"
    )
    assert block in out  # each on a line of its own, at the items' indentation
    store = aresource.AndroidResourceFile.parsestring(out)
    store.settargetlanguage("ru")  # (its reader gives the target language's quantities)
    units = {u.getid(): u for u in store.units}
    assert store.get_plural_tags() == ["one", "few", "many"]  # whole numbers; "other" is Android's fallback
    assert [str(s) for s in units["files"].target.strings] == ["[ru] %d file", "[ru] %d files", "[ru] %d files"]
    assert read("strings.xml", out, language="ru").units  # and it reads again


@pytest.mark.parametrize("target", ["pt-BR", "nl", "it", ""])
def test_android_plurals_of_two_form_languages_keep_the_source_quantities(target):
    out, _ = fill("strings.xml", ANDROID, target)
    assert _items(out) == {
        "files": [("one", "[ru] %d file"), ("other", "[ru] %d files")],
        "songs": [("zero", "[ru] No songs"), ("one", "[ru] One song"), ("other", "[ru] %d songs")],
    }


def test_android_empty_items_of_a_russian_file_are_filled():
    data = ANDROID.replace(
        b'<item quantity="other">%d files</item>',
        b'<item quantity="few"></item>\n        <item quantity="other">%d files</item>',
    )
    out, _ = fill("strings.xml", data)
    assert _items(out)["files"] == [
        ("one", "[ru] %d file"),
        ("few", "[ru] %d files"),
        ("many", "[ru] %d files"),
        ("other", "[ru] %d files"),
    ]


# -- Qt ----------------------------------------------------------------------------------------

TS = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="LANG">
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n folder(s)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
"""


def _numerus(out: bytes) -> list:
    root = etree.fromstring(out, etree.XMLParser(resolve_entities=False, no_network=True))
    return [[f.text for f in m.iter("numerusform")] for m in root.iter("message")]


@pytest.mark.parametrize("file_language, target", [("ru_RU", ""), ("es", "ru"), ("ru", "ru")])
def test_qt_numerus_messages_get_three_forms_for_russian(tmp_path, file_language, target):
    out, report = fill("app_ru.ts", TS.replace(b"LANG", file_language.encode()), target, mark_review=True)
    assert report.filled == 2, report.lines(False)
    assert _numerus(out) == [["[ru] %n file(s)"] * 3, ["[ru] %n folder(s)"] * 3]
    block = "".join("            <numerusform>[ru] %n file(s)</numerusform>\n" for _ in range(3))
    assert f'<translation type="unfinished">\n{block}        </translation>'.encode() in out
    path = tmp_path / "app_ru.ts"
    path.write_bytes(out)
    if LRELEASE and file_language.startswith("ru"):  # lrelease knows Russian's three forms
        result = subprocess.run(
            [LRELEASE, str(path), "-qm", str(tmp_path / "app_ru.qm")], capture_output=True, text=True
        )
        assert result.returncode == 0 and "0 finished and 2 unfinished" in result.stdout, result.stdout + result.stderr
    if LCONVERT and file_language.startswith("ru") and shutil.which("msgfmt"):
        subprocess.run([LCONVERT, "-i", str(path), "-o", str(tmp_path / "app_ru.po")], check=True)
        po = polib.pofile(str(tmp_path / "app_ru.po"))
        assert po.metadata["Plural-Forms"] == RUSSIAN  # Qt's own Russian rule is the table's
        assert [e.msgstr_plural for e in po] == [{0: "[ru] %n file(s)", 1: "[ru] %n file(s)", 2: "[ru] %n file(s)"}] + [
            {i: "[ru] %n folder(s)" for i in range(3)}
        ]
        assert msgfmt(tmp_path / "app_ru.po").returncode == 0


@pytest.mark.parametrize("target", ["it", "pt-BR", "nl"])
def test_qt_numerus_messages_of_two_form_languages(target):
    out, _ = fill("app.ts", TS.replace(b"LANG", b""), target)
    assert _numerus(out) == [["[ru] %n file(s)"] * 2, ["[ru] %n folder(s)"] * 2]


def test_translate_file_command_gives_the_target_to_the_reader(fake, tmp_path, capsys):
    """`translate-file --to es` on a template without Plural-Forms nor Language (through gRPC): the
    target's standard rule is written and the plural entry filled."""
    from traductor_client.cli import main

    source = tmp_path / "messages.pot"
    source.write_text((PO_HEADER.replace('"Language: ru\\n"\n', "") + PO_ENTRIES), encoding="utf-8")
    assert main(["translate-file", str(source), "--to", "es", "--target", fake.address]) == 0
    po = polib.pofile(str(tmp_path / "messages.es.pot"))
    assert (po.metadata["Language"], po.metadata["Plural-Forms"]) == ("es", "nplurals=2; plural=(n != 1);")
    assert {e.msgid: e.msgstr_plural for e in po if e.msgid_plural}["%d file"] == {
        0: "[es] %d file",
        1: "[es] %d files",
    }
    assert "filled                  5" in capsys.readouterr().out
