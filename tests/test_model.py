"""The Transformer: it learns, its config round-trips, its masks hold, its parts follow the paper,
and the cached decoding loops equal the textbook no-cache loop."""

from __future__ import annotations

import json
import math

import pytest
import torch
from safetensors.torch import load_file
from tiny_task import synthetic_pairs

from traductor.model import checkpoint
from traductor.model.generate import beam_search, greedy, pad_batch
from traductor.model.transformer import (
    MASK_VALUE,
    ModelConfig,
    Transformer,
    causal_bias,
    padding_bias,
    sinusoidal_positions,
)
from traductor.model.translator import TorchTranslator
from traductor.training.evaluate import placeholder_rate

SMALL = ModelConfig(
    vocab_size=50, d_model=16, n_heads=2, d_ff=32, n_encoder_layers=2, n_decoder_layers=2, dropout=0.0, max_len=32
)


@pytest.fixture(scope="module")
def small_model() -> Transformer:
    """An untrained model with random weights (masks and shapes do not need training)."""
    torch.manual_seed(0)
    return Transformer(SMALL).eval()


@pytest.fixture(scope="module")
def trained(tiny_checkpoint):
    model, tokenizer, config = checkpoint.load(tiny_checkpoint)
    return model, tokenizer, config


def rand_ids(*shape, low=4, high=SMALL.vocab_size):
    return torch.randint(low, high, shape)


# ---- learning -----------------------------------------------------------------------------


def test_tiny_model_learns_the_synthetic_task(trained):
    """Trained for seconds, the tiny model translates most unseen-seed sentences exactly and keeps placeholders."""
    model, tokenizer, _ = trained
    pairs = synthetic_pairs(200, seed=11)
    out = TorchTranslator(model, tokenizer).translate([s for s, _ in pairs])
    exact = sum(o == t for o, (_, t) in zip(out, pairs)) / len(pairs)
    assert exact >= 0.6, f"exact match {exact:.2f}"
    assert placeholder_rate([s for s, _ in pairs], out)["placeholder_rate"] >= 0.95


def test_untrained_model_does_not_solve_the_task(trained):
    """The accuracy above comes from training: the same architecture with fresh weights scores ~0."""
    model, tokenizer, _ = trained
    torch.manual_seed(1)
    fresh = Transformer(model.cfg).eval()
    pairs = synthetic_pairs(50, seed=11)
    out = TorchTranslator(fresh, tokenizer).translate([s for s, _ in pairs], max_new_tokens=12)
    assert sum(o == t for o, (_, t) in zip(out, pairs)) <= 2


# ---- config and checkpoint ------------------------------------------------------------------


def test_config_dict_roundtrip():
    """to_dict/from_dict is lossless, also through JSON."""
    cfg = ModelConfig(
        vocab_size=123, d_model=24, n_heads=3, d_ff=40, n_encoder_layers=1, n_decoder_layers=4, dropout=0.25, max_len=77
    )
    assert ModelConfig.from_dict(cfg.to_dict()) == cfg
    assert ModelConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert cfg.d_k == 8


def test_config_rejects_unknown_keys_and_bad_heads():
    """Unknown keys and a d_model not divisible by n_heads are errors that name the problem."""
    with pytest.raises(ValueError, match="unknown model config keys: \\['colour'\\]"):
        ModelConfig.from_dict({**SMALL.to_dict(), "colour": "red"})
    with pytest.raises(ValueError, match="not divisible"):
        ModelConfig(d_model=10, n_heads=4)


def test_checkpoint_roundtrip_rebuilds_identical_model(trained, tiny_checkpoint, tmp_path):
    """save -> load gives the same config, weights and outputs; so does rebuilding from config.json by hand."""
    model, tokenizer, _ = trained
    checkpoint.save(model, tmp_path / "copy", tokenizer_file=tiny_checkpoint / "tokenizer.model", extra={"note": "x"})
    loaded, tok2, config = checkpoint.load(tmp_path / "copy")
    assert loaded.cfg == model.cfg and config["note"] == "x"
    assert config["model"] == model.cfg.to_dict()
    for k, v in model.state_dict().items():
        assert torch.equal(v, loaded.state_dict()[k]), k

    rebuilt = Transformer(ModelConfig.from_dict(json.loads((tmp_path / "copy" / "config.json").read_text())["model"]))
    rebuilt.load_state_dict(load_file(tmp_path / "copy" / "model.safetensors"))
    rebuilt.eval()
    sources = [tokenizer.encode(s)[0] for s, _ in synthetic_pairs(8, seed=5)]
    src, pad = pad_batch(sources, 0)
    tgt = torch.randint(4, model.cfg.vocab_size, (len(sources), 6))
    with torch.no_grad():
        expected = model(src, pad, tgt)
        assert torch.equal(loaded(src, pad, tgt), expected)
        assert torch.equal(rebuilt(src, pad, tgt), expected)
    assert greedy(rebuilt, sources, 20) == greedy(model, sources, 20)
    assert tok2.encode("uno dos %s") == tokenizer.encode("uno dos %s")


# ---- masks -----------------------------------------------------------------------------------


def test_mask_helpers():
    """padding_bias masks padded keys for every query; causal_bias masks exactly the future."""
    pad = torch.tensor([[False, False, True]])
    assert padding_bias(pad).shape == (1, 1, 1, 3)
    assert padding_bias(pad).flatten().tolist() == [0.0, 0.0, MASK_VALUE]
    c = causal_bias(4)[0, 0]
    for i in range(4):
        for j in range(4):
            assert c[i, j].item() == (MASK_VALUE if j > i else 0.0)


def test_future_tokens_do_not_change_earlier_logits(small_model):
    """Causal mask: perturbing decoder inputs from position j on leaves logits at positions < j unchanged."""
    torch.manual_seed(1)
    src = rand_ids(2, 7)
    pad = torch.zeros_like(src, dtype=torch.bool)
    tgt = rand_ids(2, 9)
    with torch.no_grad():
        memory = small_model.encode(src, pad)
        base = small_model.decode(tgt, memory, pad)
        for j in (1, 4, 8):
            changed = tgt.clone()
            changed[:, j:] = rand_ids(2, 9 - j)
            out = small_model.decode(changed, memory, pad)
            assert torch.allclose(out[:, :j], base[:, :j], atol=1e-6, rtol=0)
            assert not torch.allclose(out[:, j:], base[:, j:], atol=1e-3)  # later positions do see it


def test_source_padding_does_not_change_real_positions(small_model):
    """Padding mask: a sentence padded (with arbitrary ids under the mask) gives the same encoder
    output at its real positions and the same decoder logits as the sentence alone."""
    torch.manual_seed(2)
    src = rand_ids(1, 5)
    tgt = rand_ids(1, 6)
    padded = torch.cat([src, rand_ids(1, 4)], dim=1)  # garbage ids at padded positions
    pad = torch.tensor([[False] * 5 + [True] * 4])
    with torch.no_grad():
        alone_mem = small_model.encode(src, torch.zeros_like(src, dtype=torch.bool))
        padded_mem = small_model.encode(padded, pad)
        assert torch.allclose(padded_mem[:, :5], alone_mem, atol=1e-5, rtol=0)
        alone = small_model.decode(tgt, alone_mem, torch.zeros_like(src, dtype=torch.bool))
        with_pad = small_model.decode(tgt, padded_mem, pad)
        assert torch.allclose(with_pad, alone, atol=1e-5, rtol=0)
        unmasked = small_model.decode(tgt, small_model.encode(padded, torch.zeros_like(pad)), torch.zeros_like(pad))
        assert not torch.allclose(unmasked, alone, atol=1e-3)  # without the mask the garbage would leak


def test_target_padding_does_not_change_real_positions(small_model):
    """Padding in the target (teacher forcing of a ragged batch) does not change real positions' logits."""
    torch.manual_seed(3)
    src = rand_ids(2, 6)
    spad = torch.zeros_like(src, dtype=torch.bool)
    short = rand_ids(1, 4)
    tgt = torch.cat([torch.cat([short, torch.zeros(1, 3, dtype=torch.long)], 1), rand_ids(1, 7)])
    tpad = tgt == 0
    with torch.no_grad():
        batch = small_model(src, spad, tgt, tpad)
        alone = small_model(src[:1], spad[:1], short)
    assert torch.allclose(batch[0, :4], alone[0], atol=1e-5, rtol=0)


# ---- the paper's parts ------------------------------------------------------------------------


def test_sinusoidal_positions_follow_the_formula():
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))."""
    L, d = 50, 16
    pe = sinusoidal_positions(L, d)
    assert pe.shape == (L, d)
    for pos in (0, 1, 7, 49):
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_embedding_is_shared_three_ways(small_model):
    """One W_E: encoder input, decoder input and output projection all read the same tensor."""
    m = small_model
    matrices = [p for p in m.parameters() if p.shape == (SMALL.vocab_size, SMALL.d_model)]
    assert len(matrices) == 1 and matrices[0] is m.embedding.weight
    y = torch.randn(3, SMALL.d_model)
    assert torch.allclose(m.logits(y), y @ m.embedding.weight.t() + m.output_bias)
    # Changing one row of W_E changes all three uses.
    src, pad = torch.tensor([[5, 6, 7]]), torch.zeros(1, 3, dtype=torch.bool)
    tgt = torch.tensor([[9, 10]])
    with torch.no_grad():
        mem, out = m.encode(src, pad), m(src, pad, tgt)
        saved = m.embedding.weight.clone()
        try:
            m.embedding.weight[5] += torch.randn(SMALL.d_model)  # a source token only
            assert not torch.allclose(m.encode(src, pad), mem)
            m.embedding.weight.copy_(saved)
            m.embedding.weight[10] += torch.randn(SMALL.d_model)  # a target input token only
            assert not torch.allclose(m.decode(tgt, mem, pad)[0, 1], out[0, 1])
            m.embedding.weight.copy_(saved)
            m.embedding.weight[30] += torch.randn(SMALL.d_model)  # an output row only: only that logit moves
            diff = (m(src, pad, tgt) - out).abs().amax(dim=(0, 1))
            assert diff[30] > 1e-3 and diff[torch.arange(SMALL.vocab_size) != 30].max() < 1e-6
        finally:
            m.embedding.weight.copy_(saved)


def test_checkpoint_stores_the_shared_embedding_once(trained, tiny_checkpoint):
    """The saved weights hold W_E once (no separate output projection)."""
    model, _, _ = trained
    weights = load_file(tiny_checkpoint / "model.safetensors")
    shaped = [k for k, v in weights.items() if tuple(v.shape) == (model.cfg.vocab_size, model.cfg.d_model)]
    assert shaped == ["embedding.weight"]


# ---- cached decoding = textbook decoding ---------------------------------------------------------


def test_decode_step_matches_full_decode(small_model):
    """Feeding tokens one at a time through decode_step gives decode()'s logits at every position."""
    torch.manual_seed(4)
    src = rand_ids(3, 6)
    pad = torch.zeros_like(src, dtype=torch.bool)
    pad[1, 4:] = True
    tgt = rand_ids(3, 7)
    with torch.no_grad():
        memory = small_model.encode(src, pad)
        full = small_model.decode(tgt, memory, pad)
        cache, cross = small_model.empty_cache(3), small_model.cross_kv(memory)
        for t in range(7):
            logits, cache = small_model.decode_step(tgt[:, t : t + 1], torch.full((3,), t), cache, cross, pad)
            assert torch.allclose(logits, full[:, t], atol=1e-5, rtol=0)
        assert cache[0][0].shape == (3, SMALL.n_heads, 7, SMALL.d_k)


def test_greedy_with_cache_equals_without(trained):
    """Reference greedy: the KV-cached loop gives the no-cache loop's tokens (EOS included)."""
    model, tokenizer, _ = trained
    sources = [tokenizer.encode(s)[0] for s, _ in synthetic_pairs(24, seed=6)]
    cached = greedy(model, sources, 30, use_cache=True)
    assert cached == greedy(model, sources, 30, use_cache=False)
    assert all(toks[-1] == model.cfg.eos_id for toks in cached)


def test_beam_search_with_cache_equals_without(trained):
    """Reference beam search: reordering the KV cache by beam gives the no-cache search's tokens."""
    model, tokenizer, _ = trained
    sources = [tokenizer.encode(s)[0] for s, _ in synthetic_pairs(12, seed=7)]
    for k in (2, 4):
        assert beam_search(model, sources, k, 30, use_cache=True) == beam_search(model, sources, k, 30, use_cache=False)


def test_reference_min_new_tokens_suppresses_eos(trained):
    """min_new_tokens = max_new_tokens = n: exactly n tokens and no EOS, in greedy and beam search."""
    model, tokenizer, _ = trained
    sources = [tokenizer.encode(s)[0] for s in ("uno", "dos tres")]
    for out in (greedy(model, sources, 9, min_new_tokens=9), beam_search(model, sources, 3, 9, min_new_tokens=9)):
        assert [len(t) for t in out] == [9, 9]
        assert all(model.cfg.eos_id not in t for t in out)
