"""``traductor-client po``: filling a gettext catalog through a fake Translator server.

The fake "translates" a text to ``[es] TEXT`` (placeholders and line breaks kept, so a good
translation is easy to predict), drops the first placeholder of a text containing ``DROP``
(a translation that would break the program) and refuses a text containing ``REFUSE``. The
catalogs are written here in the GNU tools' layout; the output is checked with GNU msgfmt.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from client_fake_server import unused_port
from file_samples import fake_translation

from traductor_client import __version__
from traductor_client.cli import main
from traductor_client.po_formats import CHECKS

needs_msgfmt = pytest.mark.skipif(
    shutil.which("msgfmt") is None, reason="GNU msgfmt is not installed (apt-get install gettext)"
)

HEADER = '''# Spanish translation of demo.
# This file is distributed under the same license as the demo package.
#
msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\\n"
"Report-Msgid-Bugs-To: \\n"
"POT-Creation-Date: 2026-01-01 10:00+0000\\n"
"PO-Revision-Date: 2026-01-02 10:00+0000\\n"
"Last-Translator: Ana <ana@example.org>\\n"
"Language-Team: Spanish <es@tp.example.org>\\n"
"Language: es\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: {plural}\\n"'''

# (block, what must happen to it): "fill" -> filled, "keep" -> byte-identical in the output,
# "rejected"/"skipped" -> byte-identical and listed in the summary under that title.
BLOCKS = [
    (
        '''#: src/main.c:10
#, c-format
msgid ""
"This is a rather long message that certainly needs to be wrapped by the "
"tools because it is long: %s"
msgstr ""
"Este es un mensaje bastante largo que ciertamente hay que partir en varias "
"líneas porque es largo: %s"''',
        "keep",
    ),
    (
        '''#: src/main.c:12
msgid "Permission denied"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/menu.c:3
msgctxt "menu"
msgid "Open"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/menu.c:4
msgctxt "verb"
msgid "Open"
msgstr ""''',
        "fill",
    ),
    (
        '''#. TRANSLATORS: the first %s is a file name
#: src/io.c:40
#, c-format
msgid "Cannot open %s: %s"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/io.c:41
#, c-format
msgid "%1$s holds %2$d items"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/io.c:42
#, c-format
msgid "Copied DROP %d of %s"
msgstr ""''',
        "rejected",
    ),
    (
        '''#: src/io.c:43
msgid "Saved DROP %s without a flag"
msgstr ""''',
        "rejected",
    ),
    (
        '''#: src/ui.cpp:7
#, qt-format
msgid "%1 of %2 files copied"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/ui.cpp:8
#, qt-format
msgid "Moved DROP %1 to %2"
msgstr ""''',
        "rejected",
    ),
    (
        '''#: tools/report.py:5
#, python-format
msgid "%(name)s is ready"
msgstr ""''',
        "fill",
    ),
    (
        '''#: tools/report.py:6
#, python-brace-format
msgid "{count} items in {place}"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/io.c:50
#, c-format
msgid "One file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""''',
        "fill",
    ),
    (
        '''#: src/io.c:51
#, c-format
msgid "%d folder removed"
msgid_plural "%d folders removed"
msgstr[0] ""
msgstr[1] ""''',
        "fill",
    ),
    (
        '''#: src/io.c:52
#, c-format
msgid "%d note DROP"
msgid_plural "%d notes DROP"
msgstr[0] ""
msgstr[1] ""''',
        "rejected",
    ),
    (
        '''#: src/main.c:80
#, c-format
msgid ""
"Usage: %s [OPTION]...\\n"
"  -h, --help     show this help\\n"
"  -v, --verbose  say more\\n"
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/main.c:90
msgid ""
"\\n"
"Report bugs to the demo team."
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/form.c:3
msgid "Name: "
msgstr ""''',
        "fill",
    ),
    (
        '''#: src/main.c:95
msgid "Quit"
msgstr "Salir"''',
        "keep",
    ),
    (
        '''#: src/main.c:96
#, fuzzy, c-format
#| msgid "Deleted %d file"
msgid "Deleted %d files"
msgstr "Borrado %d archivo"''',
        "keep",
    ),
    (
        '''#: src/main.c:97
msgid "REFUSE this text"
msgstr ""''',
        "skipped",
    ),
    (
        '''#: src/Main.java:4
#, java-format
msgid "{0} changed"
msgstr ""''',
        "skipped",
    ),
    (
        '''#~ msgid "Old message"
#~ msgstr "Mensaje viejo"''',
        "keep",
    ),
]

NPLURALS_2 = "nplurals=2; plural=(n != 1);"
NPLURALS_3 = "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"


def write_catalog(path: Path, blocks, plural: str = NPLURALS_2) -> Path:
    path.write_text("\n\n".join([HEADER.format(plural=plural)] + [b for b, _ in blocks]) + "\n", encoding="utf-8")
    return path


def split_blocks(text: str):
    return text.rstrip("\n").split("\n\n")


def msgfmt(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(["msgfmt", "--check", *extra, "-o", "/dev/null", str(path)], capture_output=True, text=True)


def run_po(capsys, *args):
    status = main(["po", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- the main round ---------------------------------------------------------------------------------
def test_fills_untranslated_entries_and_keeps_the_rest_byte_identical(fake, tmp_path, capsys):
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    before = source.read_bytes()
    out = tmp_path / "out.po"
    status, stdout, stderr = run_po(capsys, source, "-o", out, "--target", fake.address)
    assert status == 0, stderr
    assert source.read_bytes() == before
    old_blocks, new_blocks = split_blocks(before.decode()), split_blocks(out.read_text("utf-8"))
    assert len(new_blocks) == len(old_blocks)
    for (block, fate), new in zip(BLOCKS, new_blocks[1:]):
        if fate == "fill":
            assert new != block and "#, fuzzy" in new
        else:
            assert new == block
    for block, fate in BLOCKS:
        if fate in ("rejected", "skipped"):
            msgid = polib.pofile(block).__iter__().__next__().msgid
            section = stdout.split(f"{fate}:\n", 1)[1]
            assert f'"{msgid}"' in section
    assert "filled                 13" in stdout
    assert "rejected                4" in stdout and "skipped                 2" in stdout
    assert "already translated      2" in stdout and "fuzzy, kept             1" in stdout


def test_translations_plurals_contexts_and_line_breaks(fake, tmp_path, capsys):
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    out = tmp_path / "out.po"
    assert run_po(capsys, source, "-o", out, "--target", fake.address)[0] == 0
    po = polib.pofile(str(out))
    by_key = {(e.msgctxt, e.msgid): e for e in po}
    assert by_key[("menu", "Open")].msgstr == by_key[("verb", "Open")].msgstr == "[es] Open"
    files = by_key[(None, "One file")]
    assert files.msgstr_plural == {0: "[es] One file", 1: "[es] %d files"}
    assert by_key[(None, "%1$s holds %2$d items")].msgstr == "[es] %1$s holds %2$d items"
    usage = next(e for e in po if e.msgid.startswith("Usage"))
    assert usage.msgstr == "[es] " + usage.msgid  # the line breaks inside and at the end kept
    assert by_key[(None, "\nReport bugs to the demo team.")].msgstr == "\n[es] Report bugs to the demo team."
    assert by_key[(None, "Name: ")].msgstr == "[es] Name: "
    assert all(e.flags[0] == "fuzzy" for e in po if e.msgstr.startswith("[es]"))
    assert by_key[(None, "Deleted %d files")].msgstr == "Borrado %d archivo"  # fuzzy: kept
    # Each distinct text was sent once, whole (line breaks inside, not at the edges).
    assert len(fake.texts) == len(set(fake.texts)) and "Open" in fake.texts
    assert "Usage: %s [OPTION]...\n  -h, --help     show this help\n  -v, --verbose  say more" in fake.texts
    assert po.metadata["X-Generator"] == f"traductor-client {__version__}"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d[+-]\d{4}", po.metadata["PO-Revision-Date"])
    assert po.metadata["Last-Translator"] == "Ana <ana@example.org>"


@needs_msgfmt
def test_output_passes_msgfmt_check_and_rejections_were_real(fake, tmp_path, capsys):
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    out = tmp_path / "out.po"
    assert msgfmt(source).returncode == 0
    assert run_po(capsys, source, "-o", out, "--target", fake.address)[0] == 0
    for extra in ((), ("--use-fuzzy",)):  # plain --check skips fuzzy entries; --use-fuzzy checks them
        result = msgfmt(out, *extra)
        assert result.returncode == 0, result.stderr
    # Writing any rejected translation anyway makes msgfmt fail: the rejections were needed.
    rejected = [polib.pofile(block)[0] for block, fate in BLOCKS if fate == "rejected"]
    for entry in rejected:
        if not entry.flags:
            continue  # the unflagged one: msgfmt does not check it, traductor-client does
        forced = polib.pofile(str(source))
        target = next(e for e in forced if e.msgid == entry.msgid)
        if entry.msgid_plural:
            target.msgstr_plural = {0: fake_translation(entry.msgid), 1: fake_translation(entry.msgid_plural)}
        else:
            target.msgstr = fake_translation(entry.msgid)
        forced.save(str(tmp_path / "forced.po"))
        assert msgfmt(tmp_path / "forced.po").returncode != 0, entry.msgid


@needs_msgfmt
def test_three_plural_forms_without_fuzzy(fake, tmp_path, capsys):
    blocks = [b for b in BLOCKS if "msgid_plural" in b[0]]
    blocks = [(b.replace('msgstr[1] ""', 'msgstr[1] ""\nmsgstr[2] ""'), fate) for b, fate in blocks]
    source = write_catalog(tmp_path / "in.po", blocks, plural=NPLURALS_3)
    out = tmp_path / "out.po"
    status, stdout, _ = run_po(capsys, source, "-o", out, "--no-fuzzy", "--target", fake.address)
    assert status == 0 and "filled                  2" in stdout
    po = polib.pofile(str(out))
    assert po[0].msgstr_plural == {0: "[es] One file", 1: "[es] %d files", 2: "[es] %d files"}
    assert all("fuzzy" not in entry.flags for entry in po)
    result = msgfmt(out)
    assert result.returncode == 0, result.stderr


def test_crlf_line_endings_are_kept(fake, tmp_path, capsys):
    text = write_catalog(tmp_path / "lf.po", BLOCKS).read_text("utf-8")
    source = tmp_path / "in.po"
    source.write_bytes(text.replace("\n", "\r\n").encode())
    out = tmp_path / "out.po"
    assert run_po(capsys, source, "-o", out, "--target", fake.address)[0] == 0
    written = out.read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n") > text.count("\n")
    untouched = [block for block, fate in BLOCKS if fate != "fill"]
    assert all(block.replace("\n", "\r\n").encode() in written for block in untouched)


def test_catalog_without_header_gets_one(fake, tmp_path, capsys):
    source = tmp_path / "in.po"
    source.write_text('msgid "Open"\nmsgstr ""\n\nmsgid "Close"\nmsgstr "Cerrar"\n', encoding="utf-8")
    assert run_po(capsys, source, "--target", fake.address)[0] == 0
    po = polib.pofile(str(source))
    assert po.metadata["X-Generator"] == f"traductor-client {__version__}"
    assert [(e.msgid, e.msgstr) for e in po] == [("Open", "[es] Open"), ("Close", "Cerrar")]
    assert source.read_text("utf-8").endswith('msgid "Close"\nmsgstr "Cerrar"\n')


def test_plural_entries_need_a_plural_forms_header(fake, tmp_path, capsys):
    """Without Plural-Forms, a language outside files.plurals' table (Polish) cannot be guessed:
    its plural entries are skipped with the reason (tests/client/test_plurals.py: Russian's)."""
    text = write_catalog(tmp_path / "x.po", BLOCKS[12:14]).read_text("utf-8").replace("Language: es", "Language: pl")
    source = tmp_path / "in.po"
    source.write_text(re.sub(r'"Plural-Forms:.*\n', "", text), encoding="utf-8")
    status, stdout, _ = run_po(capsys, source, "--dry-run", "--target", fake.address)
    assert status == 0 and "skipped                 2" in stdout
    assert "plural entry: the catalog has no Plural-Forms header (no standard one is known for 'pl')" in stdout


def test_include_fuzzy_retranslates_and_drops_previous_msgid(fake, tmp_path, capsys):
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    assert run_po(capsys, source, "--include-fuzzy", "--target", fake.address)[0] == 0  # in place
    text = source.read_text("utf-8")
    entry = next(e for e in polib.pofile(text) if e.msgid == "Deleted %d files")
    assert entry.msgstr == "[es] Deleted %d files" and entry.flags == ["fuzzy", "c-format"]
    assert "#| msgid" not in text


def test_dry_run_writes_nothing(fake, tmp_path, capsys):
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    before = source.read_bytes()
    status, stdout, _ = run_po(capsys, source, "--dry-run", "--target", fake.address)
    assert status == 0 and source.read_bytes() == before
    assert "dry run, nothing written" in stdout and "filled                 13" in stdout


@pytest.mark.parametrize("tqdm", ["installed", "missing"])
def test_batches_and_progress(fake, tmp_path, capsys, monkeypatch, tqdm):
    if tqdm == "missing":
        monkeypatch.setitem(sys.modules, "tqdm", None)  # the client's own bar then
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    status, _, stderr = run_po(capsys, source, "--dry-run", "--batch-size", "4", "--progress", "--target", fake.address)
    assert status == 0
    sent = 20  # distinct texts: 18 entries to translate, three plural (two texts), two "Open"s as one
    assert fake.calls["TranslateBatch"] == sent // 4
    # The refused text is the last one, in the last batch of 4, which is sent again one text at
    # a time; the other batches are not.
    assert fake.calls["Translate"] == 4 and fake.texts.count("Permission denied") == 1
    assert f"{sent}/{sent}" in stderr


# -- errors: one line, exit status 2 ---------------------------------------------------------------
def test_missing_file(tmp_path, capsys):
    status, _, stderr = run_po(capsys, tmp_path / "nope.po", "--target", "127.0.0.1:1")
    assert status == 2 and stderr.count("\n") == 1
    assert stderr.startswith("traductor-client: ") and "nope.po: No such file or directory" in stderr


@pytest.mark.parametrize("content", [b"hello, this is not a catalog\n", b"\xde\x12\x04\x95\x00\x00"])
def test_not_a_po_file(tmp_path, capsys, content):
    path = tmp_path / "bad.po"
    path.write_bytes(content)
    status, _, stderr = run_po(capsys, path, "--target", "127.0.0.1:1")
    assert status == 2 and stderr.count("\n") == 1 and "not a PO file" in stderr


def test_unreachable_server_writes_nothing(tmp_path, capsys):
    source = write_catalog(tmp_path / "in.po", BLOCKS)
    out = tmp_path / "out.po"
    status, _, stderr = run_po(
        capsys, source, "-o", out, "--target", f"127.0.0.1:{unused_port()}", "--retries", "0", "--timeout", "5"
    )
    assert status == 2 and stderr.count("\n") == 1
    assert stderr.startswith("traductor-client: UNAVAILABLE: ") and "nothing was written" in stderr
    assert not out.exists()


# -- the format checks agree with msgfmt --check-format ----------------------------------------
FORMAT_CASES = [
    ("c-format", "%s %d", "%2$d %1$s"),
    ("c-format", "%s %d", "%d %s"),
    ("c-format", "%d", "%u"),
    ("c-format", "%d", "%ld"),
    ("c-format", "%i", "%d"),
    ("c-format", "%*d", "%d"),
    ("c-format", "%zu", "%lu"),
    ("c-format", "%lld", "%qd"),
    ("c-format", "%m: %s", "%s: %m"),
    ("c-format", "%5.2f%%", "%f %%"),
    ("c-format", "%s", "%s %"),
    ("c-format", "50% off", "50% fuera"),
    ("c-format", "100%", "100 %"),
    ("c-format", "%2$s", "%s"),
    ("c-format", "%Lf", "%f"),
    ("python-format", "%(n)d", "%(n)s"),
    ("python-format", "%(a)s %(b)s", "%(b)s %(a)s"),
    ("python-format", "%(a)s %(b)s", "%(b)s"),
    ("python-format", "%s %s", "%s"),
    ("python-format", "%s", "%r"),
    ("python-format", "%(a)s", "%s"),
    ("python-format", "%i", "%x"),
    ("python-brace-format", "{0} {name}", "{name} {0}"),
    ("python-brace-format", "{0} {name}", "{name}"),
    ("python-brace-format", "{}", "{0}"),
    ("python-brace-format", "{a.b}", "{a}"),
    ("python-brace-format", "{a!r:>10}", "{a}"),
    ("qt-format", "%1 of %2", "%2 de %1"),
    ("qt-format", "%1 of %2", "%1 de"),
    ("qt-format", "%L1", "%1"),
    ("qt-format", "%1", "%1 %3"),
    ("qt-format", "%10", "%1"),
    ("qt-plural-format", "%n files", "archivos"),
    ("kde-format", "%1 %2 %3", "%1 %3"),
]


@needs_msgfmt
@pytest.mark.parametrize("flag,msgid,msgstr", FORMAT_CASES)
def test_format_check_agrees_with_msgfmt(tmp_path, flag, msgid, msgstr):
    entry = polib.POEntry(msgid=msgid, msgstr=msgstr, flags=[flag])
    path = tmp_path / "one.po"
    path.write_text(HEADER.format(plural=NPLURALS_2) + "\n\n" + str(entry) + "\n", encoding="utf-8")
    assert (CHECKS[flag](msgid, msgstr, True) is None) == (msgfmt(path).returncode == 0)
