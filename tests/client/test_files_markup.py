"""Inline markup in every format (issue 37): what the file layer sends, what it writes, and what
it refuses to write. A unit whose translation would damage its markup stays as it was and is
reported rejected with the reason; the output is checked by the format's own reader (and
Qt's lrelease, msgfmt where installed). The "service" here is a function of (format, text)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from file_samples import fake_translation

from traductor_client.files import FileError, Job, read


def fill(name: str, data: bytes, translate=None):
    """(output bytes, report, the requests sent) of a file filled by `translate(format, text)`
    (default: the tests' fake, "[es] TEXT", with HTML's "&" escaped as the service does)."""
    translate = translate or (lambda fmt, text: fake_translation(text))
    document = read(name, data)
    job = Job(document)
    outcomes = {(f, t): (translate(f, t), "") for f, texts in job.requests.items() for t in texts}
    filled = job.finish(outcomes, True)
    return document.render(filled), job.report, job.requests


def reasons(items) -> dict:
    return {unit.where: reason for unit, reason in items}


ANDROID = b"""<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <string name="welcome">Hello <xliff:g id="user">%1$s</xliff:g>, welcome back.</string>
    <string name="bold">Save the <b>file</b> now.</string>
    <string name="cdata"><![CDATA[Open the <b>file</b> & menu.]]></string>
    <string name="plain">Tom &amp; Jerry</string>
</resources>
"""
WELCOME = 'Hello <xliff:g id="user">%1$s</xliff:g>, welcome back.'


def test_android_xliff_g_is_kept_whole_and_a_damaged_translation_is_rejected():
    from translate.storage import aresource

    out, report, requests = fill("strings.xml", ANDROID)
    assert WELCOME in requests["html"] and "Open the <b>file</b> & menu." in requests["html"]
    assert "Tom & Jerry" in requests["text"]
    assert f'<string name="welcome">[es] {WELCOME}</string>'.encode() in out
    assert b"<![CDATA[[es] Open the <b>file</b> & menu.]]>" in out  # raw text in CDATA: "&" as it was
    assert report.filled == 4 and not report.rejected
    units = {u.getid(): u for u in aresource.AndroidResourceFile.parsestring(out).units}
    assert units["welcome"].target == f"[es] {WELCOME}"

    # what the service answered before issue 37: the tag escaped into the text, an empty one appended
    broken = 'Hello &lt;xliff: id="user"%1$s&lt;/xliff:>, hemos de vuelta.<xliff:g id="user"></xliff:g>'
    out, report, _ = fill("strings.xml", ANDROID, lambda fmt, text: broken if text == WELCOME else text)
    assert report.filled == 3 and "kept markup changed" in reasons(report.rejected)['name "welcome"']
    assert WELCOME.encode() in out  # untouched


def test_android_a_translation_its_writer_cannot_keep_is_put_back_and_rejected():
    """Tags right, but not XML (an HTML entity): translate-toolkit would escape the whole string
    into text; the string is read back, found changed, restored and reported."""
    bad = "Guarda el <b>archivo</b>&nbsp;ya."
    out, report, _ = fill("strings.xml", ANDROID, lambda fmt, text: bad if "Save the" in text else text)
    assert b'<string name="bold">Save the <b>file</b> now.</string>' in out
    assert "writer did not keep it: its markup became text" in reasons(report.rejected)['name "bold"']
    assert report.filled == 3


def test_android_markup_lost_in_cdata_is_rejected():
    out, report, _ = fill("strings.xml", ANDROID, lambda fmt, text: text.replace("<b>", "").replace("</b>", ""))
    assert set(reasons(report.rejected)) == {'name "bold"', 'name "cdata"'}
    assert b"<![CDATA[Open the <b>file</b> & menu.]]>" in out


XLIFF = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="es" datatype="html">
    <body>
      <trans-unit id="g"><source>Save <g id="1">now</g></source></trans-unit>
      <trans-unit id="ph"><source>Hello <ph id="1">{0}</ph> there</source></trans-unit>
      <trans-unit id="x"><source>Line<x id="1"/>break</source></trans-unit>
      <trans-unit id="escaped"><source>Press &lt;b&gt;OK&lt;/b&gt; now</source></trans-unit>
    </body>
  </file>
</xliff>
"""


def test_xliff_inline_elements_are_skipped_and_escaped_markup_is_checked():
    from translate.storage import xliff

    drop_tags = lambda fmt, text: text.replace("<b>", "").replace("</b>", "")  # noqa: E731
    out, report, requests = fill("app.xlf", XLIFF, drop_tags)
    assert requests == {"html": ["Press <b>OK</b> now"]}  # the <g>, <ph>, <x/> units are not sent
    assert set(reasons(report.skipped)) == {'id "g"', 'id "ph"', 'id "x"'}
    assert "tags: </b> <b> missing" in reasons(report.rejected)['id "escaped"']
    out, report, _ = fill("app.xlf", XLIFF)
    units = {u.xmlelement.get("id"): u for u in xliff.xlifffile.parsestring(out).units}
    assert units["escaped"].target == "[es] Press <b>OK</b> now" and report.filled == 1


RICH = "<html><head/><body><p>Read the <b>manual</b> first.</p></body></html>"
RICH_TS = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>About</name>
    <message>
        <source>%s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
""" % RICH.replace("<", "&lt;").replace(">", "&gt;").encode()


def test_qt_rich_text_goes_as_html_and_its_tags_are_checked(tmp_path):
    from translate.storage import ts2

    out, report, requests = fill("about.ts", RICH_TS)
    assert requests == {"html": [RICH]} and report.filled == 1
    assert ts2.tsfile.parsestring(out).units[0].target == "[es] " + RICH
    lrelease = shutil.which("lrelease") or "/usr/lib/qt6/bin/lrelease"
    if os.path.exists(lrelease):
        (tmp_path / "about.ts").write_bytes(out)
        run = subprocess.run([lrelease, str(tmp_path / "about.ts"), "-qm", os.devnull], capture_output=True)
        assert run.returncode == 0, run.stderr
    moved = "<html><head/><body><p>Lee el manual <b></b>primero.</p></body></html>"
    out, report, _ = fill("about.ts", RICH_TS, lambda fmt, text: moved.replace("<b></b>", "<b>") + "</b>")
    assert "not in the source's order" in reasons(report.rejected)["message 1"] and report.filled == 0


def test_json_strings_with_tags_go_as_html_and_i18next_numbered_tags_are_checked():
    data = b'{"a": "Tom & <b>Jerry</b>", "trans": "Click <1>here</1> now", "plain": "A < B"}\n'
    escaped = lambda fmt, text: fake_translation(text).replace("&", "&amp;") if fmt == "html" else text  # noqa: E731
    out, report, requests = fill("en.json", data, escaped)
    assert requests["html"] == ["Tom & <b>Jerry</b>"]
    assert b'"a": "[es] Tom & <b>Jerry</b>"' in out  # the service's &amp; back as the file's "&"
    out, report, _ = fill("en.json", data, lambda fmt, text: text.replace("<1>", "").replace("</1>", ""))
    assert "i18next: </1> <1> missing" in reasons(report.rejected)['key "trans"']


HTML = b"""<!DOCTYPE html>
<html lang="en"><body>
<p>Run <code>make install</code> as root.</p>
<pre>make install</pre>
<div><pre>git init</pre> then commit.</div>
<p>Open <span translate="no">Acme Cloud</span> now.</p>
</body></html>
"""


def test_html_pre_and_lang_are_not_units_and_code_comes_back_verbatim():
    """<pre> is kept as /translate with format=html keeps it (one rule: traductor_client.markup)."""
    out, report, requests = fill("page.html", HTML)
    sent = requests["html"]
    assert "make install" not in sent and "git init" not in sent and "en" not in sent and "Acme Cloud" not in sent
    assert "Run <code>make install</code> as root." in sent
    assert b"<pre>make install</pre>" in out and b"<pre>git init</pre>" in out and b'<html lang="en">' in out
    rewritten = lambda fmt, text: text.replace("<code>make install</code>", "<code>generando</code>")  # noqa: E731
    out, report, _ = fill("page.html", HTML, rewritten)
    assert "kept markup changed" in reasons(report.rejected)["block 1"]
    assert b"<p>Run <code>make install</code> as root.</p>" in out


MARKDOWN = b"- **Encrypted** storage with a password\n- Run `make install` as root, then open [the settings](s.md).\n"


def test_markdown_emphasis_code_and_links_go_as_html_and_come_back():
    out, report, requests = fill("README.md", MARKDOWN)
    assert requests["html"] == [
        "<b>Encrypted</b> storage with a password",
        "Run <code>`make install`</code> as root, then open <a>the settings</a>.",
    ]
    assert out == b"- [es] **Encrypted** storage with a password\n" + (
        b"- [es] Run `make install` as root, then open [the settings](s.md).\n"
    )
    assert report.filled == 2


def test_markdown_broken_emphasis_and_rewritten_code_are_rejected():
    """What the model gave as plain text (issue 37): "** Almacenamiento cifrado*", and a code
    span rewritten; either way the item stays as it was and the report says why."""
    answers = {
        "<b>Encrypted</b> storage with a password": "<b></b>** Almacenamiento cifrado* con una contraseña",
        "Run <code>`make install`</code> as root, then open <a>the settings</a>.": (
            "Ejecuta <code>`generando`</code> como root y abre <a>la configuración</a>."
        ),
    }
    out, report, _ = fill("README.md", MARKDOWN, lambda fmt, text: answers[text])
    assert out == MARKDOWN and report.filled == 0
    why = reasons(report.rejected)
    assert "Markdown structure changed" in why["line 1"] and "code: `make install` missing" in why["line 2"]


@pytest.mark.parametrize(
    "data, message",
    [
        (b'msgid "hello\nmsgstr ""\n', "line 1: not a PO file (the string is not closed)"),
        (b'msgid "a"\nmsgstr "" junk\n', "line 2: not a PO file (text after the string)"),
        (b'msgid "a"\n', "not a PO file (the last entry ends after its msgid, without msgstr)"),
        (b'msgid "a"\nmsgstr "\\q"\n', "line 2: not a PO file (an escape sequence msgfmt does not know)"),
        (b'msgid "a"\nmsgstr ""\nmsgid "a"\nmsgstr "b"\n', "line 3: not a PO file (a second definition"),
        (
            b'msgid "a"\nmsgstr ""\n\nmsgctxt "m"\nmsgid "a"\nmsgstr ""\n\n#: x.c:1\nmsgctxt "m"\n'
            b'msgid "a"\nmsgstr ""\n',
            "line 10: not a PO file (a second definition of msgid 'a', first defined at line 5)",
        ),
        (b'msgid "a"\nmsgstr[0] ""\n', "line 2: not a PO file (msgstr[0] after msgid)"),
    ],
    ids=["unterminated", "junk after", "no msgstr", "bad escape", "duplicate", "duplicate in a context", "plural"],
)
def test_a_malformed_po_is_not_a_po_file_as_msgfmt_says(tmp_path, data, message):
    with pytest.raises(FileError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        read("bad.po", data)
    if shutil.which("msgfmt"):  # msgfmt refuses each of them too
        (tmp_path / "bad.po").write_bytes(data)
        assert subprocess.run(["msgfmt", "-o", os.devnull, str(tmp_path / "bad.po")], capture_output=True).returncode


def test_a_text_the_service_left_partly_untranslated_is_not_written():
    """finish_reason "untranslated" (a sentence came back with nothing: the service kept its
    source): the unit is skipped with the reason, never filled half in English."""
    from traductor_client.files import outcome

    out, report, _ = fill("notes.txt", b"Save it. Then quit.\n")
    assert report.filled == 1
    document = read("notes.txt", b"Save it. Then quit.\n")
    job = Job(document)
    filled = job.finish({("text", "Save it. Then quit."): outcome("Guárdalo. Then quit.", "untranslated")})
    assert filled == [] and "could not translate part of it" in reasons(job.report.skipped)["line 1"]


def test_html_a_block_holding_only_code_is_no_unit():
    """translate-toolkit took the text of <p><code>make install</code></p> without its tags, and
    it was translated (found by test_files_fuzz.py)."""
    out, report, requests = fill("page.html", b"<p><code>make install</code></p>\n<p>Run <code>ls</code></p>\n")
    assert (
        requests == {"html": ["Run"]} and out == b"<p><code>make install</code></p>\n<p>[es] Run <code>ls</code></p>\n"
    )


def test_markdown_an_exclamation_mark_before_a_link_does_not_make_it_an_image():
    """A translation ending a word with "!" right before a link: "![" would read as an image (found
    by test_files_fuzz.py); the "!" gets a backslash, or the unit is rejected."""
    data = b"Tom & Jerry [quit](s.md)\n"
    out, report, _ = fill("README.md", data, lambda fmt, text: "&amp;quit!<a> Jerry </a> Tom")
    assert report.filled == 1 and out == b"&quit\\![ Jerry ](s.md) Tom\n"
