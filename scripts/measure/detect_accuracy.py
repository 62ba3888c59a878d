"""How well `/detect` (service/http/detect.py) names the language of software messages when an
NLLB bundle's 200-odd sources are served: the figures of docs/languages.md.

Test text: the translations (msgstr) in catalogs of the Debian packages of
data/debian-es-catalogs.txt (the project's data rule: no other catalog is read), in a few
languages, and their English msgids. The packages come from a `traductor corpus` cache
(--cache CACHE/debs, as `traductor corpus --cache CACHE` leaves it). Each message is one test,
scored right when the detector's first answer is its language; accuracy is given per language
and per length (words).

    python scripts/measure/detect_accuracy.py --cache ~/.cache/traductor/debian --out docs/model/detect.json
"""

from __future__ import annotations

import argparse
import gettext
import io
import json
import random
import re
import subprocess
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

from traductor.languages import CodeTable, tag
from traductor.service.http.detect import detect
from traductor.training.debian import deb_for, read_package_list

# a catalog folder (LANG of LANG/LC_MESSAGES) -> the language it is in
LANGUAGES = ["de", "fr", "es", "it", "pt_BR", "nl", "pl", "cs", "ru", "uk", "tr", "ja", "zh_CN", "ko", "ar"]
LENGTHS = ((1, 2), (3, 5), (6, 1000))  # words


def catalogs(deb: Path, langs: list[str]) -> dict[str, list[bytes]]:
    """The .mo files of `langs` inside one .deb, read in one pass."""
    wanted = re.compile(rf"(?:^|/)({'|'.join(map(re.escape, langs))})/LC_MESSAGES/[^/]+\.mo$")
    found: dict[str, list[bytes]] = defaultdict(list)
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                match = wanted.search(member.name) if member.isfile() else None
                if match:
                    found[match.group(1)].append(tar.extractfile(member).read())
    return found


def messages(mo: bytes) -> list[tuple[str, str]]:
    """(msgid, msgstr) of a compiled catalog, plural forms and the header left out; none for a
    catalog Python's gettext cannot read (an undeclared 8-bit charset, a broken plural rule)."""
    try:
        catalog = gettext.GNUTranslations(io.BytesIO(mo))._catalog
    except (UnicodeDecodeError, OSError, LookupError, ValueError):
        return []
    return [(k, v) for k, v in catalog.items() if isinstance(k, str) and k and v and v != k]


def usable(text: str) -> bool:
    return sum(c.isalpha() for c in text) >= 3 and "\n" not in text.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True, help="a `traductor corpus` cache (its debs/ folder)")
    parser.add_argument("--packages", type=int, default=120, help="read this many listed packages")
    parser.add_argument("--per-language", type=int, default=300, help="messages tested per language")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    table = CodeTable(FAIRSEQ_LANGUAGE_CODES)
    sources = [table.shown(c) for c in FAIRSEQ_LANGUAGE_CODES]  # NLLB's sources, as /languages shows them
    texts: dict[str, set[str]] = defaultdict(set)
    debs = [d for d in (deb_for(args.cache / "debs", n) for n in read_package_list()) if d is not None]
    for deb in debs[: args.packages]:
        for lang, files in catalogs(deb, LANGUAGES).items():
            for mo in files:
                for msgid, msgstr in messages(mo):
                    if usable(msgstr):
                        texts[tag(lang)].add(msgstr)
                    if usable(msgid):
                        texts["en"].add(msgid)
    rng = random.Random(0)
    results: dict = {"sources": len(sources), "packages": min(args.packages, len(debs)), "languages": {}}
    by_length: dict[str, list[int]] = defaultdict(list)
    for language in sorted(texts):
        own = table.own(language)
        expected = table.shown(own) if own else language
        sample = rng.sample(sorted(texts[language]), min(args.per_language, len(texts[language])))
        right = 0
        for text in sample:
            ok = detect(text, sources)[0]["language"] == expected
            right += ok
            words = len(text.split())
            bucket = next(f"{lo}-{hi}" if hi < 1000 else f"{lo}+" for lo, hi in LENGTHS if lo <= words <= hi)
            by_length[bucket].append(ok)
        results["languages"][expected] = {"tested": len(sample), "right": round(100 * right / len(sample), 1)}
        print(f"{expected:8} {len(sample):4} tested  {100 * right / len(sample):5.1f}% right", flush=True)
    results["by_words"] = {
        k: {"tested": len(v), "right": round(100 * sum(v) / len(v), 1)} for k, v in sorted(by_length.items())
    }
    print(json.dumps(results["by_words"]))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
