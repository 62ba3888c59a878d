"""Small translation files of every supported format, written here for the file tests (and the
HTTP and browser tests): each has units to fill, a unit whose placeholders the fake translator
drops (its text contains DROP), and what the format keeps (translated units, notes, keys,
untranslatable strings, timings, markup)."""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"%(?:\(\w+\))?(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]|%L?\d|\{\{?[^}]*\}\}?")


def mutate(original: bytes, data) -> bytes:
    """A mutant of a real file for the fuzz tests, drawn from hypothesis' `data`: cut short, with
    up to four bytes replaced."""
    from hypothesis import strategies as st

    cut = data.draw(st.integers(0, len(original)))
    at = data.draw(st.integers(0, max(0, cut - 1)))
    noise = data.draw(st.binary(max_size=4))
    return original[:at] + noise + original[at + len(noise) : cut]


def fake_translation(text: str) -> str:
    """What the fake service answers: "[es] TEXT", with the first placeholder dropped from a
    text containing DROP (a translation that would break the program)."""
    if "DROP" in text:
        text = _PLACEHOLDER.sub("", text, count=1)
    return "[es] " + text


PO = b"""# a catalog
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#: main.c:3
#, c-format
msgid "Open %s"
msgstr ""

msgctxt "menu"
msgid "Quit"
msgstr "Salir"

#, c-format
msgid "One file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""

#, c-format
msgid "DROP %d items"
msgstr ""
"""

XLIFF1 = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="es" datatype="plaintext">
    <body>
      <trans-unit id="open"><source>Open file %s</source><note>File menu</note></trans-unit>
      <trans-unit id="done"><source>Done</source><target state="translated">Hecho</target></trans-unit>
      <trans-unit id="bold"><source>Save <g id="1">now</g></source></trans-unit>
      <trans-unit id="drop"><source>DROP %d items</source></trans-unit>
      <trans-unit id="amp"><source>Tom &amp; Jerry &lt;3</source></trans-unit>
    </body>
  </file>
</xliff>
"""

XLIFF2 = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="es">
  <file id="f1">
    <unit id="hello"><notes><note>greeting</note></notes><segment><source>Hello {name}</source></segment></unit>
    <unit id="bye"><segment state="final"><source>Bye</source><target>Adi\xc3\xb3s</target></segment></unit>
    <unit id="drop"><segment><source>DROP {count} files</source></segment></unit>
  </file>
</xliff>
"""

TS = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>MainWindow</name>
    <message>
        <location filename="main.cpp" line="10"/>
        <source>Open %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Hecho</translation>
    </message>
    <message>
        <source>DROP %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
</TS>
"""

ANDROID = b"""<?xml version="1.0" encoding="utf-8"?>
<!-- strings of the demo app -->
<resources xmlns:tools="http://schemas.android.com/tools">
    <string name="app_name" translatable="false">Demo</string>
    <string name="hello">Don\\'t open %1$s\\nnow &amp; then</string>
    <!-- shown in the toolbar -->
    <string name="save">Save the file</string>
    <string name="drop">DROP %1$d items</string>
    <plurals name="files">
        <item quantity="one">%d file</item>
        <item quantity="other">%d files</item>
    </plurals>
</resources>
"""

JSON = b"""{
    "greeting": "Hello {{name}}",
    "nested": {"bye": "Bye, see $t(greeting)", "count": 3},
    "file_one": "{{count}} file",
    "file_other": "{{count}} files",
    "quote": "Say \\"hi\\"\\nthen \\\\ go",
    "icu": "{n, plural, one {# file} other {# files}}",
    "drop": "DROP {{name}} now"
}
"""

SRT = b"""1
00:00:01,000 --> 00:00:02,500
Hello world.

2
00:00:03,000 --> 00:00:04,200
The <i>second</i> line
goes on here.

"""

TXT = b"Save the file first.\nThen close it.\n\nThe end.\n"

HTML = b"""<!DOCTYPE html>
<html><head><title>Demo page</title></head>
<body>
<h1>Welcome</h1>
<p>Save <b>the file</b> &amp; quit.</p>
<p translate="no">Keep this name</p>
<script>var x = "keep me";</script>
</body></html>
"""

MARKDOWN = b"""# Title

Some *text* with `code` and [a link](https://example.org).

- first item
- second item

```
code block kept
```
"""

SAMPLES = {
    "messages.po": PO,
    "app.xlf": XLIFF1,
    "app2.xliff": XLIFF2,
    "app_es.ts": TS,
    "strings.xml": ANDROID,
    "en.json": JSON,
    "movie.srt": SRT,
    "notes.txt": TXT,
    "page.html": HTML,
    "README.md": MARKDOWN,
}
