"""Debian packages -> their documentation files (help pages and man pages), without installing anything.

    allowed     the package list (debian.read_package_list) less the packages whose documentation is
                reserved for evaluation (data/reserved-docs-packages.txt) and every package built from
                the same Debian source as one of them (totem-common reserved -> totem's packages too);
                applied to names *before* anything is downloaded or read
    download    debian.download (cached .debs; a second run works offline)
    extract     from each allowed .deb, read with `dpkg-deb --fsys-tarfile` after its control fields
                said again that its source is not reserved, only:
                  help pages   usr/share/help/LANG/APP/*.page|*.xml, usr/share/gnome/help/APP/LANG/*.xml,
                               usr/share/doc/HTML/LANG/APP/*.docbook (KDE), LANG = C/en or a wanted one
                  man pages    usr/share/man/manN/NAME.N.gz (the English page: it says which package a
                               translated page of manpages-l10n belongs to), and the package's own
                               translations, usr/share/man/LANG/manN/NAME.N.gz (dpkg, apt, debconf)
                copied to CACHE/docs/PACKAGE/<path in the .deb>, listed in CACHE/docs/PACKAGE.json
    manpages    manpages-LANG (manpages-l10n) .debs: usr/share/man/LANG/manN/*.gz to CACHE/docs/manpages-LANG/
    entities    KDE manuals write &kde;, &Ctrl;, &eg;: kdoctools5 (on the list) declares them per language

This module does not know how a page is aligned or how the corpus is split (docs_corpus.py does).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Callable

from ..errors import CorpusError
from . import debian

RESERVED_LIST = "reserved-docs-packages.txt"
ENGLISH_DIRS = ("C", "en")  # the folder names of the untranslated pages
_HELP = (
    r"usr/share/help/(?P<l1>[^/]+)/(?P<a1>[^/]+)/(?:[^/]+/)*[^/]+\.(?:page|xml|docbook)",
    r"usr/share/gnome/help/(?P<a2>[^/]+)/(?P<l2>[^/]+)/(?:[^/]+/)*[^/]+\.(?:page|xml|docbook)",
    r"usr/share/doc/HTML/(?P<l3>[^/]+)/(?P<a3>[^/]+)/(?:[^/]+/)*[^/]+\.docbook",
)
_ENGLISH_MAN = re.compile(r"usr/share/man/man[1-9][a-z0-9]*/[^/]+\.[1-9][a-z0-9]*\.gz")
_TRANSLATED_MAN = re.compile(r"usr/share/man/(?P<lang>[a-z]{2,3})/man[1-9][a-z0-9]*/[^/]+\.[1-9][a-z0-9]*\.gz")
LAYOUT = 2  # what extract() copies; a cache extracted by an older one is read again


@dataclass(frozen=True)
class DocFiles:
    package: str
    source: str  # the Debian source package (the unit held out)
    langs: tuple[str, ...]  # the translations looked for when it was extracted
    help: tuple[str, ...]  # paths under CACHE/docs/PACKAGE/
    man: tuple[str, ...]  # the English man pages
    man_translated: tuple[str, ...] = ()  # the package's own translations of them (dpkg's, apt's)
    layout: int = 0  # LAYOUT when it was extracted


def read_reserved(path: Path | None = None) -> set[str]:
    """The packages whose documentation is reserved (the bundled list when `path` is None)."""
    if path is None:
        text = resources.files("traductor.training.data").joinpath(RESERVED_LIST).read_text(encoding="utf-8")
    else:
        if not Path(path).is_file():
            raise CorpusError(f"reserved package list not found: {path}")
        text = Path(path).read_text(encoding="utf-8")
    return {n for n in (line.split("#", 1)[0].strip() for line in text.splitlines()) if n}


def package_sources(names: list[str]) -> dict[str, str]:
    """Package -> Debian source, from `apt-cache show` (the package's control record; nothing is
    downloaded). Empty when apt-cache is not there: then each package is its own source."""
    if not names or shutil.which("apt-cache") is None:
        return {}
    out: dict[str, str] = {}
    for i in range(0, len(names), 200):
        done = subprocess.run(
            ["apt-cache", "show", "--no-all-versions", *names[i : i + 200]], capture_output=True, text=True
        )
        for record in done.stdout.split("\n\n"):
            name = re.search(r"^Package: (\S+)", record, re.M)
            source = re.search(r"^Source: (\S+)", record, re.M)
            if name:
                out[name.group(1)] = source.group(1) if source else name.group(1)
    return out


def blocked_sources(reserved: set[str], source_of: dict[str, str]) -> set[str]:
    return {source_of.get(r, r) for r in reserved} | reserved


def allowed(names: list[str], reserved: set[str], source_of: dict[str, str]) -> list[str]:
    """The packages whose documentation may be read: not reserved, not built from a reserved source."""
    blocked = blocked_sources(reserved, source_of)
    return [n for n in names if n not in reserved and source_of.get(n, n) not in blocked]


def help_language(path: str) -> tuple[str, str] | None:
    """(language folder, application) of a help page's path in a .deb, else None."""
    for pattern in _HELP:
        found = re.fullmatch(pattern, path)
        if found:
            groups = {k[0]: v for k, v in found.groupdict().items() if v is not None}
            return groups["l"], groups["a"]
    return None


def copy_files(deb: Path, wanted: Callable[[str], bool], target: Path) -> list[str]:
    """Copy the regular files of a .deb whose path `wanted` accepts to target/<path>; their paths."""
    copied = []
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                path = member.name.lstrip("./")
                if member.isfile() and wanted(path):
                    (target / path).parent.mkdir(parents=True, exist_ok=True)
                    (target / path).write_bytes(tar.extractfile(member).read())
                    copied.append(path)
    if proc.returncode != 0:
        raise CorpusError(f"{deb}: dpkg-deb could not read its contents")
    return sorted(copied)


def extract(deb: Path, langs: tuple[str, ...], out_dir: Path, blocked: set[str]) -> DocFiles:
    """Copy the English and LANGS help pages and the English man pages of one .deb (none of a
    package whose name or source is blocked: its control fields are all that is read)."""
    fields = debian._control(deb)
    name = fields.get("Package") or deb.name.split("_", 1)[0]
    source = fields.get("Source", name).split(" ", 1)[0]
    if name in blocked or source in blocked:  # checked again on the .deb itself: its files are not read
        return DocFiles(name, source, tuple(sorted(langs)), (), ())
    wanted = set(ENGLISH_DIRS) | set(langs)

    def translated_man(path: str) -> bool:
        found = _TRANSLATED_MAN.fullmatch(path)
        return bool(found and found.group("lang") in langs)

    def is_doc(path: str) -> bool:
        found = help_language(path)
        return bool(found and found[0] in wanted) or bool(_ENGLISH_MAN.fullmatch(path)) or translated_man(path)

    files = copy_files(deb, is_doc, out_dir / name)
    return DocFiles(
        name,
        source,
        tuple(sorted(langs)),
        tuple(f for f in files if help_language(f)),
        tuple(f for f in files if _ENGLISH_MAN.fullmatch(f)),
        tuple(f for f in files if translated_man(f)),
        LAYOUT,
    )


def extract_all(
    names: list[str],
    debs_dir: Path,
    out_dir: Path,
    langs: tuple[str, ...],
    blocked: set[str],
    progress: Callable[[int], None] = lambda n: None,
) -> dict[str, DocFiles]:
    """Extract every cached package once (its .json marks it done for those languages)."""
    out_dir.mkdir(parents=True, exist_ok=True)

    def one(name: str) -> DocFiles | None:
        marker = out_dir / f"{name}.json"
        info = None
        if marker.is_file():
            saved = json.loads(marker.read_text())
            info = DocFiles(**{k: tuple(v) if isinstance(v, list) else v for k, v in saved.items()})
            if not set(langs) <= set(info.langs):
                info = None
            elif info.layout != LAYOUT:  # only a package with English man pages has translations of them
                info = replace(info, layout=LAYOUT) if not info.man else None
                if info:
                    marker.write_text(json.dumps(asdict(info)) + "\n")
        if info is None:
            deb = debian.deb_for(debs_dir, name)
            if deb is None:
                progress(1)
                return None
            info = extract(deb, langs, out_dir, blocked)
            marker.write_text(json.dumps(asdict(info)) + "\n")
        progress(1)
        return info

    with ThreadPoolExecutor(2) as pool:
        infos = list(pool.map(one, names))
    return {i.package: i for i in infos if i is not None and i.source not in blocked}


KDE_ENTITIES_PACKAGE = "kdoctools5"  # KDE's documentation entities (&kde;, &Ctrl;, &eg;), per language
KDE_CUSTOMIZATION = "usr/share/kf5/kdoctools/customization"


def extract_kde_entities(deb: Path, langs: tuple[str, ...], out_dir: Path) -> Path:
    """The entity files of kdoctools (English, general, and `langs`): the folder they are in."""
    target = out_dir / KDE_ENTITIES_PACKAGE / KDE_CUSTOMIZATION
    folders = "|".join(re.escape(f) for f in sorted({"en", "entities", *langs}))
    pattern = re.compile(rf"{KDE_CUSTOMIZATION}/(?:{folders})/[^/]+\.entities")
    copy_files(deb, pattern.fullmatch, out_dir / KDE_ENTITIES_PACKAGE)
    return target


def manpages_package(lang: str) -> str:
    return f"manpages-{lang}"


def extract_manpages(deb: Path, lang: str, out_dir: Path) -> list[str]:
    """The translated man pages of a manpages-l10n .deb: paths under out_dir/manpages-LANG/."""
    pattern = re.compile(rf"usr/share/man/{re.escape(lang)}/man[1-9][a-z0-9]*/[^/]+\.gz")
    target_dir = out_dir / manpages_package(lang)
    marker = out_dir / f"{manpages_package(lang)}.json"
    if marker.is_file():
        return json.loads(marker.read_text())
    found = copy_files(deb, pattern.fullmatch, target_dir)
    marker.write_text(json.dumps(found) + "\n")
    return found
