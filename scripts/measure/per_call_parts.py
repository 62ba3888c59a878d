"""Where a short call's time goes, part by part: each stage of the serving path timed on its own.

    python scripts/measure/per_call_parts.py [--bundle DIR] [--repeat 5]

The same short texts as scripts/measure/per_call.py (UI messages of the load generator's shipped
sentences), each stage run over all of them, best of `--repeat` passes, microseconds per text:

  transport      a bare grpcio server (grpc_floor.py's, a child process) and a bare aiohttp app
                 answering JSON, one caller at a time: what the protocols cost with nothing behind
  call           the gRPC request's options and routing (options_from_pb, Routing-free: one model),
                 the HTTP parameters' checks (translate_params, DeepL's deepl_params.translate_params)
  cut, protect   the text pipeline's first stages (service/pipeline) on a real AsyncEngine, each
                 alone and together (pipeline.prepare): segmentation, limits and tokenizing
                 (tokenizing also shown alone); the memory lookup, placeholders and spans, markup
                 pairs, the options resolved
  front's glue   pipeline.translate end to end against a core that answers at once: cut, protect,
                 the engine group and the events' queue (decode), restore, verify, join (no engine,
                 no pipe)
  hop            a Job to a child process over a multiprocessing pipe and its FinishEvent back
                 (engine/process.py's messages, pickled as served), one round trip
  engine         the Scheduler alone (1 ONNX Runtime thread): the first step (admission: encoder,
                 then the first decoder step), each later step, the finish (detokenizing)
  reply          response_to_pb + SerializeToString; the JSON answer

Each part is timed alone on an otherwise idle path, so the parts need not add up to a served
call (wake-ups between processes and threads are in the transports and the hop).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def best(f, items: list, repeat: int) -> float:
    """Microseconds per item, best pass of `repeat`."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            f(x)
        times.append((time.perf_counter() - t) / len(items))
    return min(times) * 1e6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


AIOHTTP_APP = """
import sys, json
from aiohttp import web
async def translate(request):
    body = json.loads(await request.text())
    return web.json_response({"translatedText": body["q"]})
app = web.Application()
app.router.add_post("/translate", translate)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None)
"""


def transports(texts: list[str], repeat: int) -> dict:
    import grpc

    from traductor_client.v1 import translator_pb2 as pb
    from traductor_client.v1 import translator_pb2_grpc as pb_grpc

    gport, hport = free_port(), free_port()
    floor = Path(__file__).parent / "grpc_floor.py"
    servers = [
        subprocess.Popen([sys.executable, str(floor), "--serve", str(gport)]),
        subprocess.Popen([sys.executable, "-c", AIOHTTP_APP, str(hport)]),
    ]
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{gport}")
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = pb_grpc.TranslatorStub(channel)
        requests = [pb.TranslateRequest(text=t) for t in texts]
        grpc_us = best(lambda r: stub.Translate(r), requests, repeat)
        for _ in range(100):
            try:
                c = http.client.HTTPConnection("127.0.0.1", hport)
                c.request("POST", "/translate", b'{"q": "x"}', {"Content-Type": "application/json"})
                c.getresponse().read()
                break
            except OSError:
                time.sleep(0.2)
        bodies = [json.dumps({"q": t, "source": "en", "target": "es"}).encode() for t in texts]

        def post(body: bytes) -> None:
            c.request("POST", "/translate", body, {"Content-Type": "application/json"})
            c.getresponse().read()

        http_us = best(post, bodies, repeat)
    finally:
        for s in servers:
            s.terminate()
            s.wait(10)
    return {"bare grpcio unary round trip": grpc_us, "bare aiohttp JSON round trip": http_us}


class InstantCore:
    """An engine core that answers every job at once with a canned FinishEvent."""

    max_queue = 1 << 30

    def __init__(self, event):
        self.event = event

    def start(self, deliver, on_exit) -> None:
        self.deliver, self.loop = deliver, asyncio.get_running_loop()

    def submit(self, jobs) -> None:
        self.loop.call_soon(self.deliver, [(job.key, self.event) for job in jobs])

    def cancel(self, keys) -> None:
        pass

    def stop(self) -> None:
        pass


def front(texts: list[str], bundle, repeat: int) -> dict:
    from traductor.engine.request import FinishEvent, FinishReason, Timings
    from traductor.options import DecodingOptions, Limits
    from traductor.service import pipeline
    from traductor.service.async_engine import AsyncEngine
    from traductor.service.convert import options_from_pb, response_to_pb
    from traductor.service.http.params import translate_params
    from traductor.service.metrics import Metrics
    from traductor.service.pipeline import cut, protect
    from traductor_client.v1 import translator_pb2 as pb

    tokenizer = bundle.tokenizer()
    event = FinishEvent(FinishReason.EOS, "Archivo no encontrado.", [5, 6, 7, 8, 9, 10, 11], [], 6, Timings())
    core = InstantCore(event)
    engine = AsyncEngine(core, tokenizer, Limits(200, 200, 8), 20_000, Metrics().for_model("m"), language="en")
    options = DecodingOptions()
    requests = [pb.TranslateRequest(text=t) for t in texts]
    out = {
        "gRPC: options_from_pb": best(lambda r: options_from_pb(r.options, "", ""), requests, repeat),
        "HTTP: translate_params": best(
            lambda t: translate_params({"q": t, "source": "en", "target": "es"}, {"en": ["es"]}), texts, repeat
        ),
        "tokenize (Tokenizer.encode)": best(lambda t: tokenizer.encode(t), texts, repeat),
        "cut (pipeline.cut, tokenizing included)": best(lambda t: cut.cut(engine, t, options), texts, repeat),
    }
    cuts = [cut.cut(engine, t, options) for t in texts]
    out["protect (pipeline.protect)"] = best(lambda c: protect.protect(engine, c, options), cuts, repeat)
    out["cut + protect (pipeline.prepare)"] = best(lambda t: pipeline.prepare(engine, t, options), texts, repeat)

    async def glue() -> float:
        engine.start()

        async def one(t: str) -> None:
            await pipeline.translate(engine, t, options, "rid")

        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for t in texts:
                await one(t)
            times.append((time.perf_counter() - t0) / len(texts))
        return min(times) * 1e6

    out["front's glue (pipeline.translate: cut -> join, an instant core)"] = asyncio.run(glue())
    out["reply: response_to_pb + serialize"] = best(
        lambda _: response_to_pb(event, "rid", False).SerializeToString(), texts, repeat
    )
    out["reply: JSON"] = best(lambda _: json.dumps({"translatedText": event.text}, ensure_ascii=False), texts, repeat)
    return out


def _echo(jobs, events) -> None:
    from traductor.engine.request import FinishEvent, FinishReason, Timings

    while True:
        kind, payload = jobs.recv()
        if kind == "stop":
            return
        finish = FinishEvent(FinishReason.EOS, "Archivo no encontrado.", [5, 6, 7, 8, 9, 10, 11], [], 6, Timings())
        events.send(([(job.key, finish) for job in payload], None))


def hop(texts: list[str], bundle, repeat: int) -> dict:
    from traductor.engine.process import Job
    from traductor.options import DecodingOptions, Limits, resolve

    tokenizer = bundle.tokenizer()
    ctx = multiprocessing.get_context("spawn")
    jobs_r, jobs_w = ctx.Pipe(duplex=False)
    events_r, events_w = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_echo, args=(jobs_r, events_w), daemon=True)
    child.start()
    limits = Limits(200, 200, 8)
    prepared = []
    for i, t in enumerate(texts):
        ids, values = tokenizer.encode(t)
        prepared.append(Job(i, "rid", ids, values, resolve(DecodingOptions(), len(ids), limits), None, False, 0.0))

    def round_trip(job) -> None:
        jobs_w.send(("submit", [job]))
        events_r.recv()

    us = best(round_trip, prepared, repeat)
    jobs_w.send(("stop", None))
    child.join(5)
    return {"hop: Job to the engine process and its FinishEvent back": us}


def engine_steps(texts: list[str], bundle, repeat: int) -> dict:
    from traductor.engine.request import FinishEvent, Request
    from traductor.engine.runner import ModelRunner
    from traductor.engine.scheduler import Scheduler
    from traductor.options import DecodingOptions, Limits, resolve

    tokenizer = bundle.tokenizer()
    scheduler = Scheduler(ModelRunner(bundle, threads=1, max_rows=64), tokenizer, 64, 256)
    limits = Limits(200, 200, 8)
    work = []
    for t in texts:
        ids, values = tokenizer.encode(t)
        work.append((ids, values, resolve(DecodingOptions(), len(ids), limits)))
    totals = {"first": [], "later": [], "encoder": [], "steps": [], "finish": []}
    for _ in range(repeat):
        first = later = enc = 0.0
        steps = 0
        for ids, values, options in work:
            done: list = []
            scheduler.submit(Request("r", ids, values, options, lambda e, d=done: d.append(e), stream=False))
            t = time.perf_counter()
            scheduler.step()
            first += time.perf_counter() - t
            enc += scheduler.last.encode_seconds
            while not any(isinstance(e, FinishEvent) for e in done):
                t = time.perf_counter()
                scheduler.step()
                later += time.perf_counter() - t
                steps += 1
        totals["first"].append(first / len(work))
        totals["encoder"].append(enc / len(work))
        totals["later"].append(later / max(steps, 1))
        totals["steps"].append(steps / len(work))
    decode = best(lambda w: tokenizer.decode(w[0][:8], w[1]), work, repeat)
    i = min(range(repeat), key=lambda k: totals["first"][k] + totals["later"][k] * totals["steps"][k])
    return {
        "engine: first step (admission: encoder + first decoder step)": totals["first"][i] * 1e6,
        "  of which the encoder": totals["encoder"][i] * 1e6,
        f"engine: each later step ({totals['steps'][i]:.1f} a text)": totals["later"][i] * 1e6,
        "engine: detokenizing at the finish (Tokenizer.decode)": decode,
    }


def main() -> None:
    from per_call import short_texts

    from traductor.engine.bundle import default_bundle, load_bundle

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", default=str(default_bundle()))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    texts, bundle = short_texts(), load_bundle(args.bundle)
    parts = {}
    for stage in (transports, lambda t, r: front(t, bundle, r), lambda t, r: hop(t, bundle, r)):
        parts.update(stage(texts, args.repeat))
    parts.update(engine_steps(texts, bundle, args.repeat))
    print(f"{len(texts)} short texts, best of {args.repeat} passes, us per text (pid {os.getpid()})")
    for name, us in parts.items():
        print(f"{us:9.1f}  {name}")
    if args.out:
        args.out.write_text(json.dumps(parts, indent=1))


if __name__ == "__main__":
    main()
