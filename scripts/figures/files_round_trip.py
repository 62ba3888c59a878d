"""A recorded round trip per file format for docs/files.md, on the default model.

    python scripts/figures/files_round_trip.py [--out docs/files]

Starts `traductor serve` (the bundled default model, free ports, one thread), writes one small
file per format into --out (IN), fills it with `traductor-client translate-file` (OUT, and the
command's summary), and checks OUT with the format's own tool: msgfmt --check (gettext, and Qt
.ts through lconvert), lrelease (Qt .ts), translate-toolkit's reader (XLIFF, Android, SubRip),
json.loads (JSON). Everything printed is written to --out/ROUND_TRIP.txt as well.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SAMPLES = {
    "messages.po": r"""msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\n"
"Language: es\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: src/main.c:12
#, c-format
msgid "cannot open file %s"
msgstr ""

#: src/main.c:20
#, c-format
msgid "%d file removed"
msgid_plural "%d files removed"
msgstr[0] ""
msgstr[1] ""

#: src/ui.c:7
msgid "Quit"
msgstr "Salir"
""",
    "app.xlf": """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app.properties" source-language="en" target-language="es" datatype="plaintext">
    <body>
      <trans-unit id="open"><source>Cannot open file %s</source><note>error dialog</note></trans-unit>
      <trans-unit id="saved"><source>The file was saved.</source></trans-unit>
      <trans-unit id="quit"><source>Quit</source><target state="translated">Salir</target></trans-unit>
    </body>
  </file>
</xliff>
""",
    "app.xliff": """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="es">
  <file id="f1">
    <unit id="welcome"><notes><note>home page</note></notes>
      <segment><source>Welcome back, {name}!</source></segment></unit>
    <unit id="quit"><segment state="final"><source>Quit</source><target>Salir</target></segment></unit>
  </file>
</xliff>
""",
    "demo_es.ts": """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>MainWindow</name>
    <message>
        <location filename="mainwindow.cpp" line="42"/>
        <source>Cannot open %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) deleted</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Salir</translation>
    </message>
</context>
</TS>
""",
    "strings.xml": """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name" translatable="false">Demo</string>
    <string name="open_failed">Can\\'t open %1$s</string>
    <string name="saved">The file was saved.</string>
    <plurals name="deleted">
        <item quantity="one">%d file deleted</item>
        <item quantity="other">%d files deleted</item>
    </plurals>
</resources>
""",
    "en.json": """{
  "welcome": "Welcome back, {{name}}!",
  "menu": {"open": "Open file", "quit": "Quit"},
  "files_one": "{{count}} file",
  "files_other": "{{count}} files",
  "inbox": "{count, plural, one {# message} other {# messages}}"
}
""",
    "intro.srt": """1
00:00:01,000 --> 00:00:03,200
Open the file menu.

2
00:00:03,500 --> 00:00:06,000
Then choose <i>Save as</i>.
""",
    "notes.txt": "Save the file before closing.\n\nThe repository is empty.\n",
    "page.html": """<!DOCTYPE html>
<html><head><title>Settings</title></head>
<body>
<h1>Settings</h1>
<p>Save the file <b>before</b> closing.</p>
<pre>git init</pre>
</body></html>
""",
    "README.md": """# Installing

Run `make install` as root, then open [the settings](settings.md).

- Save the file.
- Close the window.
""",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def qt_tool(name: str) -> str | None:
    return shutil.which(name) or next(
        (p for p in (f"/usr/lib/qt6/bin/{name}", f"/usr/lib/qt5/bin/{name}") if os.path.exists(p)), None
    )


def validate(path: Path) -> str:
    """The format's own check of a translated file, as a transcript."""
    name, folder = path.name, path.parent

    def run(*command: str) -> str:
        done = subprocess.run(command, capture_output=True, text=True, cwd=folder)
        shown = " ".join(Path(c).name if c.startswith("/usr") else c for c in command)
        return f"$ {shown}\n{done.stdout}{done.stderr}(exit {done.returncode})\n"

    if name.endswith(".po"):
        return run("msgfmt", "--check", "--statistics", "-o", "/dev/null", name)
    if name.endswith(".ts"):
        lconvert, lrelease = qt_tool("lconvert"), qt_tool("lrelease")
        out = run(lrelease, name, "-qm", os.devnull)
        out += run(lconvert, "-i", name, "-o", name + ".po")
        out += run("msgfmt", "--check", "-o", "/dev/null", name + ".po")
        (folder / (name + ".po")).unlink(missing_ok=True)
        return out
    if name.endswith(".json"):
        json.loads(path.read_bytes())
        return "json.loads: ok\n"
    if name.endswith((".xlf", ".xliff", ".xml", ".srt")):
        from translate.storage import aresource, subtitles, xliff, xliff2

        data = path.read_bytes()
        if name.endswith(".xlf"):
            store = xliff.xlifffile.parsestring(data)
        elif name.endswith(".xliff"):
            store = xliff2.Xliff2File.parsestring(data)
        elif name.endswith(".xml"):
            store = aresource.AndroidResourceFile.parsestring(data)
        else:
            store = subtitles.SubRipFile()
            store.parse(io.BytesIO(data))
        units = [u for u in store.units if not u.isheader()]
        element = lambda u: getattr(u, "xmlelement", None)  # noqa: E731
        ident = lambda u: (element(u).get("id") if element(u) is not None else None) or u.getid()  # noqa: E731
        lines = "".join(f"  {ident(u) or '-'}: {str(u.target)!r}\n" for u in units)
        return f"translate-toolkit {type(store).__name__} reads it back: {len(units)} units\n{lines}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    grpc_port = free_port()
    target = f"127.0.0.1:{grpc_port}"
    server = subprocess.Popen(
        [
            "traductor",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(grpc_port),
            "--metrics-port",
            "0",
            "--threads",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    transcript = []
    try:
        for _ in range(240):
            if subprocess.run(["traductor-client", "health", "--target", target], capture_output=True).returncode == 0:
                break
            time.sleep(0.5)
        for name, text in SAMPLES.items():
            source = args.out / name
            source.write_text(text)
            stem, ext = name.rsplit(".", 1)
            out = args.out / f"{stem}.es.{ext}"
            command = ["traductor-client", "translate-file", name, "-o", out.name, "--to", "es", "--target", target]
            done = subprocess.run(command, capture_output=True, text=True, cwd=args.out)
            shown = " ".join(command[:-2])
            transcript.append(f"### {name}\n\n$ {shown}\n{done.stdout}{done.stderr}")
            if done.returncode == 0:
                transcript.append(validate(out))
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = "\n".join(transcript)
    (args.out / "ROUND_TRIP.txt").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
