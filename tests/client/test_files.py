"""The file-translation package, format by format: what is filled, what is kept byte for byte,
what is refused and why, and the output checked by the format's own tool (msgfmt, Qt's
lconvert/lrelease, translate-toolkit's reader, json.loads, aeidon). The files are written here
(file_samples.py); the service is the fake of file_samples.fake_translation, called directly
(the gRPC path is tested once, through the CLI, at the end)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from file_samples import SAMPLES, fake_translation, mutate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from traductor_client.files import FileError, Job, Limits, read

LCONVERT = shutil.which("lconvert") or next(
    (p for p in ("/usr/lib/qt6/bin/lconvert", "/usr/lib/qt5/bin/lconvert") if os.path.exists(p)), None
)
LRELEASE = shutil.which("lrelease") or next(
    (p for p in ("/usr/lib/qt6/bin/lrelease", "/usr/lib/qt5/bin/lrelease") if os.path.exists(p)), None
)
needs_qt = pytest.mark.skipif(
    LCONVERT is None or LRELEASE is None,
    reason="Qt's lconvert/lrelease are not installed (apt-get install qt6-l10n-tools)",
)
needs_msgfmt = pytest.mark.skipif(
    shutil.which("msgfmt") is None, reason="GNU msgfmt is not installed (apt-get install gettext)"
)


def fill(name: str, data: bytes, mark_review: bool = True):
    """(output bytes, report) of a file filled by the fake translator."""
    document = read(name, data)
    job = Job(document)
    outcomes = {(f, t): (fake_translation(t), "") for f, texts in job.requests.items() for t in texts}
    filled = job.finish(outcomes, mark_review)
    return document.render(filled), job.report


def reasons(items) -> dict:
    return {unit.where: reason for unit, reason in items}


def element_bytes(data: bytes, xpath: str, ns: dict) -> bytes:
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    (node,) = root.xpath(xpath, namespaces=ns)
    return etree.tostring(node)


X1 = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
X2 = {"x": "urn:oasis:names:tc:xliff:document:2.0"}


def test_xliff_1_2(tmp_path):
    from translate.storage import xliff

    out, report = fill("app.xlf", SAMPLES["app.xlf"])
    store = xliff.xlifffile.parsestring(out)  # translate-toolkit's reader: the round trip
    units = {u.xmlelement.get("id"): u for u in store.units}
    assert units["open"].target == "[es] Open file %s" and units["open"].getnotes() == "File menu"
    target = units["open"].getlanguageNode(lang=None, index=1)
    assert target.get("state") == "needs-review-translation" and units["open"].xmlelement.get("approved") is None
    assert units["amp"].target == "[es] Tom & Jerry <3"
    assert b"[es] Tom &amp; Jerry &lt;3" in out  # XML escaping respected
    for unchanged in ("done", "bold", "drop"):  # translated, inline markup, rejected: as they were
        xp = f"//x:trans-unit[@id='{unchanged}']"
        assert element_bytes(out, xp, X1) == element_bytes(SAMPLES["app.xlf"], xp, X1)
    assert report.filled == 2 and report.already_translated == 1
    assert "printf" in reasons(report.rejected)['id "drop"']
    assert "inline markup" in reasons(report.skipped)['id "bold"']
    assert out.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<xliff')  # the declaration as written


def test_xliff_2_0():
    from translate.storage import xliff2

    out, report = fill("app2.xliff", SAMPLES["app2.xliff"])
    store = xliff2.Xliff2File.parsestring(out)
    units = {u.getid(): u for u in store.units}
    assert units["hello"].target == "[es] Hello {name}" and b"<note>greeting</note>" in out
    segment = units["hello"].xmlelement
    assert segment.get("state") == "translated" and segment.get("subState") == "traductor:machine-translation"
    xp = "//x:unit[@id='bye']"
    assert element_bytes(out, xp, X2) == element_bytes(SAMPLES["app2.xliff"], xp, X2)
    assert "braces: {count} missing" in reasons(report.rejected)['id "drop"']


@needs_qt
@needs_msgfmt
def test_qt_ts_checked_by_lconvert_lrelease_and_msgfmt(tmp_path):
    out, report = fill("app_es.ts", SAMPLES["app_es.ts"])
    path = tmp_path / "app_es.ts"
    path.write_bytes(out)
    release = subprocess.run([LRELEASE, str(path), "-qm", str(tmp_path / "app_es.qm")], capture_output=True, text=True)
    assert release.returncode == 0, release.stderr
    assert "1 finished and 2 unfinished" in release.stdout  # Done; the two filled stay unfinished
    subprocess.run([LCONVERT, "-i", str(path), "-o", str(tmp_path / "app_es.po")], check=True)
    check = subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(tmp_path / "app_es.po")], capture_output=True)
    assert check.returncode == 0, check.stderr
    po = (tmp_path / "app_es.po").read_text()
    assert 'msgstr "[es] Open %1"' in po and 'msgstr[1] "[es] %n file(s)"' in po and 'msgstr "Hecho"' in po
    assert b'<translation type="unfinished">[es] Open %1</translation>' in out
    assert "qt: %1 missing" in next(iter(reasons(report.rejected).values()))
    assert report.filled == 2 and report.already_translated == 1


def test_android_strings_escaping_and_untranslatable():
    from translate.storage import aresource

    out, report = fill("strings.xml", SAMPLES["strings.xml"])
    assert b'<string name="app_name" translatable="false">Demo</string>' in out
    assert b'<string name="hello">[es] Don\\\'t open %1$s\\nnow &amp; then</string>' in out
    assert b"<!-- strings of the demo app -->" in out and b"<!-- shown in the toolbar -->" in out
    store = aresource.AndroidResourceFile.parsestring(out)
    units = {u.getid(): u for u in store.units}
    assert units["hello"].target == "[es] Don't open %1$s\nnow & then"
    assert [str(s) for s in units["files"].target.strings] == ["[es] %d file", "[es] %d files"]
    assert units["drop"].target == "DROP %1$d items"  # rejected: the original stays
    assert report.not_translatable == 1 and report.filled == 3 and len(report.rejected) == 1


def test_json_i18next_keys_escapes_and_icu():
    out, report = fill("en.json", SAMPLES["en.json"])
    data, before = json.loads(out), json.loads(SAMPLES["en.json"])
    assert list(data) == list(before) and data["nested"]["count"] == 3
    assert data["greeting"] == "[es] Hello {{name}}" and data["nested"]["bye"] == "[es] Bye, see $t(greeting)"
    assert data["quote"] == '[es] Say "hi"\nthen \\ go'
    assert data["icu"] == before["icu"] and "ICU" in reasons(report.skipped)['key "icu"']
    assert data["drop"] == before["drop"] and "i18next: {{name}} missing" in reasons(report.rejected)['key "drop"']


def test_srt_numbers_timings_and_tags_kept():
    from translate.storage import subtitles

    out, report = fill("movie.srt", SAMPLES["movie.srt"])
    lines, before = out.decode().splitlines(), SAMPLES["movie.srt"].decode().splitlines()
    assert [line for line in lines if "-->" in line or line.isdigit()] == [
        line for line in before if "-->" in line or line.isdigit()
    ]
    assert "[es] The <i>second</i> line" in lines
    store = subtitles.SubRipFile()
    store.parse(out)
    assert [u.source for u in store.units] == ["[es] Hello world.", "[es] The <i>second</i> line\ngoes on here."]
    assert report.filled == 2


def test_txt_html_markdown_keep_their_structure():
    out, _ = fill("notes.txt", SAMPLES["notes.txt"])
    assert out == b"[es] Save the file first.\nThen close it.\n\n[es] The end.\n"
    out, _ = fill("page.html", SAMPLES["page.html"])
    assert b"<title>[es] Demo page</title>" in out and b"<p>[es] Save <b>the file</b> &amp; quit.</p>" in out
    assert b'<script>var x = "keep me";</script>' in out
    assert b'<p translate="no">Keep this name</p>' in out  # HTML's translate="no" honoured
    out, report = fill("README.md", SAMPLES["README.md"])
    text = out.decode()
    assert "# [es] Title" in text and "[a link](https://example.org)" in text and "`code`" in text
    assert "```\ncode block kept\n```" in text and "- [es] first item" in text


# -- refusals and attacks ---------------------------------------------------------------------------
BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<resources><string name="a">&lol3;</string></resources>
"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<xliff version="1.2"><file><body><trans-unit id="a"><source>&secret;</source></trans-unit></body></file></xliff>
"""


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("bomb.xml", BILLION_LAUGHS, "entity declarations are not accepted"),
        ("bomb.ts", BILLION_LAUGHS.replace(b"resources", b"TS"), "entity declarations are not accepted"),
        ("secret.xlf", EXTERNAL, "entity declarations are not accepted"),
        ("broken.xlf", b"<xliff><file>", "not well-formed XML"),
        ("notes.xml", b"<notes><note>hi</note></notes>", "not an Android resource file"),
        ("bad.json", b'{"a": ', "not valid JSON"),
        ("bad.po", b"\x00\x01binary", "not a PO file"),
        ("bad.srt", b"just some words", "not a SubRip file"),
        ("bad.txt", b"\xff\xfe\xfa", "not UTF-8 text"),
        ("archive.zip", b"PK\x03\x04", ".zip is not a supported file format"),
    ],
)
def test_unreadable_files_are_refused_with_the_problem_named(name, data, words):
    with pytest.raises(FileError) as error:
        read(name, data)
    assert words in str(error.value) and str(error.value).startswith(name)


def test_limits_name_their_flag():
    with pytest.raises(FileError, match=r"more than the limit of 100 \(--max-file-bytes\)"):
        read("en.json", SAMPLES["en.json"], Limits(max_bytes=100))
    with pytest.raises(FileError, match=r"7 units, more than the limit of 5 \(--max-file-units\)"):
        read("en.json", SAMPLES["en.json"], Limits(max_units=5))


@pytest.mark.parametrize("name", sorted(SAMPLES))
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_files_are_filled_or_refused_never_crash(name, data):
    """Mutated real files (bytes replaced, cut short): each is either filled (and its output
    reads again) or refused with a FileError."""
    mutated = mutate(SAMPLES[name], data)
    try:
        out, _ = fill(name, mutated)
    except FileError:
        return
    read(name, out)  # what it wrote reads back


# -- the command, through gRPC ----------------------------------------------------------------------
def test_translate_file_command(fake, tmp_path, capsys):
    from traductor_client.cli import main

    source = tmp_path / "en.json"
    source.write_bytes(SAMPLES["en.json"])
    status = main(["translate-file", str(source), "--to", "es", "--target", fake.address])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    data = json.loads((tmp_path / "en.es.json").read_text())
    assert data["greeting"] == "[es] Hello {{name}}" and source.read_bytes() == SAMPLES["en.json"]
    assert "filled                  5" in captured.out and 'key "drop"' in captured.out
    assert main(["translate-file", str(source), "--to", "fr", "--target", fake.address]) == 2
    assert "the server translates into es, not fr" in capsys.readouterr().err
    assert main(["translate-file", str(tmp_path / "missing.json"), "--target", fake.address]) == 2


def test_translate_file_names_the_target_in_a_catalog_without_language(fake, tmp_path, capsys):
    from traductor_client.cli import main

    source = tmp_path / "messages.pot"
    source.write_bytes(SAMPLES["messages.po"])
    assert main(["translate-file", str(source), "--to", "es", "--target", fake.address]) == 0
    out = (tmp_path / "messages.es.pot").read_text()
    assert '"Language: es\\n"' in out and 'msgstr "[es] Open %s"' in out


def test_translate_file_sends_html_units_as_html(fake, tmp_path, capsys):
    from traductor_client.cli import main

    source = tmp_path / "movie.srt"
    source.write_bytes(SAMPLES["movie.srt"])
    out = tmp_path / "movie.es.srt"
    assert main(["translate-file", str(source), "-o", str(out), "--target", fake.address]) == 0
    assert "[es] Hello world." in out.read_text() and fake.formats == {1}


@pytest.mark.parametrize(
    "source, good, bad, words",
    [
        ("cannot open %s: %d", "no se puede abrir %s: %d", "no se puede abrir %d: %s", "printf: argument 1"),
        ("Can't open %1$s", "No se puede abrir %1$s", "No se puede abrir", "printf: 1 argument"),
        ("%(count)d files", "%(count)d archivos", "%(cuenta)d archivos", "python"),
        ("Open %1 in %2", "Abrir %2 en %1", "Abrir %1", "qt: %2 missing"),
        ("Hello {name}", "Hola {name}", "Hola {nombre}", "braces: {name} missing, {nombre} added"),
        ("Hi {{name}}, see $t(help)", "Hola {{name}}, ver $t(help)", "Hola {{nombre}}, ver $t(help)", "i18next"),
        ("Save <b>now</b>", "Guardar <b>ya</b>", "Guardar ya", "tags: </b> <b> missing"),
        ("Run `make install`", "Ejecutar `make install`", "Ejecutar `hacer instalar`", "code"),
    ],
)
def test_placeholder_checks(source, good, bad, words):
    from traductor_client.files.placeholders import problem

    assert problem(source, good, tags=True) is None
    reason = problem(source, bad, tags=True)
    assert reason is not None and words in reason


def test_icu_plural_is_never_sent():
    from traductor_client.files.placeholders import unsafe

    assert "ICU" in unsafe("{count, plural, one {# file} other {# files}}")
    assert unsafe("{gender, select, male {he} other {they}}") and not unsafe("Hello {name}")


HOSTILE_TEXTS = [
    "{{" + " " * 20_000,
    "{{-" + "a " * 10_000,
    "$t(" * 6_000,
    "{" + "a" * 20_000,
    "{ a" + " " * 20_000 + ",",
    "%" * 20_000,
    "%(" + "a" * 20_000,
    "%L" * 10_000,
    "<a" + " x" * 10_000,
    "`" * 20_000,
]


@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=lambda t: repr(t[:6]))
def test_placeholder_checks_take_linear_time_on_hostile_texts(text):
    """A text of 20,000 characters (the service's --max-input-chars) is checked in well under a
    second, whatever it holds (a backtracking pattern once took minutes on 5,000 spaces)."""
    import time

    from traductor_client.files.placeholders import problem, unsafe

    start = time.perf_counter()
    unsafe(text)
    problem(text, "x", tags=True)
    problem(text, text, tags=True)
    assert time.perf_counter() - start < 1.0


def test_xliff_translate_no_and_seg_source():
    """translate="no" on a unit or on its <group> (XLIFF 1.2) or <file> (2.0) is left alone; a
    new <target> goes after <seg-source>, where the 1.2 schema wants it."""
    data = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="a" source-language="en" target-language="es" datatype="plaintext"><body>
    <trans-unit id="brand" translate="no"><source>Traductor</source></trans-unit>
    <group id="g" translate="no"><trans-unit id="inside"><source>Kept here</source></trans-unit></group>
    <trans-unit id="seg"><source>Hello.</source>
      <seg-source><mrk mtype="seg" mid="1">Hello.</mrk></seg-source></trans-unit>
  </body></file>
</xliff>
"""
    out, report = fill("a.xlf", data)
    for unchanged in ("brand", "inside"):
        xp = f"//x:trans-unit[@id='{unchanged}']"
        assert element_bytes(out, xp, X1) == element_bytes(data, xp, X1)
    root = etree.fromstring(out)
    (seg,) = root.xpath("//x:trans-unit[@id='seg']", namespaces=X1)
    assert [etree.QName(child).localname for child in seg] == ["source", "seg-source", "target"]
    assert report.not_translatable == 2 and report.filled == 1
    data2 = SAMPLES["app2.xliff"].replace(b'<unit id="hello">', b'<unit id="hello" translate="no">')
    out, report = fill("app2.xliff", data2)
    xp = "//x:unit[@id='hello']"
    assert element_bytes(out, xp, X2) == element_bytes(data2, xp, X2) and report.not_translatable == 1


ANDROID_MORE = b"""<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <string name="welcome">Welcome, <xliff:g id="user" example="Bob">%1$s</xliff:g>!</string>
    <string name="alias">@string/welcome</string>
    <string name="color">?android:attr/textColorPrimary</string>
    <string name="bold">Press <b>OK</b> now</string>
    <string-array name="planets">
        <item>Mercury\\'s moon</item>
        <item>@string/alias</item>
        <item>Venus &amp; <b>Mars</b></item>
    </string-array>
    <string-array name="codes" translatable="false"><item>ES</item></string-array>
</resources>
"""


def test_android_references_markup_arrays_and_line_breaks():
    from translate.storage import aresource

    out, report = fill("strings.xml", ANDROID_MORE)
    lines, before = out.decode().splitlines(), ANDROID_MORE.decode().splitlines()
    assert len(lines) == len(before)  # every element on its own line, as it was
    for kept in ("alias", "color", "codes"):  # references and translatable="false": untouched
        assert next(line for line in before if f'"{kept}"' in line) in lines
    # inline markup: sent as HTML, tags kept and checked
    assert '    <string name="bold">[es] Press <b>OK</b> now</string>' in lines
    assert '<xliff:g id="user" example="Bob">%1$s</xliff:g>' in lines[2]
    assert "        <item>[es] Mercury\\'s moon</item>" in lines and "        <item>@string/alias</item>" in lines
    assert "inline markup" in reasons(report.skipped)['name "planets" item 3']
    assert report.filled == 3 and report.not_translatable == 4
    store = aresource.AndroidResourceFile.parsestring(out)  # still Android resources
    assert {u.getid() for u in store.units} == {"welcome", "alias", "color", "bold"}


def test_html_nested_too_deep_is_refused_at_once():
    """translate-toolkit's HTML reader slows down with the depth (100,000 nested <div> did not end
    in 10 minutes): deeper than 256 is refused, naming the line."""
    import time

    start = time.perf_counter()
    with pytest.raises(FileError, match=r"deep.html: line 1: elements nested more than 256 deep"):
        read("deep.html", b"<div>" * 100_000 + b"x")
    assert time.perf_counter() - start < 5
    read("ok.html", b"<div>" * 200 + b"<p>x</p>" + b"</div>" * 200)


def test_xml_units_are_counted_before_the_slow_reader():
    """An XML file over the units limit is refused from the fast safe parse (30,000 Qt messages,
    which translate-toolkit reads in over a minute)."""
    import time

    message = b'<message><source>x</source><translation type="unfinished"/></message>'
    ts = b'<TS version="2.1"><context><name>a</name>' + message * 30_000 + b"</context></TS>"
    start = time.perf_counter()
    with pytest.raises(FileError, match=r"30000 units, more than the limit of 5000 \(--max-file-units\)"):
        read("big.ts", ts, Limits(max_units=5000))
    assert time.perf_counter() - start < 10
    strings = b'<resources><string name="a">x</string><string-array name="b"><item>1</item><item>2</item>'
    with pytest.raises(FileError, match="3 units, more than the limit of 2"):
        read("strings.xml", strings + b"</string-array></resources>", Limits(max_units=2))


@pytest.mark.parametrize(
    "data",
    [
        b'{\n  "title": "Hello {{name}}",\n  "menu": {\n    "open": "Open",\n    "n": 3\n  }\n}\n',
        b'{\n\t"title": "Hello"\n}',
        b'{"title":"Hello","menu":{"open":"Open"}}',
        b'{"title": "Hello", "menu": {"open": "Open"}}\n',
    ],
    ids=["two spaces", "tab, no final newline", "compact", "one line"],
)
def test_json_keeps_its_layout(data):
    """A JSON file comes back laid out as it was (indentation, separators, final newline), so
    only the translated values differ, line for line."""
    out, report = fill("en.json", data)
    assert report.filled >= 1
    expected = data.replace(b'"Hello', b'"[es] Hello').replace(b'"Open"', b'"[es] Open"')
    assert out == expected


@needs_msgfmt
def test_po_sample_checked_by_msgfmt(tmp_path):
    """The gettext sample of the fuzz tests, filled: msgfmt --check accepts it."""
    out, report = fill("messages.po", SAMPLES["messages.po"])
    (tmp_path / "out.po").write_bytes(out)
    check = subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(tmp_path / "out.po")], capture_output=True)
    assert check.returncode == 0, check.stderr
    assert report.filled == 2 and report.already_translated == 1 and len(report.rejected) == 1
