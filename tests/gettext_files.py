"""Gettext catalogs and Debian packages written by the tests (never downloaded).

write_mo(path, entries)        a compiled .mo catalog, as msgfmt lays it out
make_deb(debs_dir, name, ...)  a real .deb built with `dpkg-deb --build`, holding .mo files at
                               the paths given and a control file with the fields given
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

HEADER = "Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=2; plural=(n != 1);\n"


def write_mo(path: Path, entries: list[tuple[str, str]], big_endian: bool = False, charset: str = "utf-8") -> Path:
    """A minimal gettext .mo writer: header (magic, revision, N, table offsets, empty hash table),
    the (length, offset) tables of originals and translations, then NUL-terminated strings."""
    order = ">" if big_endian else "<"
    entries = sorted(entries)  # msgfmt sorts by msgid; the header ("") comes first
    n = len(entries)
    orig_at, trans_at = 28, 28 + 8 * n
    data_at = trans_at + 8 * n
    blob, orig, trans = b"", [], []
    for table, index in ((orig, 0), (trans, 1)):
        for entry in entries:
            s = entry[index].encode(charset)
            table.append((len(s), data_at + len(blob)))
            blob += s + b"\0"
    out = struct.pack(order + "7I", 0x950412DE, 0, n, orig_at, trans_at, 0, data_at)
    out += b"".join(struct.pack(order + "2I", *e) for e in orig + trans) + blob
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(out)
    return Path(path)


def make_deb(
    debs_dir: Path,
    name: str,
    catalogs: dict[str, list[tuple[str, str]]],
    section: str = "utils",
    depends: str = "libc6",
    source: str | None = None,
    desktop: bool = False,
    charset: str = "utf-8",
) -> Path:
    """Build NAME_1.0_all.deb in debs_dir; `catalogs` maps a path inside the package to entries."""
    root = debs_dir.parent / "deb-src" / name
    (root / "DEBIAN").mkdir(parents=True, exist_ok=True)
    control = [
        f"Package: {name}",
        "Version: 1.0",
        "Architecture: all",
        "Maintainer: Tests <t@example.org>",
        f"Section: {section}",
        f"Depends: {depends}",
        f"Description: test package {name}",
    ]
    if source:
        control.insert(1, f"Source: {source}")
    (root / "DEBIAN" / "control").write_text("\n".join(control) + "\n")
    for path, entries in catalogs.items():
        write_mo(root / path, [("", HEADER.replace("UTF-8", charset.upper()))] + entries, charset=charset)
    if desktop:
        (root / "usr/share/applications").mkdir(parents=True, exist_ok=True)
        (root / "usr/share/applications" / f"{name}.desktop").write_text("[Desktop Entry]\nName=x\n")
    debs_dir.mkdir(parents=True, exist_ok=True)
    out = debs_dir / f"{name}_1.0_all.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(root), str(out)], check=True, capture_output=True)
    return out
