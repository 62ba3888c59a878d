"""What one short call costs around the model: the engine alone against gRPC and both HTTP APIs.

    python scripts/measure/per_call.py [--bundle DIR] [--seconds 6] [--rounds 3] [--out FILE.json]
        [--compare CHECKOUT] [--paired]

1. The engine alone, in a child process: the bundle's Scheduler with 1 ONNX Runtime thread (serve's
   default on 2 cores), each short text's source ids submitted and stepped until it finishes,
   one at a time (batch 1), with the options the server decodes it with (a beam of 4 for a text of
   one or two pieces, `for_segment`): the engine's own time per text.
2. `traductor serve` (translation memory off, every call decodes; gRPC and HTTP ports), one
   client at a time, each call sent as soon as the last one answered:
   - gRPC `Translate` through a bare stub (the request built once per text),
   - LibreTranslate's `POST /translate` (JSON) and DeepL's `POST /v2/translate` (form) through
     http.client on one kept-alive connection.
   Per protocol: calls/s and the mean call time over the same texts as 1., whose ratio to the
   engine's mean time is the cost around the model.

Each round times the engine alone, then serves and times the three protocols in turn; the
figures are medians over the rounds (the ratio to the engine: the median of each round's).
`--compare CHECKOUT` runs another checkout (its server/ and client/ directories first on
PYTHONPATH: an old commit's worktree) in every round before this tree, engine alone included,
for before/after figures in one run. CPU per call: every thread of the front (server process),
of its engine process and of this client, from /proc.
The texts: the load generator's shipped sentences shorter than 40 characters that the text
layer keeps as one segment (UI messages).

`--paired` (gRPC only, for a loaded machine): the engine alone (a child process that decodes a text
when asked) and a served `Translate` call are alternated text by text, so that each pair is timed
within milliseconds; a machine whose load swings over seconds slows both alike. The ratio is the
summed served time over the summed engine time of each round (the pairs' median is shown too).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path


def cpu_ns(pid: int) -> int:
    """CPU time of every thread of process `pid` so far (ns; 0 once it is gone)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total


def children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found += [int(c) for c in f.read().split()]
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def short_texts() -> list[str]:
    from traductor.text import plan
    from traductor.text.segment import Kind
    from traductor_client.loadtest.inputs import load_texts

    def one(text: str) -> bool:
        return sum(p.kind is Kind.TRANSLATE for p in plan(text).pieces) == 1

    return [t for t in load_texts() if len(t) < 40 and one(t)]


def engine_work(tokenizer, texts: list[str], limits) -> list[tuple]:
    """Each text's (ids, values, options) as the server decodes it: the options of a short segment
    (`for_segment`: a beam of 4 for one or two pieces) included, as the pipeline's protect stage does."""
    from traductor.options import DecodingOptions, for_segment, resolve

    work = []
    for t in texts:
        ids, values = tokenizer.encode(t)
        options = for_segment(DecodingOptions(), len(ids), limits)
        work.append((ids, values, resolve(options, len(ids), limits)))
    return work


def engine_server(bundle_dir: str, texts: list[str]) -> None:
    """The engine alone on demand (`--engine-server`, a child of `paired`): reads a text's index a
    line from stdin, decodes it at batch 1, writes its time (s) and output tokens."""
    from traductor.engine.bundle import load_bundle
    from traductor.engine.runner import ModelRunner
    from traductor.engine.scheduler import Scheduler
    from traductor.engine.translator import drive
    from traductor.options import Limits

    bundle = load_bundle(bundle_dir)
    tokenizer = bundle.tokenizer()
    scheduler = Scheduler(ModelRunner(bundle, threads=1, max_rows=64), tokenizer, 64, 256)
    work = engine_work(tokenizer, texts, Limits(max_input_tokens=200, max_new_tokens=200, max_beam_size=8))
    drive(scheduler, work[:4])
    print("ready", flush=True)
    for line in sys.stdin:
        w = work[int(line)]
        begin = time.perf_counter()
        (event,) = drive(scheduler, [w])
        print(time.perf_counter() - begin, len(event.token_ids), flush=True)


def paired(bundle: str, server: Server, texts: list[str], seconds: float, pythonpath: str | None = None) -> dict:
    """The engine alone and a served gRPC call, text after text, alternated call by call for
    `seconds`: each pair is timed within milliseconds of each other, so that a loaded machine's
    swings (seconds long) fall on both alike. The ratio of the summed times is the cost around
    the model; the median of the pairs' ratios is given too."""
    import grpc

    from traductor_client.v1 import translator_pb2 as pb
    from traductor_client.v1 import translator_pb2_grpc as pb_grpc

    env = dict(os.environ)
    if pythonpath:  # the engine alone with the served checkout's code
        env["PYTHONPATH"] = f"{pythonpath}/server:{pythonpath}/client"
    cmd = [sys.executable, __file__, "--engine-server", "--bundle", bundle]
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "ready"
        stub = pb_grpc.TranslatorStub(grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}"))
        requests = [pb.TranslateRequest(text=t) for t in texts]
        for r in requests[:4]:
            stub.Translate(r)
        engine, served, tokens, begin, cpu = [], [], [], time.perf_counter(), server.cpu()
        while time.perf_counter() - begin < seconds:
            for i in range(len(texts)):
                child.stdin.write(f"{i}\n")
                child.stdin.flush()
                took, n = child.stdout.readline().split()
                t0 = time.perf_counter()
                stub.Translate(requests[i])
                served.append(time.perf_counter() - t0)
                engine.append(float(took))
                tokens.append(int(n))
        cpu = {k: (v - cpu[k]) / 1000 / len(served) for k, v in server.cpu().items() if k != "client"}
    finally:
        child.stdin.close()
        child.wait(30)
    return {
        "pairs": len(engine),
        "engine_ms": 1000 * statistics.mean(engine),
        "grpc_ms": 1000 * statistics.mean(served),
        "ratio": sum(served) / sum(engine),
        "median_pair_ratio": statistics.median(s / e for s, e in zip(served, engine)),
        "tokens_per_call": statistics.mean(tokens),
        "front_cpu_us": cpu["front"],  # a served call's CPU in the server's processes (idle between calls)
        "engine_process_cpu_us": cpu["engine"],
    }


def engine_alone(bundle_dir: str, texts: list[str], seconds: float) -> dict:
    """Mean time and CPU per text of the scheduler alone at batch 1 (ids ready, nothing else)."""
    from traductor.engine.bundle import load_bundle
    from traductor.engine.runner import ModelRunner
    from traductor.engine.scheduler import Scheduler
    from traductor.engine.translator import drive
    from traductor.options import Limits

    bundle = load_bundle(bundle_dir)
    tokenizer = bundle.tokenizer()
    runner = ModelRunner(bundle, threads=1, max_rows=64)
    scheduler = Scheduler(runner, tokenizer, 64, 256)
    limits = Limits(max_input_tokens=200, max_new_tokens=200, max_beam_size=8)
    work = engine_work(tokenizer, texts, limits)
    drive(scheduler, work[:4])  # warm-up
    calls, tokens, begin, cpu = 0, 0, time.perf_counter(), cpu_ns(os.getpid())
    while time.perf_counter() - begin < seconds:
        for w in work:
            (event,) = drive(scheduler, [w])
            tokens += len(event.token_ids)
            calls += 1
    elapsed, cpu = time.perf_counter() - begin, cpu_ns(os.getpid()) - cpu
    return {
        "calls_per_s": calls / elapsed,
        "ms_per_call": 1000 * elapsed / calls,
        "cpu_us": cpu / 1000 / calls,
        "tokens_per_call": tokens / calls,
    }


class Server:
    def __init__(
        self,
        bundle: str,
        pythonpath: str | None,
        max_input_tokens: int = 200,
        extra: tuple[str, ...] = (),
        metrics: bool = False,
    ):
        self.grpc_port, self.http_port = free_port(), free_port()
        self.metrics_port = free_port() if metrics else 0  # the Prometheus endpoint, off unless asked
        env = dict(os.environ)
        if pythonpath:
            env["PYTHONPATH"] = f"{pythonpath}/server:{pythonpath}/client"
        cmd = [sys.executable, "-c", "from traductor.cli import main; main()", "serve", "--model", bundle]
        cmd += ["--host", "127.0.0.1", "--port", str(self.grpc_port), "--http-port", str(self.http_port)]
        cmd += [
            "--metrics-port",
            str(self.metrics_port),
            "--no-memory",
            "--log-level",
            "WARNING",
            "--max-input-tokens",
            str(max_input_tokens),
            *extra,
        ]
        self.process = subprocess.Popen(cmd, env=env)
        self.wait()
        engine = [c for c in children(self.process.pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
        self.pids = {"front": self.process.pid, "engine": engine[-1] if engine else 0, "client": os.getpid()}

    def cpu(self) -> dict[str, int]:
        return {name: cpu_ns(pid) for name, pid in self.pids.items()}

    def wait(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=2)
                c.request("GET", "/languages")
                if c.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise SystemExit("the server did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def grpc_calls(port: int, texts: list[str], seconds: float) -> tuple[int, float]:
    import grpc

    from traductor_client.v1 import translator_pb2 as pb
    from traductor_client.v1 import translator_pb2_grpc as pb_grpc

    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = pb_grpc.TranslatorStub(channel)
    requests = [pb.TranslateRequest(text=t) for t in texts]
    for r in requests[:4]:
        stub.Translate(r)
    return _loop(lambda i: stub.Translate(requests[i]), len(texts), seconds)


def http_calls(port: int, texts: list[str], seconds: float, api: str) -> tuple[int, float]:
    c = http.client.HTTPConnection("127.0.0.1", port)
    if api == "libre":
        path, headers = "/translate", {"Content-Type": "application/json"}
        bodies = [json.dumps({"q": t, "source": "en", "target": "es"}).encode() for t in texts]
    else:
        path, headers = "/v2/translate", {"Content-Type": "application/x-www-form-urlencoded"}
        bodies = [urllib.parse.urlencode({"text": t, "target_lang": "ES"}).encode() for t in texts]

    def call(i: int) -> None:
        c.request("POST", path, bodies[i], headers)
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            raise SystemExit(f"{path}: {r.status} {body[:200]!r}")

    for i in range(4):
        call(i)
    return _loop(call, len(texts), seconds)


def _loop(call, n: int, seconds: float) -> tuple[int, float]:
    calls, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        for i in range(n):
            call(i)
            calls += 1
    return calls, time.perf_counter() - begin


PROTOCOLS = ("grpc", "libre", "deepl")
PROCESSES = ("front", "engine", "client")


def serve_round(server: Server, texts: list[str], seconds: float) -> dict:
    out = {}
    for name in PROTOCOLS:
        before = server.cpu()
        if name == "grpc":
            calls, elapsed = grpc_calls(server.grpc_port, texts, seconds)
        else:
            calls, elapsed = http_calls(server.http_port, texts, seconds, name)
        cpu = {k: (v - before[k]) / 1000 / calls for k, v in server.cpu().items()}  # us a call (warm-up in)
        out[name] = {"calls_per_s": calls / elapsed, "ms_per_call": 1000 * elapsed / calls, "cpu_us": cpu}
    return out


def median_of(rounds: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rounds)


def engine_of(bundle: str, pythonpath: str | None, seconds: float) -> dict:
    """`engine_alone` with a checkout's code (a child process with its PYTHONPATH)."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = f"{pythonpath}/server:{pythonpath}/client"
    cmd = [sys.executable, __file__, "--engine-only", "--bundle", bundle, "--seconds", str(seconds)]
    return json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    from traductor.engine.bundle import default_bundle

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", default=str(default_bundle()))
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", metavar="CHECKOUT", help="also serve this checkout (its server/, client/), alternated")
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="ARGS",
        help="serve this tree once more with these serve arguments too, alternated (--also=--no-engine-process)",
    )
    ap.add_argument(
        "--paired",
        action="store_true",
        help="gRPC only: the engine alone and a served call alternated text by text (for a loaded machine)",
    )
    ap.add_argument("--engine-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--engine-server", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    texts = short_texts()
    if args.engine_only:  # the child of engine_of
        return print(json.dumps(engine_alone(args.bundle, texts, args.seconds)))
    if args.engine_server:  # the child of paired
        return engine_server(args.bundle, texts)
    variants = {"this tree": (None, ())} if not args.compare else {"base": (args.compare, ()), "this tree": (None, ())}
    for extra in args.also:  # this tree again, served with these arguments too
        variants[extra] = (None, tuple(extra.split()))
    if args.paired:
        return main_paired(args, texts, variants)
    results: dict = {"texts": len(texts), **{v: [] for v in variants}}
    for r in range(args.rounds):
        for name, (path, extra) in variants.items():
            row = {"engine": engine_of(args.bundle, path, args.seconds)}
            server = Server(args.bundle, path, extra=extra)
            try:
                results[name].append(row | serve_round(server, texts, args.seconds))
            finally:
                server.stop()
            print(f"round {r + 1} {name}: {json.dumps(results[name][-1])}", flush=True)
    print(f"\n{len(texts)} short texts, medians of {args.rounds} rounds (protocols: one client, calls in a row)")
    for name in variants:
        engine = [r["engine"] for r in results[name]]
        engine_ms, tokens = median_of(engine, "ms_per_call"), median_of(engine, "tokens_per_call")
        engine_cpu = median_of(engine, "cpu_us")
        print(
            f"{name:>10} engine alone, batch 1: {engine_ms:.2f} ms a text ({1000 / engine_ms:.0f}/s), "
            f"CPU {engine_cpu:.0f} us, {tokens:.1f} output tokens"
        )
        for p in PROTOCOLS:
            ms = statistics.median(r[p]["ms_per_call"] for r in results[name])
            ratio = statistics.median(r[p]["ms_per_call"] / r["engine"]["ms_per_call"] for r in results[name])
            cpu = {k: statistics.median(r[p]["cpu_us"][k] for r in results[name]) for k in PROCESSES}
            usage = ", ".join(f"{k} {v:.0f} us" for k, v in cpu.items())
            print(f"{name:>10} {p:>6}: {ms:.2f} ms a call ({1000 / ms:.0f}/s), x{ratio:.2f} the engine's; CPU {usage}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


def main_paired(args, texts: list[str], variants: dict) -> None:
    results: dict = {"texts": len(texts), **{v: [] for v in variants}}
    for r in range(args.rounds):
        for name, (path, extra) in variants.items():
            server = Server(args.bundle, path, extra=extra)
            try:
                row = paired(args.bundle, server, texts, args.seconds, path)
            finally:
                server.stop()
            row["load"] = os.getloadavg()[0]
            results[name].append(row)
            print(f"round {r + 1} {name}: {json.dumps(row)}", flush=True)
    print(f"\n{len(texts)} short texts, engine alone and gRPC alternated call by call, medians of {args.rounds} rounds")
    for name in variants:
        rows = results[name]
        med = {k: statistics.median(row[k] for row in rows) for k in rows[0]}
        print(
            f"{name:>10}: engine alone {med['engine_ms']:.2f} ms, gRPC Translate {med['grpc_ms']:.2f} ms, "
            f"x{med['ratio']:.2f} (pairs' median x{med['median_pair_ratio']:.2f}), "
            f"{med['tokens_per_call']:.1f} output tokens, load {med['load']:.1f}; CPU a call: front "
            f"{med['front_cpu_us']:.0f} us, engine process {med['engine_process_cpu_us']:.0f} us"
        )
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
