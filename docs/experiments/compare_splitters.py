"""Compare sentence splitters on real English messages from the allowed Debian catalogs.

    nice -n 19 python docs/experiments/compare_splitters.py [--debs /work/debcache] [--n 400]

What it does:
1. extracts usr/share/locale/es/LC_MESSAGES/*.mo from every .deb in --debs (only those: the
   allowed packages of shared/data/debian-es-catalogs.txt) into a temporary directory;
2. takes the English msgids (one line of a multi-line msgid at a time) that contain a possible
   sentence end in the middle (".", "!" or "?" then a space) and no "<" (the text layer takes
   markup out before the splitter sees a text), de-duplicated, sorted, and keeps a
   deterministic sample of --n of them (by a hash of the text, so the same .debs give the same set);
3. splits each with a gold rule (below) and with each candidate; reports exact-match accuracy
   (the whole list of sentences must equal the gold one) and throughput (messages per second of
   one thread's CPU time, median of --repeat runs, the candidates taking turns; see `timings`).

The gold rule: a sentence ends after ".", "!" or "?" (plus closing quotes/brackets) followed by
whitespace and then an uppercase letter, a digit, a placeholder ("%s") or an opening
quote/bracket, unless the word
before the period is a known abbreviation ("e.g.", "i.e.", "etc.", "vs.", "Mr." ...) or an
initial (one uppercase letter), or the punctuation stands alone between spaces ("0 .. 59"), or
ends a list number at the start ("3. Select"). A lowercase word after the full stop continues
the sentence, except in the messages of FIXES, where reading showed the rule wrong. `--show K` prints K
random messages with their gold split to check the rule by hand; `--disagree` prints every
message where a candidate differs from the gold split.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "server"))
from traductor.errors import CorpusError  # noqa: E402
from traductor.training.corpus import read_mo  # noqa: E402

# Compared with the case as written: "no. 5" is an abbreviation, "No. The file..." is a sentence.
ABBREVIATIONS = {
    "e.g",
    "E.g",
    "i.e",
    "eg",
    "ie",
    "etc",
    "vs",
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
    "no",
    "approx",
    "cf",
    "fig",
    "St",
    "Inc",
    "Ltd",
}
_CANDIDATE = re.compile(r"[.!?]['\")\]]*\s+\S")
_END = re.compile(r"([.!?]+['\")\]]*)(\s+)(?=[A-Z0-9\"'(\[%])")
_LIST_NUMBER = re.compile(r"\d+\.")
# Checked by hand: messages where the rule is wrong (found by reading every message on which a
# candidate and the rule disagree). A lowercase word can start a sentence in program messages.
FIXES = {
    "--body-file=FILE            send contents of FILE. --method MUST be set": 1,
    "Cannot specify a label if relabelling is turned off. model=%s": 1,
    "Ignoring grob for slur: %s.  avoid-slur not set?": 1,
    "list: lists repositories and their status. option = [all | id | glob]": 1,
    'the file "%s" does already exist. overwrite ?': 1,
    "x11osd: error creating window. unscaled overlay disabled.": 1,
    "w32codec: DMO_VideoDecoder failed! unknown codec %08lx / wrong parameters?": 1,
    "320x? (automatic height)": 0,
    "Tooltip timeout in ms. (0 for default, -1 to use GTK tooltips - restart needed)": 0,
    "[%d(%d)/...] Resolving dependencies": 0,
}


def gold_split(text: str) -> list[str]:
    """The reference split of one line (the rule of the module docstring, then FIXES)."""
    if text in FIXES:
        fix = FIXES[text]  # 1: cut after the first ". " / "! " / "? "; 0: one sentence
        if not fix:
            return [text]
        m = re.search(r"[.!?]\s+", text)
        return [text[: m.start() + 1], text[m.end() :]]
    cuts = []
    for m in _END.finditer(text):
        if m.start() == 0 or text[m.start() - 1].isspace():
            continue  # punctuation standing alone ("0 .. 59") ends nothing
        word = text[: m.start()].split()[-1].strip("([\"'").rstrip(".")
        if m.group(1) == "." and (word in ABBREVIATIONS or (len(word) == 1 and word.isupper())):
            continue  # an abbreviation or an initial ("W. Saastad")
        if _LIST_NUMBER.fullmatch(text[: m.end(1)].strip()):
            continue  # "3. Select the file": a numbered item
        cuts.append(m.end(1))
    pieces, start = [], 0
    for cut in cuts:
        pieces.append(text[start:cut].strip())
        start = cut
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def extract(debs: Path, out: Path) -> list[Path]:
    for deb in sorted(debs.glob("*.deb")):
        dest = out / deb.name
        dest.mkdir()
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        subprocess.run(
            ["tar", "-x", "-C", str(dest), "--wildcards", "./usr/share/locale/es/LC_MESSAGES/*.mo"],
            stdin=tar.stdout,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        tar.wait()
    return sorted(out.glob("*/usr/share/locale/es/LC_MESSAGES/*.mo"))


def messages(mo_files: list[Path], n: int) -> list[str]:
    lines = set()
    for mo in mo_files:
        try:
            pairs = read_mo(mo)
        except CorpusError:
            continue
        for msgid, _ in pairs:
            for line in msgid.split("\n"):
                line = line.strip()
                if 20 <= len(line) <= 600 and _CANDIDATE.search(line) and "<" not in line:
                    lines.add(line)
    ranked = sorted(lines, key=lambda s: hashlib.sha256(s.encode()).hexdigest())
    return sorted(ranked[:n])


def candidates() -> dict:
    import blingfire
    import pysbd
    import sentencex

    seg = pysbd.Segmenter(language="en", clean=False)
    return {
        f"pysbd {version('pysbd')}": seg.segment,
        f"sentencex {version('sentencex')}": lambda t: list(sentencex.segment("en", t)),
        f"blingfire {version('blingfire')}": lambda t: blingfire.text_to_sentences(t).split("\n"),
    }


def timings(splitters: dict, sample: list[str], repeat: int) -> dict[str, list[float]]:
    """CPU seconds of this thread to split the whole sample, `repeat` times per splitter.

    The machine is shared, so wall time mostly measures the neighbours: CPU time of the thread
    does not count the time it waits for a core. The splitters also take turns every 20
    messages, so a busy moment (caches, frequency) falls on all of them alike.
    """
    times: dict[str, list[float]] = {name: [] for name in splitters}
    for _ in range(repeat):
        total = dict.fromkeys(splitters, 0.0)
        for i in range(0, len(sample), 20):
            for name, split in splitters.items():
                t0 = time.thread_time()
                for text in sample[i : i + 20]:
                    split(text)
                total[name] += time.thread_time() - t0
        for name in splitters:
            times[name].append(total[name])
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--debs", type=Path, default=Path("/work/debcache"))
    ap.add_argument("--mo-dir", type=Path, help="reuse a directory the .debs were already extracted into")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--disagree", action="store_true")
    args = ap.parse_args()
    if args.mo_dir:
        mo_files = sorted(args.mo_dir.glob("*/usr/share/locale/es/LC_MESSAGES/*.mo"))
        sample = messages(mo_files, args.n)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            mo_files = extract(args.debs, Path(tmp))
            sample = messages(mo_files, args.n)
    gold = [gold_split(t) for t in sample]
    multi = sum(len(g) >= 2 for g in gold)
    print(f"{len(mo_files)} catalogs, {len(sample)} messages ({multi} with 2+ gold sentences)")
    for i in range(args.show):
        k = int(hashlib.sha256(str(i).encode()).hexdigest(), 16) % len(sample)
        print("SHOW", gold[k])
    splitters = candidates()
    times = timings(splitters, sample, args.repeat)
    fastest = min(statistics.median(v) for v in times.values())
    print("| splitter | exact match, all | exact match, 2+ sentences | messages per CPU second | CPU time vs fastest |")
    print("|---|---|---|---|---|")
    for name, split in splitters.items():
        got = [[s.strip() for s in split(t) if s.strip()] for t in sample]
        ok = [g == w for g, w in zip(got, gold)]
        ok_multi = [o for o, w in zip(ok, gold) if len(w) >= 2]
        med = statistics.median(times[name])
        print(
            f"| {name} | {sum(ok)}/{len(ok)} ({100 * sum(ok) / len(ok):.1f}%) | "
            f"{sum(ok_multi)}/{len(ok_multi)} ({100 * sum(ok_multi) / max(1, len(ok_multi)):.1f}%) | "
            f"{len(sample) / med:,.0f} | {med / fastest:.1f}x |"
        )
        if args.disagree:
            for t, g, w in zip(sample, got, gold):
                if g != w:
                    print(f"  DIFF {name}: {t!r}\n    got  {g}\n    gold {w}")


if __name__ == "__main__":
    main()
