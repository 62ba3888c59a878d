"""Inline markup on the right words (docs/segmentation.md): what service/placed.py does to the
packaged models' translations of HTML sentences whose pair wraps a few words.

    python scripts/measure/markup_placement.py [--models en-es en-fr en-de] [--out report.json]

The served path without gRPC: a service started in this process (engine thread, no translation
memory) and `service/pipeline`'s `translate` (format html) on each model, each sentence twice: once with
the check switched off (pipeline/protect.pairs answering no pair: the model's own placement) and once
as served. Per sentence: both texts and whether the segment was counted `markup_unsure`; per
model: how many pairs were kept, moved or counted unsure. The sentences are hand-written (made-up
messages of the kind the issue describes), not a test split: the figures show behaviour, not a rate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from traductor.engine.bundle import scan
from traductor.options import DecodingOptions
from traductor.packaged import MODELS_DIR
from traductor.service import pipeline
from traductor.service.pipeline import protect
from traductor.service.server import start
from traductor.service.settings import Settings

SENTENCES = [
    "Check that <b>the disk</b> has space.",
    'Open the <a href="s.html">network settings</a> to change the proxy.',
    "The file was saved in <i>your home folder</i>.",
    "Click <b>Save</b> to keep your changes.",
    "Press <b>Enter</b> to go on.",
    "This will delete <b>all your messages</b> forever.",
    "A <b>new version</b> is available for download.",
    "Choose the <i>red</i> button, not the blue one.",
]


async def one_model(name: str) -> dict:
    settings = Settings(
        model=str(scan(MODELS_DIR)[name]),
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        threads=1,
        engine_process=False,
        use_memory=False,
    )
    service = await start(settings)
    engine = service.registry.default.engine
    options = DecodingOptions()
    checked = protect.pairs
    rows, counts = [], {"kept": 0, "moved": 0, "unsure": 0}
    try:
        for i, sentence in enumerate(SENTENCES):
            protect.pairs = lambda text, spans=None: []  # the model's own placement
            try:
                model = await pipeline.translate(engine, sentence, options, f"m{i}", format="html")
            finally:
                protect.pairs = checked
            served = await pipeline.translate(engine, sentence, options, f"p{i}", format="html")
            outcome = "unsure" if served.markup_unsure else "moved" if served.text != model.text else "kept"
            counts[outcome] += 1
            rows.append({"source": sentence, "model": model.text, "served": served.text, "outcome": outcome})
    finally:
        await service.server.stop(None)
        service.registry.stop()
    return {"counts": counts, "sentences": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["en-es", "en-fr", "en-de"])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = {name: asyncio.run(one_model(name)) for name in args.models}
    for name, r in report.items():
        print(name, r["counts"])
        for row in r["sentences"]:
            print(f"  {row['outcome']:6} {row['model']}\n         -> {row['served']}")
    if args.out:
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
