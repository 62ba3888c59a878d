"""traductor against LibreTranslate on the same Marian weights: requests/s through `POST /translate`.

    # 1. the weights, both ways (with the project's venv: torch, transformers, sentencepiece;
    #    ctranslate2 importable, e.g. `pip install --target WORK/ct2py --no-deps ctranslate2`)
    PYTHONPATH=WORK/ct2py .venv/bin/python scripts/measure/libretranslate_compare.py build --work WORK \
        --lt-python WORK/venv/bin/python
    # 2. serve both and load them in alternated rounds
    .venv/bin/python scripts/measure/libretranslate_compare.py run --work WORK \
        --libretranslate WORK/venv/bin/libretranslate [--clients 1,32] [--seconds 8] [--rounds 3]

No model hub is reached: `build` makes a small OPUS-MT-shaped Marian model here (transformers'
MarianMTModel, the default model's size: d_model 256, 3 + 3 layers, 4 heads, FFN 1024, one
SentencePiece of about 8,000 pieces for both sides, trained on the English sides of the packaged
en-es memory), randomly initialised and then trained for 200 steps of 16 sentences to answer every
text with the same sentence of 8 pieces and EOS (`ANSWER`): random weights decode to the length
limit, and copying the input was not learnt in 750 steps on this machine. Every call thus runs the
encoder over its own text and about nine decoder steps, on both servers alike. It then writes:

- `WORK/hf`: the checkpoint as `save_pretrained` writes it (source.spm, target.spm, vocab.json);
- `WORK/ct2`: it converted by CTranslate2's own converter (`ct2-transformers-converter`, int8);
- `WORK/translate-en_es.argosmodel`: an Argos Translate package (metadata.json, the CTranslate2
  model, sentencepiece.model) installed into `WORK/argos-packages` (ARGOS_PACKAGES_DIR) with
  Argos Translate's own `install_from_path`, by LibreTranslate's Python (`--lt-python`);
- `WORK/bundle`: the same checkpoint through `traductor import --quantize int8`.

`run` starts `libretranslate --load-only en,es` (its defaults otherwise: waitress with 4 threads)
and `traductor serve --model WORK/bundle` (its defaults, translation memory off: every call
decodes; with `--thread-too` a second one with `--no-engine-process`), then, round after round and
server after server, runs N closed-loop clients (threads, one kept-alive connection each) that send
LibreTranslate's JSON body `{"q", "source": "en", "target": "es"}` with the load generator's
shipped sentences, each as soon as the last one answered. Per server and number of clients:
requests/s, p50 latency, and the mean length of the answers (characters), medians over the
rounds; the ratio is taken within each round.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

JSON = {"Content-Type": "application/json"}
SHAPE = {"d_model": 256, "layers": 3, "heads": 4, "ffn": 1024, "vocab": 8000}
# What the trained model answers to every text: 8 pieces and EOS, about a UI message's translation (the
# load's short texts take 7.2 output tokens with the packaged en-es model).
ANSWER = "The file could not be saved to disk."


def english_lines(limit: int = 20000) -> list[str]:
    from traductor.engine.bundle import default_bundle
    from traductor_client.loadtest.inputs import load_texts

    lines = list(load_texts())
    memory = Path(default_bundle()) / "memory.tsv"
    for row in memory.read_text(encoding="utf-8").splitlines():
        source = row.split("\t", 1)[0].strip()
        if source and len(source) < 120:
            lines.append(source)
    return list(dict.fromkeys(lines))[:limit]


def sentence_model(path: Path) -> None:
    """A stand-in for LibreTranslate's sentence splitter (MiniSBD: a small ONNX model per language,
    downloaded at first use from a host this machine cannot reach), with MiniSBD's interface: one
    class of 5 per character (0: inside a token) from the characters' ids and MiniSBD's English
    features, through a small per-character network (embedding 32, two layers of 64). It never
    splits a sentence (MiniSBD marks the last character's end itself): what LibreTranslate pays here
    to split is likely less than with its own model."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    chars = [chr(c) for c in range(32, 127)] + list("áéíóúñüÁÉÍÓÚÑ¿¡€")
    vocab = {"lang": "en", "idx": 0, "cutoff": 0, "lower": False, "_id2unit": ["<PAD>", "<UNK>", *chars]}
    vocab["_unit2id"] = {u: i for i, u in enumerate(vocab["_id2unit"])}
    feats = ["space_before", "capitalized", "numeric", "end_of_para", "start_of_para"]
    rng = np.random.default_rng(0)
    w = {
        "embedding": rng.normal(0, 0.1, (len(vocab["_id2unit"]), 32)),
        "w1": rng.normal(0, 0.1, (32 + len(feats), 64)),
        "w2": rng.normal(0, 0.1, (64, 64)),
        "w3": rng.normal(0, 0.01, (64, 5)),
        "b3": np.array([4.0, 0, 0, 0, 0]),
    }
    init = [numpy_helper.from_array(v.astype(np.float32), k) for k, v in w.items()]
    nodes = [
        helper.make_node("Gather", ["embedding", "units"], ["e"]),
        helper.make_node("Concat", ["e", "features"], ["x"], axis=-1),
        helper.make_node("MatMul", ["x", "w1"], ["h1"]),
        helper.make_node("Tanh", ["h1"], ["a1"]),
        helper.make_node("MatMul", ["a1", "w2"], ["h2"]),
        helper.make_node("Tanh", ["h2"], ["a2"]),
        helper.make_node("MatMul", ["a2", "w3"], ["h3"]),
        helper.make_node("Add", ["h3", "b3"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "sbd",
        [
            helper.make_tensor_value_info("units", TensorProto.INT64, ["batch", "chars"]),
            helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", "chars", len(feats)]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "chars", 5])],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    config = {"feat_funcs": feats, "max_seqlen": 300, "batch_size": 32, "use_dictionary": False}
    for key, value in (("lang_code", "en"), ("config", json.dumps(config)), ("vocab", json.dumps(vocab))):
        model.metadata_props.add(key=key, value=value)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))


def build(args) -> None:
    import sentencepiece as spm
    import torch

    from traductor_export.random_models import random_marian

    work = Path(args.work)
    hf, raw = work / "hf", work / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    if args.package_only:  # the checkpoint an earlier `build` left in WORK/hf
        return package(args, work, hf)
    lines = english_lines()
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=SHAPE["vocab"],
        model_type="unigram",
        hard_vocab_limit=False,
        minloglevel=2,
    )
    for name in ("source.spm", "target.spm"):
        (raw / name).write_bytes(model.getvalue())
    torch.set_num_threads(1)  # OpenMP threads spin badly on a shared machine
    tok, net = random_marian(
        raw,
        d_model=SHAPE["d_model"],
        layers=SHAPE["layers"],
        heads=SHAPE["heads"],
        d_ff=SHAPE["ffn"],
        max_positions=256,
        target_lang="es",
    )
    pad = tok.pad_token_id
    net.generation_config.max_length = 256
    # Trained to answer every text with ANSWER: a decode of a UI message's length that ends with EOS.
    g = torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / 100))
    net.train()
    short = [s for s in lines if len(s) < 50]
    for step in range(args.steps):
        pick = torch.randint(len(short), (16,), generator=g).tolist()
        batch = [short[i] for i in pick]
        enc = tok(batch, text_target=[ANSWER] * len(batch), padding=True, return_tensors="pt")
        enc["labels"][enc["labels"] == pad] = -100
        opt.zero_grad()
        loss = net(**enc).loss
        loss.backward()
        opt.step()
        warm.step()
        if step % 25 == 0:
            print(f"step {step}: loss {loss.item():.3f} ({time.strftime('%H:%M:%S')})", flush=True)
    net.eval()
    net.save_pretrained(hf)
    tok.save_pretrained(hf)
    sample = lines[:8]
    with torch.no_grad():
        out = net.generate(**tok(sample, return_tensors="pt", padding=True), num_beams=1, max_new_tokens=64)
    for s, o in zip(sample, tok.batch_decode(out, skip_special_tokens=True)):
        print(f"  {s!r} -> {o!r}")

    package(args, work, hf)


def package(args, work: Path, hf: Path) -> None:
    """The checkpoint in `hf` as CTranslate2 int8 in an Argos package, installed, and as a traductor bundle."""
    ct2 = work / "ct2"
    subprocess.run(
        [sys.executable, "-m", "ctranslate2.converters.transformers", "--model", str(hf)]
        + ["--output_dir", str(ct2), "--quantization", "int8", "--force"],
        check=True,
    )
    folder = work / "package" / "translate-en_es-1_0"
    folder.mkdir(parents=True, exist_ok=True)
    metadata = {
        "package_version": "1.0",
        "argos_version": "1.0",
        "from_code": "en",
        "from_name": "English",
        "to_code": "es",
        "to_name": "Spanish",
        "type": "translate",
        "package_name": "en_es (trained Marian stand-in, issue 43)",
    }
    (folder / "metadata.json").write_text(json.dumps(metadata))
    (folder / "sentencepiece.model").write_bytes((hf / "source.spm").read_bytes())
    sentence_model(folder / "minisbd" / "en.onnx")
    archive = work / "translate-en_es.argosmodel"
    with zipfile.ZipFile(archive, "w") as z:
        for name in ("metadata.json", "sentencepiece.model", "minisbd/en.onnx"):
            z.write(folder / name, f"{folder.name}/{name}")
        for f in sorted(ct2.iterdir()):
            z.write(f, f"{folder.name}/model/{f.name}")
    env = dict(os.environ, ARGOS_PACKAGES_DIR=str(work / "argos-packages"))
    shutil.rmtree(work / "argos-packages", ignore_errors=True)  # the packages of an earlier build
    install = "import sys, argostranslate.package as p; p.install_from_path(sys.argv[1])"
    subprocess.run([args.lt_python, "-c", install, str(archive)], env=env, check=True)
    # LibreTranslate fetches the package index at start when fewer than two packages are installed
    # (and this machine cannot reach it): the same files once more, declared es -> en, never called.
    reverse = work / "translate-es_en.argosmodel"
    metadata.update(from_code="es", from_name="Spanish", to_code="en", to_name="English")
    with zipfile.ZipFile(archive) as old, zipfile.ZipFile(reverse, "w") as z:
        for item in old.namelist():
            data = json.dumps(metadata).encode() if item.endswith("metadata.json") else old.read(item)
            z.writestr(item.replace(folder.name, "translate-es_en-1_0"), data)
    subprocess.run([args.lt_python, "-c", install, str(reverse)], env=env, check=True)
    subprocess.run(
        [sys.executable, "-c", "from traductor.cli import main; main()", "import", str(hf)]
        + ["--out", str(work / "bundle"), "--quantize", "int8", "--source", "en", "--target", "es", "--force"],
        check=True,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(port: int, path: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", path)
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"nothing answered on port {port} within {seconds:.0f} s")


def load(port: int, texts: list[str], clients: int, seconds: float) -> dict:
    """`clients` closed-loop clients for `seconds` (after 1 s unmeasured): requests/s, p50, answer length."""
    bodies = [json.dumps({"q": t, "source": "en", "target": "es"}).encode() for t in texts]
    headers = JSON
    start = threading.Barrier(clients + 1)
    state = {"measure_from": 0.0, "stop_at": 0.0}
    results: list[list] = [[] for _ in range(clients)]
    errors: list[str] = []

    def client(n: int) -> None:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = n * 7
        start.wait()
        while True:
            t0 = time.perf_counter()
            if t0 >= state["stop_at"]:
                return
            c.request("POST", "/translate", bodies[i % len(bodies)], headers)
            r = c.getresponse()
            body = r.read()
            t1 = time.perf_counter()
            if r.status != 200:
                errors.append(f"{r.status} {body[:200]!r}")
                return
            if t0 >= state["measure_from"] and t1 <= state["stop_at"]:
                results[n].append((t1 - t0, len(json.loads(body)["translatedText"])))
            i += 1

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    for t in threads:
        t.start()
    now = time.perf_counter()
    state["measure_from"], state["stop_at"] = now + 1.0, now + 1.0 + seconds
    start.wait()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"port {port}: {errors[0]}")
    done = [x for r in results for x in r]
    return {
        "requests_per_s": len(done) / seconds,
        "p50_ms": 1000 * statistics.median(d for d, _ in done) if done else float("nan"),
        "answer_chars": statistics.mean(n for _, n in done) if done else float("nan"),
    }


def warm(port: int, texts: list[str]) -> list[str]:
    """A few calls, one after the other, unmeasured (LibreTranslate loads its model at the first)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    answers = []
    for t in texts:
        c.request("POST", "/translate", json.dumps({"q": t, "source": "en", "target": "es"}).encode(), JSON)
        r = c.getresponse()
        answers.append(json.loads(r.read())["translatedText"] if r.status == 200 else f"HTTP {r.status}")
    return answers


def run(args) -> None:
    from traductor_client.loadtest.inputs import load_texts

    work = Path(args.work).resolve()
    texts = list(load_texts())
    # each traductor variant: its name and the `traductor serve` options it adds to the defaults
    variants = {"traductor": args.serve_args.split()}
    if args.thread_too:
        variants["traductor thread"] = [*args.serve_args.split(), "--no-engine-process"]
    ports = {"libretranslate": free_port(), **{name: free_port() for name in variants}}
    env = dict(os.environ, ARGOS_PACKAGES_DIR=str(work / "argos-packages"))
    lt = [args.libretranslate, "--host", "127.0.0.1", "--port", str(ports["libretranslate"]), "--load-only", "en,es"]
    procs = [subprocess.Popen(lt, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    for name, extra in variants.items():
        tr = [sys.executable, "-c", "from traductor.cli import main; main()", "serve", "--model", str(work / "bundle")]
        tr += ["--host", "127.0.0.1", "--port", str(free_port()), "--http-port", str(ports[name])]
        tr += ["--metrics-port", "0", "--no-memory", *extra]  # its defaults otherwise (one log line a call)
        procs.append(subprocess.Popen(tr, stdout=subprocess.DEVNULL))
    try:
        for name, port in ports.items():  # warm-up, and the first answers of each
            wait_http(port, "/languages")
            print(f"{name}: {warm(port, texts[:8])}", flush=True)
        clients = [int(c) for c in args.clients.split(",")]
        rounds: list[dict] = []
        for r in range(args.rounds):
            row: dict = {}
            order = list(ports) if r % 2 == 0 else list(reversed(ports))
            for n in clients:
                for name in order:
                    row[f"{name} {n}"] = load(ports[name], texts, n, args.seconds)
            rounds.append(row)
            print(f"round {r + 1} ({os.getloadavg()[0]:.1f} load): {json.dumps(row)}", flush=True)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(30)
    print(f"\nmedians of {args.rounds} rounds, {len(texts)} sentences, POST /translate")
    for n in clients:
        for name in ports:
            med = {k: statistics.median(r[f"{name} {n}"][k] for r in rounds) for k in rounds[0][f"{name} {n}"]}
            print(
                f"{n:>3} clients {name:>16}: {med['requests_per_s']:8.1f} requests/s, "
                f"p50 {med['p50_ms']:7.2f} ms, answers {med['answer_chars']:.1f} chars"
            )
        for name in variants:
            ratio = statistics.median(
                r[f"{name} {n}"]["requests_per_s"] / r[f"libretranslate {n}"]["requests_per_s"] for r in rounds
            )
            print(f"{n:>3} clients {name} / LibreTranslate: x{ratio:.2f} (median of the rounds' ratios)")
    if args.out:
        Path(args.out).write_text(json.dumps({"clients": clients, "rounds": rounds}, indent=1))


CT2_CHILD = """
import sys, time, ctranslate2, sentencepiece
sp = sentencepiece.SentencePieceProcessor(model_file=sys.argv[2] + "/sentencepiece.model")
tr = ctranslate2.Translator(sys.argv[2] + "/model", inter_threads=1, intra_threads=0)  # Argos's defaults
texts = open(sys.argv[1], encoding="utf-8").read().split("\\n")
def one(i):  # as Argos Translate's apply_packaged_translation calls it
    tr.translate_batch([sp.encode(texts[i], out_type=str)], replace_unknowns=True, max_batch_size=32,
                       batch_type="tokens", beam_size=4, num_hypotheses=1, length_penalty=0.2, return_scores=True)
for i in range(4):
    one(i)
print("ready", flush=True)
for line in sys.stdin:
    t0 = time.perf_counter()
    one(int(line))
    print(time.perf_counter() - t0, flush=True)
"""


def engines(args) -> None:
    """The two engines alone at batch 1 on the short texts, text after text, alternated call by call:
    CTranslate2 as Argos Translate calls it (beam 4, its threads) and traductor's scheduler as
    `traductor serve` runs it on this machine (1 ONNX Runtime thread, greedy; a beam of 4 for one or
    two pieces), each in a process of its own (scripts/measure/per_call.py --engine-server)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import per_call

    work = Path(args.work).resolve()
    texts = per_call.short_texts()
    listing = work / "short-texts.txt"
    listing.write_text("\n".join(texts), encoding="utf-8")
    package = work / "argos-packages" / "translate-en_es-1_0"
    ct2 = subprocess.Popen(
        [args.lt_python, "-c", CT2_CHILD, str(listing), str(package)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    ours = subprocess.Popen(
        [sys.executable, per_call.__file__, "--engine-server", "--bundle", str(work / "bundle")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    times: dict[str, list[float]] = {"ctranslate2": [], "traductor": []}
    try:
        for child in (ct2, ours):
            assert child.stdout.readline().strip() == "ready"
        begin = time.perf_counter()
        while time.perf_counter() - begin < args.seconds:
            for i in range(len(texts)):
                for name, child in (("ctranslate2", ct2), ("traductor", ours)):
                    child.stdin.write(f"{i}\n")
                    child.stdin.flush()
                    times[name].append(float(child.stdout.readline().split()[0]))
    finally:
        for child in (ct2, ours):
            child.stdin.close()
            child.wait(30)
    ratio = statistics.median(o / c for o, c in zip(times["traductor"], times["ctranslate2"]))
    for name, t in times.items():
        print(f"{name:>12}: {1000 * statistics.mean(t):.2f} ms a text (mean), {1000 * statistics.median(t):.2f} median")
    print(
        f"{len(times['traductor'])} pairs, traductor / CTranslate2: x{ratio:.2f} (median of the pairs), load "
        f"{os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="the Marian weights, their CTranslate2 and Argos package, the traductor bundle")
    b.add_argument("--work", required=True)
    b.add_argument("--lt-python", required=True, help="the Python of LibreTranslate's venv")
    b.add_argument("--steps", type=int, default=200, help="training steps (16 sentences each)")
    b.add_argument(
        "--package-only", action="store_true", help="package the checkpoint an earlier build left in WORK/hf"
    )
    r = sub.add_parser("run", help="serve both and measure")
    r.add_argument("--work", required=True)
    r.add_argument("--libretranslate", required=True, help="LibreTranslate's command")
    r.add_argument("--clients", default="1,32")
    r.add_argument("--seconds", type=float, default=8.0)
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--out")
    r.add_argument("--serve-args", default="", help="more options for `traductor serve`")
    r.add_argument(
        "--thread-too", action="store_true", help="also serve traductor with --no-engine-process, in the same rounds"
    )
    e = sub.add_parser("engines", help="the two engines alone at batch 1, alternated")
    e.add_argument("--work", required=True)
    e.add_argument("--lt-python", required=True, help="the Python of LibreTranslate's venv (ctranslate2)")
    e.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    {"build": build, "run": run, "engines": engines}[args.command](args)


if __name__ == "__main__":
    main()
