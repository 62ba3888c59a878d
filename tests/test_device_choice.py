"""Token choice on the device (engine/torch_choice.py, issue 58) gives the host's tokens
(engine/decoding.py), on the CPU (the pieces and the rules on a GPU too, where the machine has
one): the same rules from the same descriptions, the same argmax, the same order of the K best,
the same draws.

    the pieces      greedy and the plain rows' log p on every kind of row the rules treat apart;
                    the K best with ties and -inf; sampling's filters and draw
    every rule      models that loop, owe placeholders or mix registers on purpose (loop_model.py,
                    test_register_bans.py), each mode, the device's logits against the host's
    the runner      the trained tiny model in the PyTorch runner, device choice against host
                    choice and the reference decoding (greedy, beam, seeded sampling), alone and
                    in any batch; an imported model's rules and transformers' beam search

Where the two may differ (float reductions: a row's softmax sum; docs/gpu.md) the tests say so:
log p agrees to float32 rounding, tokens exactly.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
import test_import as imported
import test_register_bans as said
import torch
import transformers
from loop_model import END, PLACEHOLDER, LoopRunner, PlaceholderTokenizer
from test_import import marian_bundle, marian_dir, nllb_bundle, nllb_dir  # noqa: F401  (fixtures)
from test_token_choice import EOS, PLACEHOLDERS, V, request, requests

from traductor.engine import decoding, selection, torch_weights
from traductor.engine.bundle import load_bundle
from traductor.engine.scheduler import Scheduler
from traductor.engine.torch_choice import TorchChoice, sample, top
from traductor.engine.translator import OnnxTranslator, drive
from traductor.model import checkpoint
from traductor.model.constraints import Constraints
from traductor.model.generate import beam_search, greedy
from traductor.model.generation import GenerationConfig
from traductor.options import DecodingOptions, Limits, resolve

CPU = TorchChoice(torch.device("cpu"))
# the pieces and the rules run on every device this machine has: the CPU here, a GPU's too where one is
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
LOGP_TOLERANCE = 2e-6  # float32 rounding of a row's softmax sum, summed in another order
# the logits themselves, from steps of other shapes (the CPU's kernels: docs/gpu.md); 1.3e-5 seen on
# an AVX2-only AMD EPYC at step 22 of a forced-length decode (min-new), the tokens all equal
BATCH_TOLERANCE = 5e-5


class OnDevice:
    """A numpy test runner whose logits come as torch tensors on `device`, chosen by TorchChoice:
    the PyTorch runner's device path over any model."""

    def __init__(self, runner, device: str = "cpu"):
        self.runner, self.model, self.generation = runner, runner.model, runner.generation
        self.choice = TorchChoice(torch.device(device))

    def new_cache(self, max_rows: int):
        return self.runner.new_cache(max_rows)

    def encode(self, source_ids, source_padding):
        return self.runner.encode(source_ids, source_padding)

    def step(self, *inputs):
        logits, new_kv = self.runner.step(*inputs)
        return torch.from_numpy(np.array(logits, dtype=np.float32)).to(self.choice.device), new_kv


def same_events(host, device, tolerance: float = LOGP_TOLERANCE):
    """Tokens, reasons and confidence equal; log p to float32 rounding."""
    assert [(e.token_ids, e.reason) for e in device] == [(e.token_ids, e.reason) for e in host]
    for d, h in zip(device, host):
        np.testing.assert_allclose(d.logprobs, h.logprobs, rtol=0, atol=tolerance)
        assert abs(d.confidence - h.confidence) <= 1e-4


# ---- the pieces ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "generation", [None, GenerationConfig(suppressed_ids=(7, 20), forced_eos_at_limit=True)], ids=["own", "imported"]
)
@pytest.mark.parametrize("rows", [[0], list(range(8)), [5, 0, 3, 7, 1, 2, 6, 4], [9, 2, 11]])
@pytest.mark.parametrize("device", DEVICES)
def test_plain_rows_choose_the_hosts_tokens(rows, generation, device):
    """Every kind of row (plain, too short, owing a placeholder, looping, looping and owing, forced
    first, at the limit, sampling), with ties: the host's token, its log p to float32 rounding."""
    rng = np.random.default_rng(len(rows))
    constraints = Constraints(PLACEHOLDERS, EOS)
    n_rows = max(rows) + 1
    for _ in range(5):
        logits = (rng.standard_normal((n_rows, V)) * 4).astype(np.float32)
        logits[:, 13] = logits[:, 14]  # ties: the first wins
        host = decoding.choose_plain(requests(rows), logits.copy(), n_rows, constraints, generation)
        on = TorchChoice(torch.device(device))
        got = on.plain(requests(rows), torch.from_numpy(logits.copy()).to(device), n_rows, constraints, generation)
        assert [t for t, _ in got] == [t for t, _ in host]
        np.testing.assert_allclose([p for _, p in got], [p for _, p in host], rtol=0, atol=LOGP_TOLERANCE)


def test_exact_ties_and_a_row_masked_whole_choose_as_on_the_host():
    """Equal logits: the first wins on both. Every token banned: token 0, its own logit's log p."""
    constraints = Constraints(PLACEHOLDERS, EOS)
    logits = np.zeros((3, V), dtype=np.float32)  # rows 0 and 1: every token tied
    logits[2, [30, 9, 40]] = 5.0  # three tied bests: 9 first
    make = lambda: [request(0, tokens=[9], min_new=5), request(1, tokens=[9]), request(2, tokens=[9])]  # noqa: E731
    host = decoding.choose_plain(make(), logits.copy(), 3, constraints)
    device = CPU.plain(make(), torch.from_numpy(logits.copy()), 3, constraints, None)
    assert [t for t, _ in device] == [t for t, _ in host] == [0, 0, 9]
    everything = GenerationConfig(suppressed_ids=tuple(i for i in range(V) if i != EOS))
    host = decoding.choose_plain(make()[:1], logits[:1].copy(), 1, constraints, everything)
    device = CPU.plain(make()[:1], torch.from_numpy(logits[:1].copy()), 1, constraints, everything)
    assert host[0][0] == device[0][0] == 0 and np.isfinite(device[0][1])
    assert abs(host[0][1] - device[0][1]) <= LOGP_TOLERANCE


@pytest.mark.parametrize("device", DEVICES)
def test_the_k_best_are_the_hosts_with_ties_and_minus_infinity(device):
    """`top` orders as numpy's stable argsort (transformers' beam search on the host): by value,
    equal values by the lower index; so do the host's `selection.top` and the project's beam search
    on the host (selection.beam_step), ties across the K-th place included."""
    rng = np.random.default_rng(5)
    boundary_ties = 0
    for n, k in ((12, 3), (40, 8), (300, 6), (5, 5)):
        for _ in range(40):
            x = rng.integers(-3, 3, n).astype(np.float64)  # many ties
            x[rng.random(n) < 0.4] = -np.inf
            want = np.argsort(-x, kind="stable")[:k]
            got = top(torch.from_numpy(x).to(device), k).cpu().numpy()
            assert got.tolist() == want.tolist()
            assert selection.top(x[None], k)[0].tolist() == want.tolist()
            zero = np.zeros((1, 1, 1))
            scores, _, host = selection.beam_step(
                x.reshape(1, 1, n), zero, zero, np.zeros((1, 1)), np.zeros((1, 1), bool), 0, k
            )
            assert host[0].tolist() == want.tolist() and np.array_equal(scores[0], x[want])
            boundary_ties += k < n and x[want[-1]] == np.sort(x)[::-1][k]
    assert boundary_ties > 0


@pytest.mark.parametrize("filters", [(1.0, 0, 1.0), (0.7, 0, 1.0), (2.0, 5, 1.0), (1.3, 0, 0.8), (3.0, 20, 0.9)])
@pytest.mark.parametrize("device", DEVICES)
def test_sampling_draws_the_hosts_token(filters, device):
    """Temperature, top-k, top-p and the draw, op for op: the same token for the same uniform number
    (the condition: the number does not fall within rounding of a boundary of the cumulative sums,
    about 1e-16 of their total, which 2,000 draws do not meet)."""
    temperature, top_k, top_p = filters
    rng = np.random.default_rng(11)
    for _ in range(40):
        row = (rng.standard_normal(V) * 3).astype(np.float32)
        row[rng.random(V) < 0.2] = -np.inf
        row[3] = row[4]
        for u in rng.random(50).tolist():
            fixed = types.SimpleNamespace(random=lambda u=u: u)
            want = selection.sample(row, temperature, top_k, top_p, fixed)
            assert int(sample(torch.from_numpy(row).to(device), temperature, top_k, top_p, u)) == want


# ---- every rule, through the scheduler -----------------------------------------------------------

LIMITS = Limits(max_input_tokens=64, max_new_tokens=64, max_beam_size=4)
MODES = {
    "greedy": DecodingOptions(return_scores=True),
    "sampling": DecodingOptions(temperature=6.0, top_k=12, top_p=0.95, seed=3, return_scores=True),
    "beam": DecodingOptions(beam_size=3, return_scores=True),
    "min-new": DecodingOptions(min_new_tokens=12, return_scores=True),
    "loops-off": DecodingOptions(stop_loops=False, max_new_tokens=20, return_scores=True),
}
LOOPING = [[7, EOS], [7, 8, EOS], [9, 10, 11, EOS], [END, 9, 10, 11, EOS], [END] + [6] * 5 + [EOS]]
LOOPING += [[6] * 5 + [9, EOS], [7, PLACEHOLDER, EOS], [END, 9, PLACEHOLDER, 10, EOS]]


def run(runner, sources, options, tokenizer=None, rows: int = 16):
    scheduler = Scheduler(runner, tokenizer, max_rows=rows, max_queue=len(sources) + 1)
    return drive(scheduler, [(s, [], resolve(options, len(s), LIMITS)) for s in sources])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "generation",
    [
        None,
        GenerationConfig(suppressed_ids=(5, 9), forced_eos_at_limit=True),
        GenerationConfig(beam="transformers", length_penalty=1.2, forced_eos_at_limit=True, renormalize=True),
        GenerationConfig(beam="transformers", early_stopping=True, suppressed_ids=(8,)),
    ],
    ids=["own", "imported", "transformers-beam", "transformers-early"],
)
@pytest.mark.parametrize("device", DEVICES)
def test_loops_placeholders_and_a_models_rules_choose_as_on_the_host(mode, generation, device):
    """The loop rule, EOS and placeholders, min_new_tokens, an imported model's suppressed ids,
    forced EOS at the limit, renormalized log p, transformers' beam search: the device's events
    are the host's. The loop model's logits tie most tokens: beams choose among equal scores."""
    tokenizer = PlaceholderTokenizer()
    host = run(LoopRunner(generation), LOOPING, MODES[mode], tokenizer)
    on_device = run(OnDevice(LoopRunner(generation), device), LOOPING, MODES[mode], tokenizer)
    same_events(host, on_device)
    assert any(e.reason.value == "loop" for e in host) or mode == "loops-off"


@pytest.mark.parametrize("search", ["traductor", "transformers"])
@pytest.mark.parametrize("device", DEVICES)
def test_every_kind_of_request_in_one_step_chooses_as_on_the_host(search, device):
    """Greedy, sampled, beams of 2, 3 and 4 (two of 3), min_new_tokens, in one scheduler: the beam
    requests of one K chosen together, each request's events the host's."""
    kinds = [MODES["greedy"], MODES["sampling"], DecodingOptions(beam_size=3, return_scores=True), MODES["min-new"]]
    kinds += [DecodingOptions(beam_size=k, return_scores=True) for k in (2, 4, 3)]
    work = [(s, [], resolve(kinds[i % len(kinds)], len(s), LIMITS)) for i, s in enumerate(LOOPING * 2)]
    generation = GenerationConfig(beam=search, forced_eos_at_limit=True)
    events = []
    for runner in (LoopRunner(generation), OnDevice(LoopRunner(generation), device)):
        scheduler = Scheduler(runner, PlaceholderTokenizer(), max_rows=64, max_queue=len(work) + 1)
        events.append(drive(scheduler, work))
    same_events(*events)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_register_bans_choose_as_on_the_host_and_the_reference(mode, device):
    sources = [said.INFORMAL_ASKED, said.FORMAL_ASKED, *said.WORDS, [said.FORMAL, said.PAREN, said.GLUED_DU, 17, EOS]]
    tokenizer = said.RegisterTokenizer()
    host = run(said.SayRunner(), sources, MODES[mode], tokenizer)
    on_device = run(OnDevice(said.SayRunner(), device), sources, MODES[mode], tokenizer)
    same_events(host, on_device)
    if mode in ("greedy", "beam"):
        assert [e.token_ids for e in on_device] == said.reference(sources, mode)


def test_a_forced_first_token_is_forced_on_the_device():
    class Forcing(PlaceholderTokenizer):
        def forced_first(self, target_language):
            return 13

    plain, beam = GenerationConfig(forced_eos_at_limit=True), GenerationConfig(beam="transformers")
    for options, generation in ((MODES["greedy"], plain), (MODES["sampling"], plain), (MODES["beam"], beam)):
        host = run(LoopRunner(generation), LOOPING[:4], options, Forcing())
        device = run(OnDevice(LoopRunner(generation)), LOOPING[:4], options, Forcing())
        same_events(host, device)
        assert all(e.token_ids[:1] == [13] for e in device)


# ---- the PyTorch runner ------------------------------------------------------------------------

MAX_NEW = 24


@pytest.fixture(scope="module")
def runners(tiny_bundle, tiny_checkpoint):
    bundle = load_bundle(tiny_bundle)
    make = lambda on_device: OnnxTranslator(  # noqa: E731
        bundle,
        max_rows=32,
        runner=torch_weights.torch_runner(bundle, "cpu", weights=tiny_checkpoint, threads=1, device_choice=on_device),
    )
    return make(True), make(False)


@pytest.fixture(scope="module")
def tiny_sources(tiny_checkpoint):
    from tiny_task import synthetic_pairs

    _, tokenizer, _ = checkpoint.load(tiny_checkpoint)
    texts = [s for s, _ in synthetic_pairs(16, seed=31)] + ["dos %s tres {name}", "nueve " * 9 + "%s"]
    return [tokenizer.encode(t)[0] for t in texts]


def test_the_runner_chooses_on_the_device_and_the_logits_stay_there(runners):
    device, host = runners
    assert device.runner.choice is not None and "tokens chosen on the device" in device.runner.describe()
    assert host.runner.choice is None and "tokens chosen on the host" in host.runner.describe()


@pytest.mark.parametrize(
    "options",
    [
        DecodingOptions(max_new_tokens=MAX_NEW, return_scores=True),
        DecodingOptions(max_new_tokens=MAX_NEW, beam_size=4, return_scores=True),
        DecodingOptions(max_new_tokens=MAX_NEW, temperature=1.5, top_k=40, top_p=0.9, seed=5, return_scores=True),
        DecodingOptions(max_new_tokens=MAX_NEW, min_new_tokens=MAX_NEW, return_scores=True),
    ],
    ids=["greedy", "beam4", "sampling", "min-new"],
)
def test_the_runner_gives_the_host_paths_events_alone_and_in_any_batch(runners, tiny_sources, options):
    device, host = runners
    on_host = host.generate(tiny_sources, options, batch_size=32)
    same_events(on_host, device.generate(tiny_sources, options, batch_size=32))
    alone = [device.generate([s], options)[0] for s in tiny_sources]  # a text's output, whatever its batch
    for batch_size, order in ((7, tiny_sources), (5, tiny_sources[::-1])):
        events = device.generate(order, options, batch_size=batch_size)
        events = events if order is tiny_sources else events[::-1]
        same_events(alone, events, BATCH_TOLERANCE)
    same_events(on_host, alone, BATCH_TOLERANCE)


def test_the_runner_gives_the_reference_decodings_tokens(runners, tiny_sources, tiny_checkpoint):
    device, _ = runners
    model, tokenizer, _ = checkpoint.load(tiny_checkpoint)
    ids = tokenizer.placeholder_ids
    with_eos = lambda e: e.token_ids + ([model.cfg.eos_id] if e.reason.value in ("eos", "loop") else [])  # noqa: E731
    want = [greedy(model, [s], MAX_NEW, placeholder_ids=ids)[0] for s in tiny_sources]
    assert [with_eos(e) for e in device.generate(tiny_sources, DecodingOptions(max_new_tokens=MAX_NEW))] == want
    want = [beam_search(model, [s], 3, MAX_NEW, placeholder_ids=ids)[0] for s in tiny_sources]
    got = device.generate(tiny_sources, DecodingOptions(max_new_tokens=MAX_NEW, beam_size=3), batch_size=32)
    assert [with_eos(e) for e in got] == want


# ---- imported models: transformers' generate() ------------------------------------------------


def test_imported_models_give_generates_tokens_on_the_device(marian_dir, marian_bundle, nllb_dir, nllb_bundle):  # noqa: F811
    """OPUS-MT and NLLB (tiny, test_import.py's) in the PyTorch runner from their Hugging Face
    folders, tokens chosen on the device: generate()'s greedy and beam-4 ids (transformers' beam
    search, the model's suppressed PAD and EOS at the limit; NLLB's target language forced first),
    and the host path's events."""
    for hf_dir, bundle_dir, target, token in (
        (marian_dir, marian_bundle, "", None),
        (nllb_dir, nllb_bundle, "fra_Latn", "fra_Latn"),
    ):
        bundle = load_bundle(bundle_dir)
        translators = [
            OnnxTranslator(bundle, runner=torch_weights.torch_runner(bundle, "cpu", weights=hf_dir, device_choice=d))
            for d in (True, False)
        ]
        assert translators[0].runner.choice is not None and bundle.config.generation.beam == "transformers"
        sources = [translators[0].tokenizer.encode(t)[0] for t in imported.TESTS]
        tok = transformers.AutoTokenizer.from_pretrained(hf_dir)
        forced = None if token is None else tok.convert_tokens_to_ids(token)
        for beams in (1, 4):
            want = imported.hf_generate(hf_dir, imported.TESTS, beams, forced)
            assert imported.engine_ids(translators[0], sources, beams, target) == want, (hf_dir.name, beams)
            options = DecodingOptions(
                max_new_tokens=imported.NEW_TOKENS,
                beam_size=beams,
                target_language=target,
                stop_loops=False,
                return_scores=True,
            )
            same_events(*(t.generate(sources, options, batch_size=8) for t in translators[::-1]))
