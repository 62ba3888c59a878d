"""Size, memory and speed of imported models at the real shapes of OPUS-MT and NLLB-200-600M, with
random weights (no model hub here): the figures of docs/import.md.

For each family it writes a Hugging Face checkpoint as save_pretrained does (random weights of the
real shape; a small SentencePiece model trained on a few lines written here, the vocabulary padded
to the real size, NLLB's 202 language codes), runs `traductor import --quantize int8` on it, and
measures:

- the bundle's size on disk;
- `traductor serve` on it: resident memory (server + engine process) after one translation;
- `traductor bench --bundle`: decoder tokens/s at batch 1 and 32 (EOS suppressed, medians).

    python scripts/measure/import_shapes.py --work /tmp/import-shapes --prepare-only   # any time
    python scripts/measure/import_shapes.py --work /tmp/import-shapes --out docs/model/import-shapes.json

Needs torch and transformers (the training extras). Run it on a quiet machine: the bench is timed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

# name -> (family, d_model, layers, heads, d_ff, vocab): the published configs of the two models
SHAPES = {
    "opus-mt-en-fr": ("marian", 512, 6, 8, 2048, 59514),
    "nllb-200-distilled-600M": ("nllb", 1024, 12, 16, 4096, 256206),
}
LINES = [
    "cannot open file",
    "Permission denied",
    "No such file or directory",
    "the repository is empty",
    "Saving 3 files to disk...",
    "no se puede abrir el archivo",
    "Permiso denegado",
    "impossible d'ouvrir le fichier",
    "Datei kann nicht geöffnet werden",
] * 20


def train_spm(path: Path, vocab_size: int = 200, model_type: str = "unigram") -> None:
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=model,
        vocab_size=vocab_size,
        model_type=model_type,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    path.write_bytes(model.getvalue())


def marian_checkpoint(out: Path, d_model: int, layers: int, heads: int, d_ff: int, vocab_size: int) -> None:
    from traductor_export.random_models import random_marian

    out.mkdir(parents=True, exist_ok=True)
    train_spm(out / "source.spm")
    train_spm(out / "target.spm")
    tok, model = random_marian(
        out,
        d_model=d_model,
        layers=layers,
        heads=heads,
        d_ff=d_ff,
        max_positions=512,
        vocab_size=vocab_size,  # the real vocabulary's size: rows the tokenizer never gives
        target_lang="fr",
    )
    model.save_pretrained(out)
    tok.save_pretrained(out)


def nllb_checkpoint(out: Path, d_model: int, layers: int, heads: int, d_ff: int, vocab_size: int) -> None:
    import torch
    import transformers
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    from traductor_export.random_models import m2m100_config

    out.mkdir(parents=True, exist_ok=True)
    train_spm(out / "sentencepiece.bpe.model", model_type="bpe")
    tok = transformers.NllbTokenizer.from_pretrained(
        out, src_lang="eng_Latn", tgt_lang="fra_Latn", extra_special_tokens=FAIRSEQ_LANGUAGE_CODES
    )
    ids = dict(pad_id=tok.pad_token_id, eos_id=tok.eos_token_id, bos_id=tok.bos_token_id)
    cfg = m2m100_config(vocab_size, **ids, d_model=d_model, layers=layers, heads=heads, d_ff=d_ff, max_positions=1024)
    torch.manual_seed(0)
    model = transformers.M2M100ForConditionalGeneration(cfg).eval()
    model.save_pretrained(out)
    tok.save_pretrained(out)


def size_mb(folder: Path) -> float:
    return round(sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20, 1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (the engine process), from /proc."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    total = 0
    for p in [pid, *map(int, children)]:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return round(total / 1024, 1)


def served_memory(bundle: Path, target: str) -> float:
    """`traductor serve --model bundle`: RSS once it has answered one translation."""
    port = free_port()
    server = subprocess.Popen(
        ["traductor", "serve", "--model", str(bundle), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        cmd = ["traductor-client", "--target", f"127.0.0.1:{port}", "translate", "--to", target, "cannot open file"]
        for _ in range(600):  # the engine loads for a while: ask until it answers
            if subprocess.run(cmd, capture_output=True, text=True).returncode == 0:
                return rss_mb(server.pid)
            time.sleep(1)
        raise RuntimeError("the server never answered")
    finally:
        server.terminate()
        server.wait(30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="where the checkpoints and bundles go")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    parser.add_argument("--only", choices=sorted(SHAPES), help="one model instead of both")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--prepare-only", action="store_true", help="write the checkpoints and bundles, time nothing")
    args = parser.parse_args(argv)
    results = {}
    for name, (family, *shape) in SHAPES.items():
        if args.only and name != args.only:
            continue
        hf, bundle = args.work / f"{name}-hf", args.work / f"{name}-int8"
        if not (hf / "config.json").exists():
            (marian_checkpoint if family == "marian" else nllb_checkpoint)(hf, *shape)
        started, imported_s = time.monotonic(), None  # None: imported by an earlier run
        if not (bundle / "config.json").exists():
            subprocess.run(["traductor", "import", str(hf), "--out", str(bundle), "--quantize", "int8"], check=True)
            imported_s = round(time.monotonic() - started, 1)
        if args.prepare_only:
            continue
        bench = subprocess.run(
            ["traductor", "bench", "--bundle", str(bundle), "--batches", "1,32", "--runs", str(args.runs), "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        speed = json.loads(bench.stdout.strip().splitlines()[-1])
        results[name] = {
            "shape": dict(zip(("d_model", "layers", "heads", "d_ff", "vocab"), shape)),
            "checkpoint_mb": size_mb(hf),
            "bundle_int8_mb": size_mb(bundle),
            "import_seconds": imported_s,
            "parity_seconds": json.loads((bundle / "config.json").read_text())["parity"]["seconds"],
            "served_rss_mb": served_memory(bundle, "fr"),
            "tokens_per_second": speed,
        }
        print(json.dumps({name: results[name]}), flush=True)
    results["machine"] = {"cpus": os.cpu_count(), "cpu": _cpu()}
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
