"""Round trips (issue 45, item 3): a localizer reviews the diff between a file and its
translation, so the output must differ from the input in the translated texts and nothing else:
whitespace, indentation, escapes, quotes, table padding, order and comments kept, in every
format.

The "service" maps every lowercase word of three letters or more outside markup and
placeholders onto Cyrillic letters (``cyrillic``), which no sample holds: mapping them back
(``latin``) must give the input byte for byte for a monolingual format (translated whole); for a
bilingual one, taking out what the format adds around a translation (the new <target>, the
review mark, the .po header's dates) must. The outputs are also read by the formats' own tools
where installed (msgfmt, Qt's lconvert)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from traductor_client.files import Job, read
from traductor_client.files.toolkit import changed

_SKIP = re.compile(r"<[^>]*>|&#?\w+;|%[\w$]+|\{[^}]*\}|`[^`]*`|\\.")
_WORD = re.compile(r"(?<![\w\\])[a-z]{3,}(?!\w)")
_LATIN = {0x430 + i: 0x61 + i for i in range(26)}


def cyrillic(text: str) -> str:
    """The fake translation: lowercase words outside markup and placeholders in Cyrillic."""
    out, at = [], 0
    for match in _SKIP.finditer(text):
        out += [_WORD.sub(lambda m: m.group().translate({v: k for k, v in _LATIN.items()}), text[at : match.start()])]
        out.append(match.group())
        at = match.end()
    out.append(_WORD.sub(lambda m: m.group().translate({v: k for k, v in _LATIN.items()}), text[at:]))
    return "".join(out)


def latin(data: bytes) -> bytes:
    return data.decode("utf-8").translate(_LATIN).encode("utf-8")


def fill(name: str, data: bytes, translate=cyrillic, language: str = ""):
    document = read(name, data)
    job = Job(document)
    outcomes = {(f, t): (translate(t), "") for f, texts in job.requests.items() for t in texts}
    filled = job.finish(outcomes, True)
    return document.render(filled, language), job.report


ANDROID = """<?xml version='1.0' encoding='utf-8'?>
<!-- the app's strings -->
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2" xmlns:tools='http://schemas.android.com/tools'>
    <string name="app" translatable="false">Demo</string>
    <string name='greeting'>Hello <xliff:g id="user">%1$s</xliff:g>, welcome back<b>?</b> really?</string>
    <string name="dots">Loading the data… &amp; more</string>
    <string name="quote">Don\\'t open \\"this\\" file</string>

    <!-- shown when many -->
    <plurals name="files">
        <item quantity="one">%d file selected</item>
        <item quantity="other">%d files selected</item>
    </plurals>
    <string-array name="planets">
        <item>the red planet</item>
        <item>@string/app</item>
    </string-array>
    <string name="spaced">
        surrounded by spaces Android drops
    </string>
</resources>
"""

JSON = """{
  "title": "Welcome home",
  "menu": {"open": "open the file", "count": 3, "items": ["first item", "second item"]},
  "empty": "",
  "flag": true,
    "odd": "badly indented line"
}"""

SRT = (
    "1\r\n00:00:01,000 --> 00:00:02,500\r\nhello there world\r\n\r\n"
    "2\r\n00:00:03,000 --> 00:00:04,200\r\nthe <i>second</i> line\r\ngoes on here\r\n\r\n\r\n"
)

TEXT = "first paragraph here\nwrapped onto two lines\n   \nsecond paragraph\n\n\n  indented third one  \n"

HTML = """<!DOCTYPE html>
<HTML>
<head>
  <meta charset='utf-8'>
  <meta name="description" content="a page about things">
  <TITLE>demo page</TITLE>
</head>
<body>
  <!-- a comment -->
  <DIV CLASS='box' hidden data-x=a>
    <p>some words here &amp; there<br/>after the break</p>
    <img src=cat.png alt='picture of the cat'>
    <button aria-label="close the dialog" title='close this'>X</button>
    <input type=submit value=send>
    <input type="text" value="typed words" placeholder="your name">
  </DIV>
  <pre>kept   as   is</pre>
</body>
</HTML>
"""

MARKDOWN = """Title here
==========

Some *emphasis* with `code` and [a link](https://example.org "the title"), on one line.
{whitespace-only line}
* first item
* second _item_ continued here

| name | value |
|------|------:|
| alpha | one thing |
| b | two words |

> quoted text on one line

Line with hard break{two spaces}
next line.

See [the docs][ref] for more.

[ref]: https://example.org/ref

    indented code kept

Final line.
""".format(**{"whitespace-only line": "   ", "two spaces": "  "})


@pytest.mark.parametrize(
    "name, text",
    [
        ("strings.xml", ANDROID),
        ("en.json", JSON),
        ("movie.srt", SRT),
        ("notes.txt", TEXT),
        ("page.html", HTML),
        ("README.md", MARKDOWN),
    ],
)
def test_a_monolingual_file_changes_in_its_translated_texts_only(name, text):
    data = text.encode("utf-8")
    out, report = fill(name, data)
    assert report.filled >= 2 and not report.rejected, report.lines(True)
    assert out != data and latin(out) == data  # every byte outside the translations as it was
    read(name, out)  # and it reads again


def test_android_plurals_arrays_and_escapes_as_read_by_translate_toolkit():
    from translate.storage import aresource

    out, _ = fill("strings.xml", ANDROID.encode())
    units = {u.getid(): u for u in aresource.AndroidResourceFile.parsestring(out).units}
    assert [str(s) for s in units["files"].target.strings] == [
        cyrillic("%d file selected"),
        cyrillic("%d files selected"),
    ]
    assert units["quote"].target == cyrillic('Don\'t open "this" file')
    assert cyrillic("back<b>?</b> really?").encode() in out  # no "\\?" after the tag


FRENCH = {"Are you sure?": "Êtes-vous sûr\u00a0?", "Name: <b>%1$s</b>!": "Nom\u202f: <b>%1$s</b>\u00a0!"}


def test_android_keeps_no_break_spaces_before_french_punctuation():
    """issue 45: translate-toolkit's reader collapsed U+00A0 and U+202F into spaces, so the read
    back differed from what was written and the French string was rejected."""
    from translate.storage import aresource

    data = (
        b'<resources>\n    <string name="sure">Are you sure?</string>\n'
        b'    <string name="name">Name: <b>%1$s</b>!</string>\n</resources>\n'
    )
    out, report = fill("strings.xml", data, FRENCH.get)
    assert report.filled == 2 and not report.rejected, report.lines(True)
    assert out == data.replace(b"Are you sure?", FRENCH["Are you sure?"].encode()).replace(
        b"Name: <b>%1$s</b>!", FRENCH["Name: <b>%1$s</b>!"].encode()
    )
    units = {u.getid(): u for u in aresource.AndroidResourceFile.parsestring(out).units}
    assert "\u00a0?" in units["sure"].target.replace(" ", "\u00a0")  # the reader's own view is looser


def test_a_rejection_shows_the_difference_as_code_points():
    reason = changed(["Êtes-vous sûr\u00a0?"], ["Êtes-vous sûr ?"])
    assert "character 14: U+00A0 NO-BREAK SPACE written, U+0020 SPACE read back" in reason
    assert changed(["a", "b"], ["a", "c"]).startswith("read back different at form 1, character 1: U+0062")
    assert changed(["same"], ["same"]) is None


PO = """# Translation of demo.
# Copyright (C) the authors.
#
msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#. shown in the title bar
#: src/main.c:12 src/main.c:40
#, c-format
msgid "open the file %s"
msgstr ""

msgctxt "menu"
msgid "Quit"
msgstr "Salir"

# a translator's comment
msgid "the \\"quoted\\" word\\tand tab"
msgstr ""

#, c-format
msgid "one file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""

#~ msgid "old one"
#~ msgstr "viejo"
"""


def untranslated_po(text: str) -> str:
    """A filled catalog with what filling adds taken out: the translations, the fuzzy marks, the
    header fields set."""
    text = re.sub(r'^(msgstr(?:\[\d\])?) ".*[а-я].*"$', r'\1 ""', text, flags=re.M)
    text = re.sub(r"^#, fuzzy\n", "", text, flags=re.M).replace("#, fuzzy, ", "#, ")
    return re.sub(r'^"(PO-Revision-Date|X-Generator|Language): .*\n', "", text, flags=re.M)


def test_po_changes_in_its_translations_and_marks_only(tmp_path):
    out, report = fill("fr.po", PO.encode(), language="fr-CA")
    assert report.filled == 3 and report.already_translated == 1
    text = out.decode()
    assert '"Language: fr_CA\\n"' in text and f'msgstr "{cyrillic("open the file %s")}"' in text
    assert untranslated_po(text) == PO
    if shutil.which("msgfmt"):
        (tmp_path / "fr.po").write_bytes(out)
        check = subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(tmp_path / "fr.po")], capture_output=True)
        assert check.returncode == 0, check.stderr
    kept = PO.replace('"Plural-Forms', '"Language: es\\n"\n"Plural-Forms')
    out, _ = fill("es.po", kept.encode(), language="fr")
    assert '"Language: es\\n"' in out.decode()  # a catalog's own language is not changed


XLIFF1 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version='1.2' xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <!-- exported by a tool -->
  <file original="app" source-language="en" target-language="fr" datatype="plaintext">
    <body>
      <trans-unit id="open">
        <source>open the file</source>
        <note>File menu</note>
      </trans-unit>
      <trans-unit id="caf"><source>the caf&#233; menu</source></trans-unit>
      <trans-unit id="done"><source>Done</source><target state="translated">Fait</target></trans-unit>
    </body>
  </file>
</xliff>
"""

XLIFF2 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
  <file id="f1">
    <unit id="hello">
      <segment>
        <source>hello there {name}</source>
      </segment>
    </unit>
    <unit id="bye"><segment state="final"><source>Bye</source><target>Salut</target></segment></unit>
  </file>
</xliff>
"""

TS = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr">
<context>
    <name>MainWindow</name>
    <message>
        <location filename="main.cpp" line="10"/>
        <source>open the file %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) selected</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Don&apos;t</source>
        <translation>Ne pas</translation>
    </message>
</context>
</TS>
"""


def without_new_targets(text: str) -> str:
    """A filled XLIFF or .ts with what filling adds taken out: the new translations' text, the new
    <target> elements (with the line they were put on) and the states set."""
    text = re.sub(r">[^<]*[а-я][^<]*<", "><", text)  # every translated text
    text = re.sub(r'(?:\n[ \t]*)?<target(?: state="needs-review-translation")?></target>', "", text)
    return text.replace(' state="translated" subState="traductor:machine-translation"', "")


@pytest.mark.parametrize("name, text", [("app.xlf", XLIFF1), ("app.xliff", XLIFF2), ("app_fr.ts", TS)])
def test_a_bilingual_file_changes_in_its_new_translations_only(name, text, tmp_path):
    out, report = fill(name, text.encode())
    assert report.filled >= 1 and not report.rejected, report.lines(True)
    assert without_new_targets(out.decode()) == text
    assert b"caf&#233;" in out or name != "app.xlf"  # a character reference as written
    if name.endswith(".ts"):
        assert f"            <numerusform>{cyrillic('%n file(s) selected')}</numerusform>\n".encode() in out
        lconvert = shutil.which("lconvert") or next(
            (p for p in ("/usr/lib/qt6/bin/lconvert", "/usr/lib/qt5/bin/lconvert") if os.path.exists(p)), None
        )
        if lconvert:
            (tmp_path / name).write_bytes(out)
            subprocess.run([lconvert, "-i", str(tmp_path / name), "-o", str(tmp_path / "out.po")], check=True)
    read(name, out)


def test_xliff_target_goes_on_its_own_line_at_the_source_indentation():
    out, _ = fill("app.xlf", XLIFF1.encode())
    assert (
        "        <source>open the file</source>\n"
        f'        <target state="needs-review-translation">{cyrillic("open the file")}</target>\n'
        "        <note>File menu</note>\n"
    ) in out.decode()


def test_html_gets_the_target_language_and_its_shown_attributes_translated():
    out, _ = fill("page.html", HTML.encode(), language="pt-br")
    text = out.decode()
    assert '<HTML lang="pt-BR">' in text and f"<TITLE>{cyrillic('demo page')}</TITLE>" in text
    for name, quote, value in [("content", '"', "a page about things"), ("alt", "'", "picture of the cat")]:
        assert f"{name}={quote}{cyrillic(value)}{quote}" in text
    assert f"aria-label=\"{cyrillic('close the dialog')}\" title='{cyrillic('close this')}'" in text
    assert f"value={cyrillic('send')}>" in text  # an unquoted value stays unquoted where it can
    assert f'value="typed words" placeholder="{cyrillic("your name")}"' in text  # a text field's value is data
    assert "<pre>kept   as   is</pre>" in text and latin(out.replace(b' lang="pt-BR"', b"")) == HTML.encode()


def test_wrapped_markdown_text_is_replaced_and_the_lines_around_it_kept():
    data = b"Intro line.\n\nA paragraph wrapped\nonto two lines.\n\n> quoted text\n> over two lines\n\nEnd.\n"
    out, report = fill("README.md", data)
    assert report.filled == 4
    assert latin(out) == b"Intro line.\n\nA paragraph wrapped onto two lines.\n\n> quoted text over two lines\n\nEnd.\n"


def test_a_link_title_is_translated_inside_its_link():
    out, report = fill("README.md", MARKDOWN.encode())
    assert f'[{cyrillic("a link")}](https://example.org "{cyrillic("the title")}")' in out.decode()
    assert "[ref]: https://example.org/ref" in out.decode()  # a reference's label is a name, not text


@pytest.mark.parametrize(
    "name, text",
    [
        ("strings.xml", ANDROID),
        ("en.json", JSON),
        ("movie.srt", SRT),
        ("notes.txt", TEXT),
        ("page.html", HTML),
        ("README.md", MARKDOWN),
        ("fr.po", PO),
        ("app.xlf", XLIFF1),
        ("app.xliff", XLIFF2),
        ("app_fr.ts", TS),
    ],
)
def test_no_break_spaces_of_a_translation_are_written_in_every_format(name, text):
    """issue 45: French puts U+00A0 or U+202F before "?", "!", ":" and ";"; every one written."""
    out, report = fill(name, text.encode(), lambda t: t + "\u00a0!")
    assert report.filled and not report.rejected, report.lines(True)
    written = out.decode()
    expected = sum(len(forms) for forms in _filled_forms(name, text))  # (a Qt numerus message: each form)
    assert written.count("\u00a0!") == expected + (name.endswith(".ts")), name


def _filled_forms(name: str, text: str):
    document = read(name, text.encode())
    job = Job(document)
    return [unit.sources for unit in job.todo]


def test_html_keeps_the_no_break_spaces_of_its_source():
    data = "<p>Bonjour le monde\u00a0! Vraiment\u202f?</p><img alt='une image\u00a0!'>\n".encode()
    out, _ = fill("page.html", data)
    assert latin(out) == data


@pytest.mark.parametrize("encoding", ["utf-16", "windows-1252", "iso-8859-1"])
def test_an_xml_file_in_another_encoding_stays_in_it(encoding):
    """A UTF-16 file is worked on in UTF-8 and written back in UTF-16 (its BOM, its declaration);
    a single-byte one keeps its bytes, a character it cannot hold written as a reference."""
    data = XLIFF1.replace('encoding="UTF-8"', f'encoding="{encoding}"').encode(encoding)
    out, report = fill("app.xlf", data, lambda text: "X " + text + " \u0436")
    assert report.filled == 2
    text = out.decode(encoding)
    target = re.compile(r'(?:\n[ \t]*)?<target state="needs-review-translation">X [^<]*</target>')
    assert target.sub("", text) == data.decode(encoding)
    assert ("\u0436" if encoding == "utf-16" else "&#1078;") in text and len(read("app.xlf", out).units) == 3
