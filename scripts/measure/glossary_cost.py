"""The cost of glossaries (docs/glossary.md, figure b): throughput with 0, 1 and 5 terms per text,
one text at a time (batch 1) and 32 calls at once (batch 32, continuous batching).

    python scripts/measure/glossary_cost.py CORPUS/test.tsv [--texts 64] [--rounds 3] [--stats STATS] \
        [--out report.json]

The served path without gRPC: a service started in this process (engine thread, one ONNX Runtime
thread, no translation memory) and `service/pipeline`'s `translate` on its default model's engine, each
call with its own glossary. Texts: test-split lines of 6 to 20 words. A text's k terms are its
first k distinct words of 4 letters or more (not function words), each mapped to a made-up
target ("KTERM0" ...), so the own word is replaced where the model's translation of the word
alone is in the sentence (pass 1) and the text is translated again with its terms masked where
it is not (pass 2).

    none    no glossary
    0       a glossary of 5 terms, none of them in the text
    1, 5    a glossary of 1 or 5 terms of the text

A second set, "terminology": the lines of the held-out packages (--stats) holding a term of
figure (a)'s glossary (11 software nouns, glossary_terms.py), without it and with it ("terms").

Rounds alternate the conditions (none, 0, 1, 5, none, ...) and each condition's figure is its
median round. tokens/s counts the tokens of the translations without a glossary (the same work
delivered in every condition) over the wall time; also texts/s, the share of texts that needed
pass 2 and the tokens actually decoded. The own translations of the terms are made once, in a
warm-up round (a glossary in use keeps them), as in a server that has seen its glossary before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path

from traductor.engine.bundle import scan
from traductor.glossary import Glossary
from traductor.options import DecodingOptions
from traductor.packaged import MODELS_DIR
from traductor.service import pipeline
from traductor.service.server import start
from traductor.service.settings import Settings

sys.path.insert(0, str(Path(__file__).parent))
from glossary_terms import TERMS  # noqa: E402

CONDITIONS = ("none", "0", "1", "5")
# figure (a)'s glossary (scripts/measure/glossary_terms.py), on the held-out lines holding its terms
TERMINOLOGY = Glossary("en", "es", tuple(TERMS.items()))
_WORD = re.compile(r"[A-Za-z]{4,}")
# function words are no terms (their translations, "de", "que", stand everywhere)
STOP = set(
    "this that with from have will were been into your their there which when what than then them they these "
    "those would could should about only also does each some such more most other over under after before must "
    "here where while being cannot".split()
)


def glossary_for(text: str, condition: str) -> Glossary | None:
    if condition == "none":
        return None
    if condition == "terms":
        return TERMINOLOGY
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text) if w.lower() not in STOP))
    if condition == "0":
        return Glossary("en", "es", tuple((f"zzabsent{i}", f"KTERM{i}") for i in range(5)))
    k = int(condition)
    return Glossary("en", "es", tuple((w, f"KTERM{i}") for i, w in enumerate(words[:k])))


async def run(engine, lines: list[str], condition: str, batch: int) -> tuple[float, list]:
    options = DecodingOptions()
    started = time.perf_counter()
    results: list = []
    for begin in range(0, len(lines), batch):
        chunk = lines[begin : begin + batch]
        calls = [
            pipeline.translate(engine, t, options, f"c{begin + i}", glossary=glossary_for(t, condition))
            for i, t in enumerate(chunk)
        ]
        results += await asyncio.gather(*calls)
    return time.perf_counter() - started, results


async def figure(engine, lines: list[str], conditions: tuple[str, ...], rounds: int) -> dict:
    """One set of texts: each condition's first use, then its median over alternating rounds."""
    cold, (_, base) = {}, await run(engine, lines, "none", 32)
    for condition in conditions[1:]:  # warm-up: the terms' own translations (a new glossary)
        cold[condition] = round((await run(engine, lines, condition, 32))[0], 2)
    useful = sum(len(e.token_ids) for e in base)
    report: dict = {"texts": len(lines), "baseline_tokens": useful, "rounds": rounds}
    report["first_use_s_batch_32"] = cold
    for batch in (1, 32):
        seconds: dict = {c: [] for c in conditions}
        decoded, second = {}, {}
        for _ in range(rounds):
            for condition in conditions:
                elapsed, events = await run(engine, lines, condition, batch)
                seconds[condition].append(elapsed)
                decoded[condition] = sum(len(e.token_ids) for e in events)
                second[condition] = sum(len(e.token_ids) > len(b.token_ids) for e, b in zip(events, base))
        report[f"batch {batch}"] = {
            c: {
                "tokens_per_s": round(useful / statistics.median(s), 1),
                "texts_per_s": round(len(lines) / statistics.median(s), 2),
                "decoded_tokens": decoded[c],
                "texts_in_pass_2": second[c],
                "rounds_s": [round(x, 2) for x in s],
            }
            for c, s in seconds.items()
        }
    return report


async def measure(args) -> dict:
    rows = [line.rstrip("\n").split("\t") for line in args.test.open(encoding="utf-8")]
    words = [r[0] for r in rows if 6 <= len(r[0].split()) <= 20 and len(set(_WORD.findall(r[0].lower())) - STOP) >= 5]
    keep = set(json.loads(args.stats.read_text())["test_packages"]) if args.stats else None
    held_out = [r[0] for r in rows if keep is None or (len(r) > 2 and r[2] in keep)]
    terminology = [t for t in held_out if TERMINOLOGY.find(t)]
    settings = Settings(
        model=str(scan(MODELS_DIR)[args.model]),
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        threads=1,
        engine_process=False,
        use_memory=False,
        max_queued_requests=256,
    )
    service = await start(settings)
    engine = service.registry.default.engine
    try:
        return {
            "terms per text": await figure(engine, words[: args.texts], CONDITIONS, args.rounds),
            "terminology": await figure(engine, terminology, ("none", "terms"), args.rounds),
        }
    finally:
        await service.server.stop(None)
        service.registry.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("test", type=Path)
    parser.add_argument("--model", default="en-es")
    parser.add_argument("--texts", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--stats", type=Path, help="a corpus stats.json: the terminology set from its test_packages")
    args = parser.parse_args()
    report = asyncio.run(measure(args))
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
