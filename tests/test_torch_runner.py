"""The PyTorch runner (engine/torch_runner.py) behind the serving scheduler, on the CPU: the
reference's tokens (greedy, beam), the same text alone or in any batch (greedy, beam, seeded
sampling, requests joining mid-decode), streaming, cancellation, the queue's refusal, the step
metrics; imported Marian and M2M100/NLLB weights giving transformers' logits; and the one-line
errors of `--device` where torch, CUDA or the weights are missing.

Reference token lists end with EOS when one was produced; FinishEvent.token_ids never hold it.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys

import numpy as np
import pytest
import torch
from test_engine import Collector  # a sink that keeps every event
from tiny_task import synthetic_pairs

from traductor.cli import main
from traductor.engine import torch_weights
from traductor.engine.bundle import load_bundle
from traductor.engine.request import FinishEvent, FinishReason, Request, Status
from traductor.engine.scheduler import Scheduler
from traductor.engine.torch_runner import TorchRunner
from traductor.engine.translator import OnnxTranslator
from traductor.errors import BundleError, CommandError, MissingDependency, QueueFull
from traductor.model import checkpoint
from traductor.model.generate import beam_search, greedy
from traductor.model.translator import TorchTranslator
from traductor.options import DecodingOptions, resolve

MAX_NEW = 24


@pytest.fixture(scope="module")
def reference(tiny_checkpoint):
    model, tokenizer, _ = checkpoint.load(tiny_checkpoint)
    return model, tokenizer


@pytest.fixture(scope="module")
def engine(tiny_bundle, tiny_checkpoint) -> OnnxTranslator:
    """The tiny bundle's model in the PyTorch runner, weights from the checkpoint it was exported from."""
    bundle = load_bundle(tiny_bundle)
    runner = torch_weights.torch_runner(bundle, "cpu", weights=tiny_checkpoint, threads=1)
    return OnnxTranslator(bundle, max_rows=32, runner=runner)


@pytest.fixture(scope="module")
def sources(reference) -> list[list[int]]:
    _, tokenizer = reference
    texts = [s for s, _ in synthetic_pairs(14, seed=21)] + ["cero", "nueve " * 9 + "%s", "Permission denied"]
    rng = random.Random(4)
    ids = [tokenizer.encode(t)[0] for t in texts]
    return ids + [[rng.randrange(4, tokenizer.vocab_size) for _ in range(n)] + [3] for n in (1, 17, 38)]


ENDED_AT_EOS = {r for r in FinishReason if r.value in ("eos", "loop")}  # loop: an EOS the loop rule forced


def with_eos(event: FinishEvent, eos: int = 3) -> list[int]:
    return event.token_ids + ([eos] if event.reason in ENDED_AT_EOS else [])


def alone(fn, model, sources, *args, **kw) -> list[list[int]]:
    return [fn(model, [s], *args, **kw)[0] for s in sources]


# ---- the reference's tokens --------------------------------------------------------------------


@pytest.mark.parametrize("batch_size", [1, 5, 32])
def test_greedy_equals_the_reference(reference, engine, sources, batch_size):
    model, tokenizer = reference
    expected = alone(greedy, model, sources, MAX_NEW, use_cache=False, placeholder_ids=tokenizer.placeholder_ids)
    events = engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW), batch_size=batch_size)
    assert [with_eos(e) for e in events] == expected
    assert sum(len(t) > 2 for t in expected) > len(expected) // 2  # real outputs, not immediate EOS


@pytest.mark.parametrize("beam", [2, 4])
def test_beam_equals_the_reference(reference, engine, sources, beam):
    model, tokenizer = reference
    expected = alone(beam_search, model, sources, beam, MAX_NEW, placeholder_ids=tokenizer.placeholder_ids)
    events = engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW, beam_size=beam), batch_size=32)
    assert [with_eos(e) for e in events] == expected


def test_translate_equals_the_pytorch_translator(reference, engine):
    """Text in, text out: the `--engine pytorch` translator's texts, greedy and beam."""
    model, tokenizer = reference
    texts = [s for s, _ in synthetic_pairs(20, seed=22)] + ["dos %1$s tres {name}", ""]
    torch_translator = TorchTranslator(model, tokenizer)
    assert engine.translate(texts) == torch_translator.translate(texts)
    assert engine.translate(texts, beam_size=3) == torch_translator.translate(texts, beam_size=3)


# ---- same input, same output ------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        DecodingOptions(max_new_tokens=MAX_NEW, return_scores=True),
        DecodingOptions(max_new_tokens=MAX_NEW, beam_size=3, return_scores=True),
        DecodingOptions(max_new_tokens=MAX_NEW, temperature=2.0, top_k=50, top_p=0.95, seed=7, return_scores=True),
    ],
    ids=["greedy", "beam3", "sampling"],
)
def test_a_batch_gives_each_its_alone_output(engine, sources, options):
    """Tokens equal, scores to 1e-5, whatever the batch: its size, its order, the engine's rows."""
    solo = [engine.generate([s], options)[0] for s in sources]
    for batch_size, order in ((32, sources), (7, sources), (5, sources[::-1])):
        events = engine.generate(order, options, batch_size=batch_size)
        events = events if order is sources else events[::-1]
        assert [e.token_ids for e in events] == [e.token_ids for e in solo], batch_size
        for e, s in zip(events, solo):
            np.testing.assert_allclose(e.logprobs, s.logprobs, atol=1e-5)


def test_sampling_follows_its_seed(engine, sources):
    opts = dict(max_new_tokens=MAX_NEW, temperature=2.0, top_k=50, top_p=0.95)
    first = [e.token_ids for e in engine.generate(sources, DecodingOptions(seed=7, **opts))]
    assert [e.token_ids for e in engine.generate(sources, DecodingOptions(seed=7, **opts))] == first
    assert [e.token_ids for e in engine.generate(sources, DecodingOptions(seed=8, **opts))] != first


def request(engine, rid: str, source: list[int], options: DecodingOptions, stream: bool = True):
    sink = Collector()
    return Request(rid, list(source), [], resolve(options, len(source), engine.limits), sink, stream=stream), sink


def test_requests_joining_and_leaving_mid_decode_get_their_alone_tokens(engine, sources):
    """B (beam) and C join while A decodes, A and C leave while others go on (rows move in the
    device cache); each gets its alone tokens, and the cache ends empty."""
    greedy_opts = DecodingOptions(max_new_tokens=MAX_NEW)
    beam_opts = DecodingOptions(max_new_tokens=MAX_NEW, beam_size=3)
    plan = [("A", sources[15], greedy_opts, 0), ("B", sources[0], beam_opts, 2), ("C", sources[14], greedy_opts, 3)]
    plan.append(("D", sources[-1], greedy_opts, 5))
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=8, max_queue=8)
    sinks: dict[str, Collector] = {}
    step = 0
    while step == 0 or scheduler.has_work() or len(sinks) < len(plan):
        for rid, src, opts, at in plan:
            if at == step:
                req, sinks[rid] = request(engine, rid, src, opts)
                scheduler.submit(req)
        scheduler.step()
        step += 1
    for rid, src, opts, _ in plan:
        solo = engine.generate([src], opts)[0]
        assert sinks[rid].finish.token_ids == solo.token_ids and sinks[rid].finish.text == solo.text, rid
    assert scheduler.cache.rows == 0 and scheduler.cache.nbytes() == 0


# ---- streaming, cancellation, the queue, metrics ------------------------------------------------


def test_streamed_deltas_add_up_to_the_text(engine, sources):
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=4, max_queue=4)
    req, sink = request(engine, "s", sources[1], DecodingOptions(max_new_tokens=MAX_NEW))
    scheduler.submit(req)
    while scheduler.has_work():
        scheduler.step()
    assert [t.token_id for t in sink.tokens] == sink.finish.token_ids and sink.finish.token_ids
    assert "".join(t.text_delta for t in sink.tokens) + sink.finish.final_delta == sink.finish.text


def test_cancellation_frees_the_rows_and_the_others_go_on(engine, sources):
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=4, max_queue=4)
    options = DecodingOptions(max_new_tokens=MAX_NEW, min_new_tokens=MAX_NEW)
    (gone, gone_sink), (kept, kept_sink) = (request(engine, r, sources[i], options) for r, i in (("x", 2), ("y", 3)))
    scheduler.submit_many([gone, kept])
    scheduler.step()
    scheduler.step()
    assert scheduler.cache.rows == 2 and scheduler.last.rows == 2 and scheduler.cache.nbytes() > 0
    gone.cancelled = True
    scheduler.step()
    assert gone_sink.finish.reason is FinishReason.CANCELLED and gone.state.status is Status.FINISHED
    assert scheduler.cache.rows == 1
    while scheduler.has_work():
        scheduler.step()
    assert kept_sink.finish.reason is FinishReason.LENGTH
    assert kept_sink.finish.token_ids == engine.generate([sources[3]], options)[0].token_ids


def test_a_full_queue_refuses(engine, sources):
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=2, max_queue=2)
    options = DecodingOptions(max_new_tokens=4)
    scheduler.submit_many([request(engine, str(i), sources[i], options)[0] for i in range(2)])
    with pytest.raises(QueueFull):
        scheduler.submit(request(engine, "over", sources[2], options)[0])


def test_step_metrics_count_rows_and_admissions(engine, sources):
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=8, max_queue=8)
    reqs = [request(engine, str(i), sources[i], DecodingOptions(max_new_tokens=5, beam_size=2))[0] for i in range(3)]
    scheduler.submit_many(reqs)
    scheduler.step()
    assert scheduler.last.admitted == 3 and scheduler.last.rows == 6
    assert scheduler.last.encode_seconds > 0 and scheduler.last.step_seconds > 0


# ---- imported models: transformers' weights, transformers' logits --------------------------------


def _hf_models():
    transformers = pytest.importorskip("transformers")
    common = dict(
        vocab_size=50,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=64,
    )
    marian = transformers.MarianConfig(
        pad_token_id=49, eos_token_id=0, decoder_start_token_id=49, activation_function="swish", **common
    )
    m2m = transformers.M2M100Config(
        pad_token_id=1, eos_token_id=2, bos_token_id=0, decoder_start_token_id=2, encoder_layerdrop=0.0, **common
    )
    torch.manual_seed(0)
    return {
        "marian": transformers.MarianMTModel(marian).eval(),
        "m2m_100": transformers.M2M100ForConditionalGeneration(m2m).eval(),
    }


@pytest.mark.parametrize("kind", ["marian", "m2m_100"])
def test_imported_weights_give_transformers_logits(kind):
    """OPUS-MT (post-norm, swish, Marian's sinusoid) and NLLB/M2M100 (pre-norm, fairseq's
    sinusoid), mapped by the importer: each decoder step's logits are transformers' at that
    position, for rows at different positions and source lengths in one batch."""
    from traductor_export.hf_checkpoint import model_config, variants
    from traductor_export.importers import build_model

    hf = _hf_models()[kind]
    cfg = model_config(hf.config.to_dict(), hf.config.vocab_size, **variants(kind, hf.config.to_dict()))
    runner = TorchRunner(build_model(hf, cfg), threads=1)
    rng = np.random.default_rng(1)
    lengths, pad = (5, 9, 3), cfg.pad_id
    ids = np.full((3, 9), pad, dtype=np.int64)
    for i, n in enumerate(lengths):
        ids[i, :n] = rng.integers(3, 40, n)
    padding = ids == pad
    targets = rng.integers(3, 40, (3, 6))
    targets[:, 0] = cfg.bos_id
    with torch.no_grad():
        expected = hf(
            input_ids=torch.from_numpy(ids),
            attention_mask=torch.from_numpy(~padding).long(),
            decoder_input_ids=torch.from_numpy(targets),
        ).logits.numpy()
    cache = runner.new_cache(4)
    cache.add_rows(runner.encode(ids, padding), padding, [1, 1, 1])
    for t in range(targets.shape[1]):
        cache.ensure_positions(t)
        past, cross, padding_view = cache.views()
        logits, _ = runner.step(targets[:, t : t + 1], np.full(3, t), padding_view, past, cross)
        np.testing.assert_allclose(logits, expected[:, t], atol=1e-4, rtol=1e-4)


# ---- --device: errors in one line -----------------------------------------------------------------


def test_device_cuda_without_cuda_is_one_line():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(MissingDependency, match="no CUDA GPU"):
        torch_weights.check_device("cuda")
    with pytest.raises(CommandError, match="expected cpu, cuda or cuda:N"):
        torch_weights.check_device("gpu")
    with pytest.raises(CommandError, match="--dtype fp16 is for CUDA"):
        torch_weights.check_device("cpu", "fp16")


def test_weights_that_are_not_the_bundles_model_are_refused(tiny_bundle, tiny_checkpoint, tmp_path, reference):
    model, _ = reference
    other = type(model)(type(model.cfg)(**{**model.cfg.to_dict(), "d_ff": 96}))
    checkpoint.save(other, tmp_path / "other", tokenizer_file=tiny_checkpoint / "tokenizer.model")
    bundle = load_bundle(tiny_bundle)
    with pytest.raises(BundleError, match=r"d_ff 96 \(bundle: 80\)"):
        torch_weights.load_transformer(bundle, tmp_path / "other")
    with pytest.raises(BundleError, match="has none: put the checkpoint"):
        torch_weights.find_weights(bundle)


def _cli(*argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    code = "import sys\nfrom traductor.cli import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *argv], input=stdin, capture_output=True, text=True, timeout=300)


def test_translate_device_cpu_equals_the_pytorch_engine_on_the_packaged_model():
    """`traductor translate --device cpu` (packaged bundle, packaged checkpoint's weights) prints
    what `--engine pytorch` prints, line for line."""
    text = "Permission denied\nCould not open file %s: %s\nSave the changes to the document before closing?\n"
    torch_side = _cli("translate", "--device", "cpu", "--threads", "1", stdin=text)
    assert torch_side.returncode == 0, torch_side.stderr
    reference_side = _cli("translate", "--engine", "pytorch", stdin=text)
    assert torch_side.stdout == reference_side.stdout and len(torch_side.stdout.splitlines()) == 3


def test_device_cuda_from_the_commands_is_one_line(capsys, monkeypatch):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    monkeypatch.setattr(sys, "stdin", io.StringIO("Permission denied\n"))
    for argv in (["translate", "--device", "cuda"], ["bench", "--device", "cuda", "--batches", "1", "--runs", "1"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "PyTorch sees no CUDA GPU" in err[0], err


def test_serve_offers_device(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "--device" in out and "--dtype" in out
