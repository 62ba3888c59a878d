"""The ONNX engine gives the PyTorch reference's tokens: greedy, beam, any batch, any arrival time.

Reference `greedy`/`beam_search` token lists end with EOS when one was produced; the engine's
`FinishEvent.token_ids` never hold EOS (`reason == FinishReason.EOS` says it ended there), so
`with_eos()` puts it back before comparing.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tiny_task import synthetic_pairs

from traductor.engine.request import FinishEvent, FinishReason, Request, TokenEvent
from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import OnnxTranslator
from traductor.model import checkpoint
from traductor.model.constraints import Constraints, looped
from traductor.model.generate import beam_search, greedy
from traductor.model.translator import TorchTranslator
from traductor.options import DecodingOptions, resolve

MAX_NEW = 24


@pytest.fixture(scope="module")
def reference(tiny_checkpoint):
    model, tokenizer, _ = checkpoint.load(tiny_checkpoint)
    return model, tokenizer


@pytest.fixture(scope="module")
def engine(tiny_bundle) -> OnnxTranslator:
    return OnnxTranslator.load(tiny_bundle, threads=1, max_rows=32)


@pytest.fixture(scope="module")
def sources(reference) -> list[list[int]]:
    """Sentences of varied lengths (1 to ~40 tokens), some with placeholders, some out of domain."""
    _, tokenizer = reference
    texts = [s for s, _ in synthetic_pairs(14, seed=21)]
    texts += ["cero", "nueve " * 9 + "%s", "Permission denied", "uno, dos; ¿tres?"]
    rng = random.Random(4)
    ids = [tokenizer.encode(t)[0] for t in texts]
    ids += [[rng.randrange(4, tokenizer.vocab_size) for _ in range(n)] + [3] for n in (1, 17, 38)]
    return ids


def with_eos(event: FinishEvent, eos: int = 3) -> list[int]:
    assert eos not in event.token_ids
    ended = event.reason in (FinishReason.EOS, FinishReason.LOOP)  # LOOP: an EOS the loop rule forced
    return event.token_ids + ([eos] if ended else [])


def ref_alone(fn, model, sources, *args, **kw) -> list[list[int]]:
    return [fn(model, [s], *args, **kw)[0] for s in sources]


# ---- greedy ------------------------------------------------------------------------------------


def test_reference_padding_does_not_change_outputs(reference, sources):
    """PyTorch no-cache greedy: a sentence decoded in a padded batch gives the tokens it gives alone."""
    model, _ = reference
    alone = ref_alone(greedy, model, sources, MAX_NEW, use_cache=False)
    assert greedy(model, sources, MAX_NEW, use_cache=False) == alone
    assert sum(len(t) > 1 for t in alone) > len(alone) // 2  # real outputs, not immediate EOS


@pytest.mark.parametrize("batch_size", [1, 3, 32])
def test_onnx_greedy_equals_no_cache_reference(reference, engine, sources, batch_size):
    """Engine greedy (any batch size) == the textbook no-cache PyTorch loop, token for token
    (both with the placeholder constraint: EOS waits for the source's placeholder tokens)."""
    model, tokenizer = reference
    expected = ref_alone(greedy, model, sources, MAX_NEW, use_cache=False, placeholder_ids=tokenizer.placeholder_ids)
    events = engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW), batch_size=batch_size)
    assert [with_eos(e) for e in events] == expected
    limits = [Constraints(tokenizer.placeholder_ids, 3).repeat_limit(s) for s in sources]
    for e, exp, limit in zip(events, expected, limits):
        ended = FinishReason.LOOP if looped(e.token_ids, limit) else FinishReason.EOS  # the loop rule's EOS
        assert e.reason is (ended if exp[-1] == 3 else FinishReason.LENGTH)


def test_onnx_translate_equals_torch_translate(reference, engine):
    """Text in, text out: the ONNX translator and the PyTorch translator agree (greedy and beam)."""
    model, tokenizer = reference
    texts = [s for s, _ in synthetic_pairs(20, seed=22)] + ["dos %1$s tres {name}", ""]
    torch_tr = TorchTranslator(model, tokenizer)
    assert engine.translate(texts) == torch_tr.translate(texts)
    assert engine.translate(texts, beam_size=3) == torch_tr.translate(texts, beam_size=3)


# ---- beam search -----------------------------------------------------------------------------------


@pytest.mark.parametrize("beam", [2, 4])
def test_onnx_beam_equals_reference_beam(reference, engine, sources, beam):
    """Engine beam search == PyTorch reference beam search (which itself is checked cache vs no cache)."""
    model, tokenizer = reference
    ph = tokenizer.placeholder_ids
    expected = ref_alone(beam_search, model, sources, beam, MAX_NEW, placeholder_ids=ph)
    assert (
        beam_search(model, sources, beam, MAX_NEW, use_cache=False, placeholder_ids=ph) == expected
    )  # padded, no cache
    events = engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW, beam_size=beam), batch_size=32)
    assert [with_eos(e) for e in events] == expected


@pytest.mark.parametrize(
    "options",
    [DecodingOptions(max_new_tokens=MAX_NEW), DecodingOptions(max_new_tokens=MAX_NEW, beam_size=3)],
    ids=["greedy", "beam3"],
)
def test_onnx_batch_equals_each_alone(engine, sources, options):
    """A sentence gets the same tokens alone as in a batch with others (greedy and beam)."""
    alone = [engine.generate([s], options)[0].token_ids for s in sources]
    assert [e.token_ids for e in engine.generate(sources, options, batch_size=32)] == alone
    assert [e.token_ids for e in engine.generate(sources, options, batch_size=7)] == alone


# ---- sampling and min_new_tokens -----------------------------------------------------------------


def test_sampling_is_reproducible_and_batch_independent(engine, sources):
    """Same seed -> same tokens, alone or in any batch; different seeds do sample differently."""
    opts = DecodingOptions(max_new_tokens=MAX_NEW, temperature=2.0, top_k=50, top_p=0.95, seed=7)
    alone = [engine.generate([s], opts)[0].token_ids for s in sources]
    assert [engine.generate([s], opts)[0].token_ids for s in sources] == alone
    assert [e.token_ids for e in engine.generate(sources, opts, batch_size=32)] == alone
    assert [e.token_ids for e in engine.generate(list(reversed(sources)), opts, batch_size=5)] == alone[::-1]
    others = [
        e.token_ids
        for e in engine.generate(
            sources, DecodingOptions(max_new_tokens=MAX_NEW, temperature=2.0, top_k=50, top_p=0.95, seed=8)
        )
    ]
    assert others != alone
    greedy_tokens = [e.token_ids for e in engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW))]
    assert alone != greedy_tokens


@pytest.mark.parametrize("beam", [1, 3])
def test_min_new_tokens_equal_to_max_gives_exactly_that_many(reference, engine, sources, beam):
    """min_new_tokens = max_new_tokens = n: every sentence gets exactly n tokens, no EOS, as in the reference."""
    model, tokenizer = reference
    n, ph = 11, tokenizer.placeholder_ids
    events = engine.generate(
        sources, DecodingOptions(max_new_tokens=n, min_new_tokens=n, beam_size=beam), batch_size=32
    )
    assert all(len(e.token_ids) == n and e.reason is FinishReason.LENGTH for e in events)
    if beam == 1:
        expected = ref_alone(greedy, model, sources, n, min_new_tokens=n, placeholder_ids=ph)
    else:
        expected = ref_alone(beam_search, model, sources, beam, n, min_new_tokens=n, placeholder_ids=ph)
    assert [e.token_ids for e in events] == expected


def test_min_new_tokens_only_delays_eos(reference, engine, sources):
    """With min_new_tokens = 5 < max, no sentence ends before 5 tokens and the result equals the reference."""
    model, tokenizer = reference
    events = engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW, min_new_tokens=5), batch_size=32)
    assert all(len(e.token_ids) >= 5 for e in events)
    assert [with_eos(e) for e in events] == ref_alone(
        greedy, model, sources, MAX_NEW, min_new_tokens=5, placeholder_ids=tokenizer.placeholder_ids
    )


# ---- continuous batching ---------------------------------------------------------------------------


class Collector:
    """A request sink that keeps every event."""

    def __init__(self):
        self.tokens: list[TokenEvent] = []
        self.finish: FinishEvent | None = None

    def __call__(self, event):
        if isinstance(event, FinishEvent):
            assert self.finish is None, "two finish events"
            self.finish = event
        else:
            self.tokens.append(event)


def make_request(engine, rid: str, source: list[int], options: DecodingOptions) -> tuple[Request, Collector]:
    sink = Collector()
    return Request(rid, list(source), [], resolve(options, len(source), engine.limits), sink), sink


def test_requests_admitted_mid_decode_get_their_alone_tokens(engine, sources):
    """Drive Scheduler.step() by hand: B and C join while A is mid-decode, A and C leave while others
    continue (rows move); every request still gets exactly the tokens it gets alone."""
    greedy_opts = DecodingOptions(max_new_tokens=MAX_NEW)
    beam_opts = DecodingOptions(max_new_tokens=MAX_NEW, beam_size=3)
    long_src, mid_src, short_src = sources[15], sources[0], sources[14]
    plan = [
        ("A", long_src, greedy_opts, 0),
        ("B", mid_src, beam_opts, 2),
        ("C", short_src, greedy_opts, 3),
        ("D", sources[-1], greedy_opts, 5),
    ]
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=8, max_queue=8)
    sinks = {}
    step = 0
    while step == 0 or scheduler.has_work() or len(sinks) < len(plan):
        for rid, src, opts, at in plan:
            if at == step:
                req, sinks[rid] = make_request(engine, rid, src, opts)
                scheduler.submit(req)
        scheduler.step()
        step += 1
        if step == 3:
            assert {r.id for r in scheduler.active} == {"A", "B"}  # B joined while A was decoding
    for rid, src, opts, _ in plan:
        alone = engine.generate([src], opts)[0]
        got = sinks[rid].finish
        assert got is not None and got.reason is alone.reason, rid
        assert got.token_ids == alone.token_ids, rid
        assert got.text == alone.text, rid
    assert scheduler.cache.rows == 0


def test_streamed_deltas_add_up_to_the_text(engine, sources):
    """A streaming request's token events carry every token in order; deltas + final_delta == text."""
    scheduler = Scheduler(engine.runner, engine.tokenizer, max_rows=4, max_queue=4)
    req, sink = make_request(engine, "s", sources[1], DecodingOptions(max_new_tokens=MAX_NEW))
    scheduler.submit(req)
    while scheduler.has_work():
        scheduler.step()
    assert [t.index for t in sink.tokens] == list(range(len(sink.finish.token_ids)))
    assert [t.token_id for t in sink.tokens] == sink.finish.token_ids
    assert "".join(t.text_delta for t in sink.tokens) + sink.finish.final_delta == sink.finish.text
    assert sink.finish.text == engine.tokenizer.decode(sink.finish.token_ids, [])


def test_translation_ends_only_with_every_source_placeholder(reference, engine):
    """Placeholder constraint: for sources with placeholders, EOS never comes before all of the
    source's <phK> tokens are out, in the engine and in the reference alike; without the
    constraint the reference may end earlier."""
    model, tokenizer = reference
    texts = ["uno %s dos %d", "tres {name} cuatro --force", "nueve ocho %s %s"]
    sources = [tokenizer.encode(t)[0] for t in texts]
    ph = tokenizer.placeholder_ids
    for src, event in zip(sources, engine.generate(sources, DecodingOptions(max_new_tokens=MAX_NEW))):
        needed = Counter(t for t in src if t in ph)
        got = Counter(t for t in event.token_ids if t in ph)
        assert needed and got <= needed  # never a placeholder the source does not have
        assert event.reason in (FinishReason.LENGTH, FinishReason.LOOP) or got == needed  # a loop is not waited on
    for src, out in zip(sources, greedy(model, sources, MAX_NEW, placeholder_ids=ph)):
        needed, got = Counter(t for t in src if t in ph), Counter(t for t in out if t in ph)
        stopped = looped(out[:-1], Constraints(ph, 3).repeat_limit(src))
        assert got <= needed and (out[-1] != 3 or got == needed or stopped)


def test_sessions_stop_spinning_when_a_run_returns():
    """Both sessions of a runner stop their workers' spinning when a run returns, spinning or not
    within runs: otherwise the encoder's pool spins through the decoder's steps (on 2 cores, batch
    1 lost 30% of its tokens/s; docs/performance.md). The effect is a timing, so the setting is
    what this checks."""
    from traductor.engine.runner import session_options

    for spin in (True, False):
        opts = session_options(2, spin)
        assert opts.get_session_config_entry("session.force_spinning_stop") == "1"
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == ("1" if spin else "0")
