"""`traductor bench --service`: the load generator against `traductor serve`, unary and streams.

One server (`traductor serve` in its own process, on a free local port, translation memory off
so that every call decodes) runs the bench's model. At each concurrency level the load generator
(`traductor-client loadtest`, in its own process, closed loop) runs twice against that same
server: unary Translate calls first (`--stream-fraction 0`), then TranslateStream
(`--stream-fraction 1`). Both ask for exactly `NEW_TOKENS` new tokens per call
(min_new_tokens = max_new_tokens), so the two runs do the same decoding work and differ only in
how the tokens travel back.

The texts are real sentences encoded by the bundle's own tokenizer: the load generator's shipped
English sentences, or a file of the caller's (`input_file`), keeping only the lines the server
translates as one sentence (a two-sentence text would decode twice the tokens); they are written
to a temporary file for the load generator. The bundle directory is only read.
This module knows nothing of random weights or anchors (__init__.py) or of tables (report.py).
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..errors import CommandError, TraductorError
from .engine import NEW_TOKENS

MAX_INPUT_TOKENS = 128  # the server's cut for one sentence (it also never exceeds the model's max_len)
WARMUP_SECONDS = 3.0  # unmeasured, before each run; never longer than the measured part
MODES = (("unary", 0), ("stream", 1))  # (report key, --stream-fraction)


def load_inputs(input_file: Path | None) -> list[str]:
    """The texts the load generator will send (a CommandError when the file has none)."""
    from traductor_client.loadtest.inputs import load_texts

    try:
        return load_texts(None if input_file is None else str(input_file))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CommandError(f"--service-input {input_file}: not a text file of one sentence per line ({e})") from e


def prepare_inputs(input_file: Path | None, tokenizer_file: Path, max_len: int, directory: Path) -> tuple[Path, dict]:
    """The texts to send, written to `directory`: those of `input_file` (or the shipped sentences)
    that the server translates as one sentence, so that every call decodes exactly NEW_TOKENS tokens
    (a two-sentence text would decode twice as many); and how the bundle's tokenizer sees them."""
    from ..model.tokenizer import Tokenizer
    from ..text import plan
    from ..text.segment import Kind

    tokenizer = Tokenizer(tokenizer_file)
    limit = min(MAX_INPUT_TOKENS, max_len)

    def one_sentence(text: str) -> bool:
        try:
            pieces = plan(text, too_long=lambda s: len(tokenizer.encode(s)[0]) > limit).pieces
        except TraductorError:  # more characters or segments than the server takes
            return False
        return sum(p.kind is Kind.TRANSLATE for p in pieces) == 1

    texts = load_inputs(input_file)
    kept = [text for text in texts if one_sentence(text)]
    name = str(input_file) if input_file else "the load generator's shipped sentences"
    if not kept:
        raise CommandError(f"--service-input {name}: no line is a single sentence (each call must decode one)")
    path = directory / "texts.txt"
    path.write_text("".join(f"{text}\n" for text in kept), encoding="utf-8")
    return path, {
        "file": name,
        "texts": len(kept),
        "dropped_not_one_sentence": len(texts) - len(kept),
        "source_tokens_mean": round(statistics.mean(len(tokenizer.encode(t)[0]) for t in kept), 1),
    }


def run_service(
    bundle_dir: Path,
    levels: list[int],
    duration: float,
    threads: int,
    texts: Path,
    progress=print,
    engine_process: bool = True,
    serve_flags: tuple[str, ...] = (),
) -> dict:
    """Serve `bundle_dir` (which must hold its tokenizer) and load it at every level with the texts
    of the file `texts` (prepare_inputs), unary then streams; `engine_process`: the server runs its
    model in a process of its own (serve's default; False: `serve --no-engine-process`); `serve_flags`:
    more flags of `traductor serve` (`--device cuda`, scripts/measure/gpu_bench.py).
    Returns {"levels": [{"level", "unary": summary, "stream": summary}], and the setup}."""
    port = _free_port()
    flags = f"--host 127.0.0.1 --port {port} --metrics-port 0 --threads {threads} --max-active-sequences {max(levels)} "
    flags += f"--max-input-tokens {MAX_INPUT_TOKENS} --no-memory --log-level WARNING"
    flags += "" if engine_process else " --no-engine-process"
    # (the model path stays one list item: it may hold spaces)
    server = subprocess.Popen(
        [sys.executable, "-m", "traductor.cli", "serve", "--model", str(bundle_dir), *flags.split(), *serve_flags]
    )
    warmup = min(WARMUP_SECONDS, duration)
    try:
        _wait_serving(f"127.0.0.1:{port}", server)
        rows = []
        for level in levels:
            row = {"level": level}
            for mode, fraction in MODES:
                progress(f"service: concurrency {level}, {mode}")
                row[mode] = _loadtest(port, level, fraction, duration, warmup, texts)
            rows.append(row)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # never leave a server behind (on a GPU, it holds the card)
            server.kill()
            server.wait()
    return {
        "engine": "process" if engine_process else "thread",
        "new_tokens": NEW_TOKENS,
        "seconds": duration,
        "warmup_seconds": warmup,
        "levels": rows,
    }


def _loadtest(port: int, level: int, fraction: int, duration: float, warmup: float, texts: Path) -> dict:
    """One closed-loop level of the load generator; its summary of that level."""
    args = f"loadtest --target 127.0.0.1:{port} --concurrency {level} --duration {duration} --warmup {warmup} "
    args += f"--stream-fraction {fraction} --min-new-tokens {NEW_TOKENS} --max-new-tokens {NEW_TOKENS} --no-progress"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "load.json"
        cmd = [sys.executable, "-m", "traductor_client.cli", *args.split()]
        cmd += ["--input", str(texts), "--json-out", str(out)]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0 or not out.is_file():
            tail = proc.stderr.strip().splitlines()[-1:] or ["no message"]
            raise CommandError(f"the load generator failed at concurrency {level} (exit {proc.returncode}): {tail[0]}")
        (summary,) = json.loads(out.read_text())["levels"]
    summary.pop("level")
    return summary


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_serving(target: str, server: subprocess.Popen, timeout: float = 120) -> None:
    from traductor_client import TranslatorClient, TranslatorError

    deadline = time.monotonic() + timeout
    with TranslatorClient(target, timeout=2) as client:
        while True:
            try:
                if client.health() == "SERVING":
                    return
            except TranslatorError:  # not listening yet: that is what we are waiting for
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise CommandError(f"traductor serve did not become SERVING (exit code {server.poll()})")
            time.sleep(0.2)
