"""How well `/detect` and `source=auto` (service/http/detect.py) name the language of a text among
the languages the packaged models translate from (en, es, fr, de, once the models into English
are served): the figures of docs/languages.md, "Among the packaged languages".

Test text: the test splits of `traductor corpus --lang LANG --into-english` (held-out packages,
never trained on), the LANG side and the English side of each, N messages of each language drawn
with a fixed seed; English is drawn from every split together. A message is scored right when the
detector's first answer is its language; accuracy is given per language and per length (words).

    python scripts/measure/detect_served.py work/corpus-es-en work/corpus-fr-en work/corpus-de-en \
        --out docs/model/detect-served.json
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

from traductor.languages import ENGLISH
from traductor.service.http.detect import detect
from traductor.training.corpus import languages, load_split

LENGTHS = ((1, 2), (3, 5), (6, 1000))  # words


def samples(corpora: list[Path], n: int, seed: int) -> dict[str, list[str]]:
    """language -> n test messages (its side of each corpus; English from all of them)."""
    by_language: dict[str, list[str]] = defaultdict(list)
    for corpus in corpora:
        pair = languages(corpus)
        for p in load_split(corpus / "test.tsv"):
            by_language[pair["source"]].append(p.source)
            by_language[pair["target"]].append(p.target)
    rng = random.Random(seed)
    return {lang: rng.sample(sorted(set(texts)), min(n, len(set(texts)))) for lang, texts in by_language.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="+", type=Path, help="`traductor corpus --into-english` directories")
    ap.add_argument("--n", type=int, default=1000, help="messages per language")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    tests = samples(args.corpora, args.n, args.seed)
    served = sorted(tests, key=lambda code: (code != ENGLISH, code))  # the sources a server of them shows
    right, total = defaultdict(int), defaultdict(int)
    by_length_right, by_length_total = defaultdict(int), defaultdict(int)
    confusions: dict[str, dict[str, int]] = {lang: defaultdict(int) for lang in served}
    for lang, texts in tests.items():
        for text in texts:
            found = detect(text, served)[0]["language"]
            words = len(text.split())
            band = next(f"{lo}-{hi}" if hi < 1000 else f"{lo}+" for lo, hi in LENGTHS if lo <= words <= hi)
            ok = found == lang
            right[lang] += ok
            total[lang] += 1
            by_length_right[band] += ok
            by_length_total[band] += 1
            if not ok:
                confusions[lang][found] += 1
    report = {
        "served": served,
        "per_language": {lang: {"right": right[lang] / total[lang], "tested": total[lang]} for lang in served},
        "by_words": {band: {"right": by_length_right[band] / by_length_total[band], "tested": by_length_total[band]}
                     for band in by_length_total},
        "taken_for": {lang: dict(found) for lang, found in confusions.items()},
        "all": sum(right.values()) / sum(total.values()),
    }  # fmt: skip
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
