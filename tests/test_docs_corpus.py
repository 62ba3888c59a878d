"""`traductor corpus --docs` on Debian packages built here with dpkg-deb (no network, no install).

Nine programs `app0`..`app8`, each with a Mallard help page in English (C) and Spanish, an English
man page and a package description; manpages-es with translated pages; Translation-en/-es files.
`secret` is reserved (its documentation must never be read) and `secret-extra` is built from the
same Debian source: both ship help pages and man pages that must not reach the corpus or the cache.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import subprocess
from pathlib import Path

import pytest

from traductor.cli import main
from traductor.errors import CorpusError
from traductor.training import debian_docs, docs_align, docs_corpus, docs_man, docs_pairs
from traductor.training.corpus import load_split

MALLARD = """<page xmlns="http://projectmallard.org/1.0/" id="index">
<info>{credit}<desc>{desc}</desc></info>
<title>{title}</title>
<p>{para}</p>
<code>make install</code>
<steps><item><p>{step}</p></item></steps>
</page>
"""
EN_PAGE = dict(
    credit="",
    desc="Help for {n}.",
    title="Using {n}",
    para="Press <keyseq><key>Ctrl</key><key>S</key></keyseq> to save the {n} document.",
    step="Open the {n} menu: <guiseq><gui>File</gui><gui>New</gui></guiseq>.",
)
ES_PAGE = dict(
    credit='<credit type="translator"><name>Ana</name></credit>',
    desc="Ayuda de {n}.",
    title="Usar {n}",
    para="Pulse <keyseq><key>Ctrl</key><key>S</key></keyseq> para guardar el documento de {n}.",
    step="Abra el menú de {n}: <guiseq><gui>Archivo</gui><gui>Nuevo</gui></guiseq>.",
)
MAN_EN = """.TH {N} 1
.SH NAME
{n} \\- show the {n} files
.SH DESCRIPTION
.B {n}
lists the files of a {n} project.
.PP
It never \\fBchanges\\fR them.
.nf
{n} \\-\\-all
.fi
.TP
.B \\-a
show every {n} file
"""
MAN_ES = """.TH {N} 1
.SH NOMBRE
{n} \\- muestra los archivos de {n}
.SH DESCRIPCIÓN
.B {n}
lista los archivos de un proyecto {n}.
.PP
Nunca los \\fBcambia\\fR.
.nf
{n} \\-\\-all
.fi
.TP
.B \\-a
muestra todos los archivos de {n}
.SH TRADUCCIÓN
Ana <ana@example.org>
"""


def docs_deb(debs: Path, name: str, files: dict[str, bytes], source: str | None = None) -> None:
    """NAME_1.0_all.deb in debs, holding `files` (path inside the package -> content)."""
    root = debs.parent / "deb-src" / name
    (root / "DEBIAN").mkdir(parents=True, exist_ok=True)
    control = f"Package: {name}\n" + (f"Source: {source}\n" if source else "")
    control += "Version: 1.0\nArchitecture: all\nMaintainer: T <t@example.org>\nDescription: test\n"
    (root / "DEBIAN" / "control").write_text(control)
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    debs.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["dpkg-deb", "-Zgzip", "--root-owner-group", "--build", str(root), str(debs / f"{name}_1.0_all.deb")],
        check=True,
        capture_output=True,
    )


def page(fields: dict[str, str], n: str) -> bytes:
    return MALLARD.format(**{k: v.format(n=n) for k, v in fields.items()}).encode()


def program_files(n: str) -> dict[str, bytes]:
    files = {
        f"usr/share/help/C/{n}/index.page": page(EN_PAGE, n),
        f"usr/share/help/es/{n}/index.page": page(ES_PAGE, n),
        f"usr/share/man/man1/{n}.1.gz": gzip.compress(MAN_EN.format(n=n, N=n.upper()).encode()),
    }
    if n == "app1":  # translates its own man page (as dpkg and apt do): that one is used, not manpages-es's
        own = MAN_ES.format(n=n, N=n.upper()).replace("muestra todos los archivos", "enseña cada archivo")
        files[f"usr/share/man/es/man1/{n}.1.gz"] = gzip.compress(own.encode())
    return files


def description(lang: str, n: str) -> str:
    if lang == "en":
        return (
            f"tool for {n} projects\n The {n} tool reads projects.\n .\n It supports:\n  * local files\n  * remote {n}"
        )
    return (
        f"herramienta para proyectos {n}\n La herramienta {n} lee proyectos.\n .\n Admite:\n"
        f"  * archivos locales\n  * {n} remotos"
    )


def translation_file(lang: str, names: list[str], md5_of=lambda n: n) -> str:
    records = []
    for n in names:
        md5 = hashlib.md5(md5_of(n).encode()).hexdigest()
        records.append(f"Package: {n}\nDescription-md5: {md5}\nDescription-{lang}: {description(lang, n)}\n")
    return "\n".join(records)


PROGRAMS = [f"app{i}" for i in range(9)]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    debs = root / "cache" / "debs"
    for n in PROGRAMS:
        docs_deb(debs, n, program_files(n))
    docs_deb(debs, "secret", program_files("secret"))
    docs_deb(debs, "secret-extra", program_files("secretextra"), source="secret")
    man_es = {
        f"usr/share/man/es/man1/{n}.1.gz": gzip.compress(MAN_ES.format(n=n, N=n.upper()).encode())
        for n in PROGRAMS + ["secret", "unshipped"]
    }
    docs_deb(root / "cache" / "manpages", "manpages-es", man_es)
    i18n = root / "cache" / "i18n"
    i18n.mkdir(parents=True)
    described = PROGRAMS + ["secret"]
    with lzma.open(i18n / "Translation-en.xz", "wt", encoding="utf-8") as f:
        f.write(translation_file("en", described))
    with bz2.open(i18n / "Translation-es.bz2", "wt", encoding="utf-8") as f:  # app5's translation is outdated
        f.write(translation_file("es", described, md5_of=lambda n: n + "-old" if n == "app5" else n))
    (root / "list.txt").write_text("\n".join(PROGRAMS + ["secret", "secret-extra"]) + "\n")
    (root / "reserved.txt").write_text("# reserved\nsecret\n")
    return root


def build(cache: Path, out: Path) -> dict:
    return docs_corpus.build(
        out,
        cache / "cache",
        cache / "list.txt",
        cache / "reserved.txt",
        langs=("es",),
        offline=True,
        held_out_pairs=({"help": 4, "man": 4, "description": 5}, {"help": 4, "man": 4, "description": 5}),
    )


@pytest.fixture(scope="module")
def corpus(cache, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("out")
    return out, build(cache, out)


def rows(out: Path) -> list[tuple[str, ...]]:
    return [
        tuple(line.split("\t"))
        for name in ("train", "dev", "test")
        for line in (out / "es" / f"{name}.tsv").read_text().splitlines()
    ]


def test_allowed_leaves_out_reserved_packages_and_their_debian_sources():
    names = ["app0", "totem-common", "totem", "totem-plugins", "gnome-logs", "zed"]
    source_of = {"totem-common": "totem", "totem": "totem", "totem-plugins": "totem", "zed": "zed"}
    assert debian_docs.allowed(names, {"totem-common", "gnome-logs"}, source_of) == ["app0", "zed"]
    assert debian_docs.read_reserved() >= {"totem-common", "seahorse", "baobab"}  # the bundled list


def test_reserved_documentation_is_never_read_nor_paired(corpus, cache):
    out, stats = corpus
    assert stats["packages_reserved"] == ["secret", "secret-extra"]
    docs = cache / "cache" / "docs"
    assert not (docs / "secret").exists() and not (docs / "secret-extra").exists()
    # secret-extra is on the list but built from secret's source: only its control fields were read
    assert json.loads((docs / "secret-extra.json").read_text())["help"] == []
    text = "\n".join("\t".join(r) for r in rows(out)).lower()
    assert "secret" not in text and rows(out)


def test_help_pages_align_block_by_block_without_code(corpus):
    out, _ = corpus
    pairs = {(r[0], r[1]): r[2:] for r in rows(out)}
    assert pairs[("Open the app1 menu: File ▸ New.", "Abra el menú de app1: Archivo ▸ Nuevo.")] == ("app1", "help")
    assert ("Press Ctrl+S to save the app2 document.", "Pulse Ctrl+S para guardar el documento de app2.") in pairs
    assert ("Help for app0.", "Ayuda de app0.") in pairs  # the translator's credit shifts nothing
    assert not any("make install" in s for s, _ in pairs)


def test_man_pages_pair_paragraphs_of_allowed_programs_only(corpus):
    out, _ = corpus
    man = {(r[0], r[1]) for r in rows(out) if r[3] == "man"}
    assert ("It never changes them.", "Nunca los cambia.") in man
    assert ("show every app3 file", "muestra todos los archivos de app3") in man
    assert {t for s, t in man if s == "show every app1 file"} == {"enseña cada archivo de app1"}
    assert ("app4 lists the files of a app4 project.", "app4 lista los archivos de un proyecto app4.") in man
    assert not any("--all" in s or "unshipped" in s or "Ana" in t for s, t in man)


def test_descriptions_pair_only_when_translated_from_the_same_english(corpus):
    out, _ = corpus
    described = {r[2] for r in rows(out) if r[3] == "description"}
    assert described == set(PROGRAMS) - {"app5"}
    pairs = {(r[0], r[1]) for r in rows(out) if r[3] == "description"}
    assert ("remote app2", "app2 remotos") in pairs and (
        "tool for app0 projects",
        "herramienta para proyectos app0",
    ) in pairs


def test_splits_hold_out_whole_packages_and_are_loadable(corpus):
    out, stats = corpus
    splits = {name: load_split(out / "es" / f"{name}.tsv") for name in ("train", "dev", "test")}
    packages = {name: {p.catalog for p in pairs} for name, pairs in splits.items()}
    assert packages["test"] and packages["dev"]
    assert not packages["test"] & packages["train"] and not packages["dev"] & packages["train"]
    assert stats["languages"]["es"]["test_pairs"] == len(splits["test"])
    written = json.loads((out / "es" / "stats.json").read_text())
    assert written["languages"] == {"source": "en", "target": "es"}


def test_same_cache_gives_identical_files(corpus, cache, tmp_path):
    out, _ = corpus
    build(cache, tmp_path)
    for name in ("train.tsv", "dev.tsv", "test.tsv", "stats.json"):
        assert (tmp_path / "es" / name).read_bytes() == (out / "es" / name).read_bytes()


def test_cli_builds_docs_and_refuses_catalog_options(cache, tmp_path, capsys):
    base = ["corpus", "--docs", "--out", str(tmp_path), "--cache", str(cache / "cache"), "--quiet", "--offline"]
    lists = ["--packages", str(cache / "list.txt"), "--reserved", str(cache / "reserved.txt"), "--lang", "es"]
    main(base + lists)
    assert json.loads(capsys.readouterr().out)["languages"]["es"]["pairs_read"] > 0
    assert main(base + ["--tsv", "x.tsv"]) == 2
    assert "--docs builds from Debian packages" in capsys.readouterr().err


def test_units_split_long_paragraphs_only_when_sentences_match():
    en = "First sentence here. " * 20 + "Last one."
    es = "Primera frase aquí. " * 20 + "La última."
    assert len(docs_pairs.units(en, es, "es")) == 21
    one = "Una sola frase larga " * 20  # as many characters, one sentence: kept whole
    assert docs_pairs.units(en, one, "es") == [(en, one.strip())]
    assert docs_pairs.units(en * 3, one * 3, "es") == []  # over MAX_DOC_CHARS
    assert docs_pairs.units("Open the file in the editor window", "Abrir", "es") == []  # lengths disagree
    assert docs_pairs.units("Same", "Same", "es") == [] and docs_pairs.units("Open the file now", "1.", "es") == []
    assert docs_pairs.units("OK", "Aceptar", "es") == [("OK", "Aceptar")]


def test_bad_page_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError):
        docs_align.xml_blocks(b"")
    assert docs_man.man_sections(".Dd today\n.Sh NAME\n") == []  # mdoc pages are not read


def test_another_version_of_a_page_pairs_only_before_and_after_the_difference():
    english = [("/page/title[]", "Title"), ("/page/p[]", "One."), ("/page/p[]", "New two."), ("/page/p[]", "Three.")]
    english += [("/page/note/p[gui]", "Click Save.")]
    translated = [("/page/title[]", "Título"), ("/page/p[]", "Uno."), ("/page/p[]", "Tres.")]
    translated += [("/page/note/p[gui]", "Pulse Guardar.")]
    # in a run of look-alike paragraphs one went missing somewhere: none of the run is paired
    assert docs_align.align_blocks(english, translated) == [("Title", "Título"), ("Click Save.", "Pulse Guardar.")]
    changed = english[:1] + [("/page/p[]", "One.")] + english[-1:]
    assert docs_align.align_blocks(changed, translated[:2] + [("/page/list[]", "Lista")] + translated[-1:]) == [
        ("Title", "Título"),
        ("One.", "Uno."),
        ("Click Save.", "Pulse Guardar."),
    ]
    same = [("/page/p[]", "Uno."), ("/page/p[]", "Dos."), ("/page/p[]", "Tres."), ("/page/note/p[gui]", "Pulse")]
    assert len(docs_align.align_blocks(english[1:], same)) == 4  # same paths: block by block
    same[1] = ("/page/p[em]", "Dos.")
    assert len(docs_align.align_blocks(english[1:], same)) == 3  # but not a block whose markup changed
    credited = same + [("/page/p[email]", "Traducido por Ana ana@example.org")]
    assert len(docs_align.align_blocks(english[1:], credited)) == 3  # a translator's credit changes nothing


def test_sentences_pair_one_by_one_only_when_they_agree():
    first = "Use the --all option to list every file of the project in the current folder. "
    second = "If pattern is preceded by # it must match at the start of the value of the parameter. "
    third = "This is the last sentence of the paragraph, about as long as the others here. "
    en = (first + second + third) * 2
    fr = (first.replace("Use", "Utilisez") + second.replace("If", "Si") + third.replace("This", "Ceci")) * 2
    assert len(docs_pairs.units(en, fr, "fr")) == 6
    shuffled = (second.replace("If", "Si") + first.replace("Use", "Utilisez") + third) * 2  # same count, other order
    assert docs_pairs.units(en, shuffled, "fr") == [(en.strip(), shuffled.strip())]  # kept whole


def test_sentences_are_cut_by_each_language_rules_not_at_abbreviations():
    en = "Some searches might be slow on remote mail accounts (e.g. IMAP) when the folder is big. " * 4
    en += "Open the account settings to change it."
    es = "Algunas búsquedas pueden ser lentas en cuentas de correo remotas (p. ej. IMAP) si la carpeta es grande. " * 4
    es += "Abra la configuración de la cuenta para cambiarlo."
    pairs = docs_pairs.units(en, es, "es")
    assert len(pairs) == 5 and pairs[0][0].endswith("the folder is big.") and "(p. ej. IMAP)" in pairs[0][1]


def test_kde_entities_become_their_text_in_each_language(tmp_path):
    custom = tmp_path / "customization"
    for folder, text in {
        "entities": '<!ENTITY kde \'<orgname class="x">KDE</orgname>\'>\n<!ENTITY % param "IGNORE">\n',
        "en": '<!ENTITY eg "<abbrev>e.g.</abbrev>">\n<!ENTITY Ctrl "<keycap>Ctrl</keycap>">\n',
        "de": '<!ENTITY eg "z.&#160;B.">\n<!ENTITY Ctrl "<keycap>Strg</keycap>">\n',
    }.items():
        (custom / folder).mkdir(parents=True)
        (custom / folder / "user.entities").write_text(text)
    english, german = docs_align.kde_entities(custom, "en"), docs_align.kde_entities(custom, "de")
    assert (english["eg"], german["eg"], german["kde"], german["Ctrl"]) == ("e.g.", "z. B.", "KDE", "Strg")
    page = b"""<?xml version="1.0"?><!DOCTYPE article [<!ENTITY app "&kde; Writer"><!ENTITY % x "y">]>
    <article><para>Press &Ctrl; in &app;, &eg; now.</para></article>"""
    assert docs_align.xml_blocks(page, german) == [
        ("/article/para[&Ctrl;,&app;,&eg;]", "Press Strg in KDE Writer, z. B. now.")
    ]
    unknown = b"<article><para>Use &unknown; here</para><para>A&nbsp;&mdash;&nbsp;B</para></article>"
    assert [t for _, t in docs_align.xml_blocks(unknown, german)] == ["", "A \u2014 B"]


def test_pictures_captions_and_code_are_not_text():
    page = b"""<article><para>See <screenshot><screeninfo>Module</screeninfo><mediaobject><textobject>
    <phrase>Module</phrase></textobject></mediaobject></screenshot> the module.</para>
    <programlisting>make all</programlisting><para>Type <command>make</command> now.</para></article>"""
    assert [t for _, t in docs_align.xml_blocks(page)] == ["See the module.", "Type make now."]
    mallard = b"""<page><title><media src="logo.png">Logo</media> Viewer</title>
    <media src="crop.png"><p>Cropping a photo.</p></media></page>"""
    assert [t for _, t in docs_align.xml_blocks(mallard)] == ["Viewer", "Cropping a photo."]


def test_groff_accented_letters_are_kept():
    page = ".TH X 1\n.SH NOMBRE\nx \\- una de las \\('ordenes, \\[:u]ber, a\\(~no, caf\\[u00E9]\n"
    assert docs_man.man_sections(page) == [["x - una de las órdenes, über, año, café"]]
