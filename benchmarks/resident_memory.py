"""Resident memory of a bundle as the engine serves it: load, translate a batch, read /proc.

    python benchmarks/resident_memory.py BUNDLE [--batch 8] [--threads 2]

Run it once per bundle (a fresh process each time: resident memory only grows). Loads the bundle
as `traductor serve` does (load_bundle, then the ModelRunner's two sessions), runs `batch`
random sources of 24 tokens for 32 greedy steps through the engine's scheduler, and prints one
JSON line: the bundle's files on disk, then the process's resident memory (VmRSS, of which
anonymous RssAnon and file-backed RssFile: weights the kernel maps from the bundle's files, shared
with every process that maps them and dropped under memory pressure) and its peak (VmHWM), in MiB,
after loading and after translating. Linux only (/proc/self/status).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from traductor.bench.engine import NEW_TOKENS, sources
from traductor.engine.bundle import load_bundle
from traductor.engine.runner import ModelRunner
from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import drive
from traductor.options import DecodingOptions

FIELDS = ("VmRSS", "RssAnon", "RssFile", "VmHWM")


def resident() -> dict[str, int]:
    """This process's memory figures of FIELDS, in MiB."""
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in FIELDS:
            values[key] = int(rest.split()[0]) // 1024
    return values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    bundle = load_bundle(args.bundle, tokenizer=False)
    files = {f: round(bundle.file(f).stat().st_size / 2**20) for f in bundle.graph_files}
    runner = ModelRunner(bundle, threads=args.threads, max_rows=args.batch)
    loaded = resident()
    scheduler = Scheduler(runner, None, max_rows=args.batch, max_queue=args.batch)
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
    drive(scheduler, [(s, [], options) for s in sources(bundle.vocab_size, args.batch)])
    print(json.dumps({"bundle": str(args.bundle), "files_mib": files, "loaded": loaded, "served": resident()}))


if __name__ == "__main__":
    main()
