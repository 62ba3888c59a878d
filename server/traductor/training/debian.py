"""Debian packages -> their gettext catalogs, without installing anything.

    package list   one name a line (`#` comments), default: data/debian-es-catalogs.txt
    download       `apt-get download NAME...` into CACHE/debs/ (skipped for a .deb already there,
                   so a second run works offline)
    extract        only the .mo files under a LANG/LC_MESSAGES/ folder of each .deb (the system's
                   usr/share/locale or a program's own locale folder), read from
                   `dpkg-deb --fsys-tarfile`, copied to CACHE/mo/LANG/PACKAGE/DOMAIN.mo
    describe       the package's control fields (Source, Section, Depends) and whether it ships
                   .desktop files, saved beside them as CACHE/mo/LANG/PACKAGE.json
    kind           command-line, gtk (GTK/GNOME/Xfce/MATE), kde-qt, or other: from the control
                   fields, and shared by every package built from the same Debian source

This module does not know what a pair is or how the corpus is split (corpus.py does); it only
turns package names into catalog files plus a description of each package.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable

from .corpus import CorpusError

PACKAGE_LIST = "debian-es-catalogs.txt"
KINDS = ("command-line", "gtk", "kde-qt", "other")

_KDE_QT = re.compile(
    r"\b(libkf5\w*|libkf6\w*|libqt5\w*|libqt6\w*|qml6?-module\w*|libkdecorations\w*|plasma\w*|kio\b|"
    r"python3-pyqt[56]\w*|python3-pyside\w*)"
)
_GTK = re.compile(
    r"\b(libgtk\w*|libgtk-\d\w*|gir1\.2-gtk\w*|libadwaita\w*|libxfce4\w*|libmate\w*|libgnome\w*|"
    r"libwnck\w*|gnome-\w+|libpanel-applet\w*|libcinnamon\w*|libgdk-pixbuf\w*|python3-gi\b|libhandy\w*)"
)
_GUI_SECTIONS = {"kde": "kde-qt", "gnome": "gtk", "xfce": "gtk"}
_CLI_SECTIONS = {
    "utils",
    "admin",
    "devel",
    "net",
    "shells",
    "text",
    "vcs",
    "mail",
    "editors",
    "interpreters",
    "libs",
    "otherosfs",
    "database",
    "httpd",
    "perl",
    "python",
    "ruby",
    "web",
    "science",
    "misc",
}


@dataclass(frozen=True)
class PackageInfo:
    name: str
    source: str
    section: str
    depends: str
    desktop_files: int
    catalogs: tuple[str, ...]  # the .mo file names extracted, e.g. ("coreutils.mo",)


def read_package_list(path: Path | None = None) -> list[str]:
    """Package names from a list file (the bundled list when `path` is None)."""
    if path is None:
        text = resources.files("traductor.training.data").joinpath(PACKAGE_LIST).read_text(encoding="utf-8")
    else:
        if not Path(path).is_file():
            raise CorpusError(f"package list not found: {path}")
        text = Path(path).read_text(encoding="utf-8")
    names = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    names = [n for n in names if n]
    bad = [n for n in names if not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", n)]
    if bad:
        raise CorpusError(f"{path or PACKAGE_LIST}: not Debian package names: {', '.join(bad[:5])}")
    if not names:
        raise CorpusError(f"{path or PACKAGE_LIST} lists no packages")
    return sorted(set(names))


def deb_for(debs_dir: Path, name: str) -> Path | None:
    """The cached .deb of a package (apt names them NAME_VERSION_ARCH.deb), if any."""
    found = sorted(debs_dir.glob(f"{name}_*.deb"))
    return found[-1] if found else None


def download(names: list[str], debs_dir: Path, progress: Callable[[int], None] = lambda n: None) -> list[str]:
    """`apt-get download` the packages that are not cached yet; returns the names that failed."""
    debs_dir.mkdir(parents=True, exist_ok=True)
    missing = [n for n in names if deb_for(debs_dir, n) is None]
    progress(len(names) - len(missing))
    if missing and shutil.which("apt-get") is None:
        raise CorpusError(f"{len(missing)} packages are not in {debs_dir} and apt-get is not available to fetch them")
    failed: list[str] = []

    def fetch(chunk: list[str]) -> None:
        done = subprocess.run(["apt-get", "download", "-q", *chunk], cwd=debs_dir, capture_output=True, text=True)
        if done.returncode != 0:  # one bad name fails the whole call: retry one by one
            for name in chunk:
                if deb_for(debs_dir, name) is None:
                    one = subprocess.run(["apt-get", "download", "-q", name], cwd=debs_dir, capture_output=True)
                    if one.returncode != 0:
                        failed.append(name)
        progress(len(chunk))

    chunks = [missing[i : i + 20] for i in range(0, len(missing), 20)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(fetch, chunks))
    return sorted(failed)


def _control(deb: Path) -> dict[str, str]:
    out = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Package", "Source", "Section", "Depends", "Pre-Depends"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise CorpusError(f"{deb}: not a readable .deb ({out.stderr.strip()})")
    fields, key = {}, None
    for line in out.stdout.splitlines():
        if line[:1].isspace() and key:
            fields[key] += " " + line.strip()
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def extract(deb: Path, lang: str, out_dir: Path) -> PackageInfo:
    """Copy the LANG catalogs of one .deb into out_dir/PACKAGE/ and describe the package."""
    fields = _control(deb)
    name = fields.get("Package") or deb.name.split("_", 1)[0]
    wanted = re.compile(rf"(?:^|/){re.escape(lang)}/LC_MESSAGES/([^/]+\.mo)$")
    target = out_dir / name
    catalogs, desktop = [], 0
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                path = member.name.lstrip("./")
                if path.endswith(".desktop") and path.startswith("usr/share/applications/"):
                    desktop += 1
                found = wanted.search(path) if member.isfile() else None
                if found:
                    target.mkdir(parents=True, exist_ok=True)
                    stem, n = found.group(1)[:-3], 1
                    while f"{stem}.mo" in catalogs:  # two catalogs of one name in different folders
                        stem, n = f"{found.group(1)[:-3]}-{n}", n + 1
                    (target / f"{stem}.mo").write_bytes(tar.extractfile(member).read())
                    catalogs.append(f"{stem}.mo")
    if proc.returncode != 0:
        raise CorpusError(f"{deb}: dpkg-deb could not read its contents")
    source = fields.get("Source", name).split(" ", 1)[0]
    return PackageInfo(
        name,
        source,
        fields.get("Section", ""),
        " ".join(filter(None, (fields.get("Depends"), fields.get("Pre-Depends")))),
        desktop,
        tuple(sorted(catalogs)),
    )


def extract_all(
    names: list[str], debs_dir: Path, mo_dir: Path, lang: str, progress: Callable[[int], None] = lambda n: None
) -> dict[str, PackageInfo]:
    """Extract every cached package once (the .json beside its folder marks it done)."""
    mo_dir.mkdir(parents=True, exist_ok=True)

    def one(name: str) -> PackageInfo | None:
        marker = mo_dir / f"{name}.json"
        if marker.is_file():
            saved = json.loads(marker.read_text())
            info = PackageInfo(**{**saved, "catalogs": tuple(saved["catalogs"])})
        else:
            deb = deb_for(debs_dir, name)
            if deb is None:
                progress(1)
                return None
            info = extract(deb, lang, mo_dir)
            marker.write_text(json.dumps(asdict(info)) + "\n")
        progress(1)
        return info

    with ThreadPoolExecutor(2) as pool:
        infos = list(pool.map(one, names))
    return {info.name: info for info in infos if info is not None}


def own_kind(info: PackageInfo) -> str | None:
    """The kind the package's own control fields show, or None when they show nothing."""
    if _KDE_QT.search(info.depends) or _GUI_SECTIONS.get(info.section.split("/")[-1]) == "kde-qt":
        return "kde-qt"
    if _GTK.search(info.depends) or _GUI_SECTIONS.get(info.section.split("/")[-1]) == "gtk":
        return "gtk"
    if info.desktop_files or info.section.split("/")[-1] in ("games", "x11", "graphics", "sound", "video"):
        return "other"
    if info.section.split("/")[-1] in _CLI_SECTIONS and info.depends:
        return "command-line"
    return None


def kinds(infos: Iterable[PackageInfo]) -> dict[str, str]:
    """Package -> kind; packages of one Debian source share the most graphical kind among them."""
    by_source: dict[str, list[PackageInfo]] = {}
    for info in infos:
        by_source.setdefault(info.source, []).append(info)
    rank = {"kde-qt": 0, "gtk": 1, "other": 2, "command-line": 3}
    out = {}
    for members in by_source.values():
        found = [k for k in (own_kind(m) for m in members) if k]
        kind = min(found, key=rank.__getitem__) if found else "other"
        for m in members:
            out[m.name] = kind
    return out
