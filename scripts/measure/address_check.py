"""How text/address.py reads real translations whose register is known: every message of the
allowed Debian packages' catalogs in one language, as `traductor corpus` extracted them (its cache,
~/.cache/traductor/debian/mo/LANG/PACKAGE/*.mo: only the packages of debian-es-catalogs.txt), read
with its English msgid. A reader that calls a catalog message "mixed" is wrong (catalogs do not mix
registers); the counts say which register each language's catalogs use.

    python scripts/measure/address_check.py --lang it [--cache DIR] [--show-mixed 5]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import polib

from traductor.text import address

DEFAULT_CACHE = Path.home() / ".cache" / "traductor" / "debian" / "mo"


def messages(folder: Path):
    """(msgid, msgstr) of every translated singular message of every catalog under `folder`."""
    for mo in sorted(folder.rglob("*.mo")):
        try:
            catalog = polib.mofile(str(mo))
        except (OSError, ValueError) as error:
            print(f"skipped {mo}: {error}")
            continue
        for entry in catalog:
            if entry.msgid and entry.msgstr and not entry.msgid_plural:
                yield mo.parent.name, entry.msgid, entry.msgstr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", required=True, help="a catalog folder's language: it, nl, pt_BR, ru, es, fr, de")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--show-mixed", type=int, default=5, help="print this many messages read as mixed")
    args = ap.parse_args()
    folder = args.cache / args.lang
    if not folder.is_dir():
        raise SystemExit(f"address_check: no extracted catalogs at {folder} (run traductor corpus --lang {args.lang})")
    language = args.lang.replace("_", "-")
    counts: Counter = Counter()
    packages: dict[str, Counter] = {}
    mixed = []
    for package, msgid, msgstr in messages(folder):
        reading = address.read(msgstr, language, msgid)
        counts[reading] += 1
        packages.setdefault(reading, Counter())[package] += 1
        if reading == address.MIXED and len(mixed) < args.show_mixed:
            mixed.append((package, msgid, msgstr))
    report = {
        "language": language,
        "messages": sum(counts.values()),
        "readings": dict(counts),
        "packages_by_reading": {r: len(p) for r, p in packages.items()},
        "mixed_examples": mixed,
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
