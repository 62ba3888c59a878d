"""Training resumes where it stopped; the CLI turns bad corpora and model directories into one-line errors."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from cli_harness import run_error
from tiny_task import write_corpus

from traductor.cli import main
from traductor.model import checkpoint
from traductor.training import train as train_module
from traductor.training.train import STATE_FILE, TrainConfig, train


def tiny_config(max_steps: int) -> TrainConfig:
    """A model small enough that a handful of steps take well under a second."""
    return TrainConfig.from_flat(
        dict(
            vocab_size=300,
            d_model=16,
            n_heads=2,
            d_ff=32,
            n_encoder_layers=1,
            n_decoder_layers=1,
            dropout=0.0,
            max_len=64,
            batch_tokens=300,
            warmup=10,
            max_steps=max_steps,
            eval_every=3,
            max_minutes=5,
            seed=5,
            precision="fp32",
            threads=1,
        )
    )


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus") / "c", n_train=200)


def test_training_resumes_from_train_state(small_corpus, tmp_path, monkeypatch):
    """A second call with a larger max_steps continues from the saved step (steps 4, 5 only) and ends
    with the same weights as one uninterrupted run."""
    steps_run: list[int] = []
    real_lr_at = train_module.lr_at
    monkeypatch.setattr(train_module, "lr_at", lambda step, *a: steps_run.append(step) or real_lr_at(step, *a))

    out = tmp_path / "resumed"
    assert train(small_corpus, out, tiny_config(3), quiet=True)["steps"] == 3
    assert steps_run == [1, 2, 3]
    assert torch.load(out / STATE_FILE, weights_only=True)["step"] == 3
    tokenizer_bytes = (out / "tokenizer.model").read_bytes()

    steps_run.clear()
    assert train(small_corpus, out, tiny_config(5), quiet=True)["steps"] == 5
    assert steps_run == [4, 5]
    resumed = torch.load(out / STATE_FILE, weights_only=True)
    assert resumed["step"] == 5
    assert (out / "tokenizer.model").read_bytes() == tokenizer_bytes  # not retrained on resume
    assert [h["step"] for h in json.loads((out / "history.json").read_text()) if "dev_loss" in h] == [3, 5]

    steps_run.clear()
    straight = tmp_path / "straight"
    train(small_corpus, straight, tiny_config(5), quiet=True)
    assert steps_run == [1, 2, 3, 4, 5]
    expected = torch.load(straight / STATE_FILE, weights_only=True)["model"]
    for name, tensor in expected.items():
        assert torch.allclose(resumed["model"][name], tensor, atol=1e-6, rtol=0), name


def test_restart_ignores_train_state(small_corpus, tmp_path, monkeypatch):
    """resume=False starts again from step 1 even when a train_state.pt is there."""
    out = tmp_path / "m"
    train(small_corpus, out, tiny_config(2), quiet=True)
    steps_run: list[int] = []
    real_lr_at = train_module.lr_at
    monkeypatch.setattr(train_module, "lr_at", lambda step, *a: steps_run.append(step) or real_lr_at(step, *a))
    assert train(small_corpus, out, tiny_config(2), resume=False, quiet=True)["steps"] == 2
    assert steps_run == [1, 2]


def test_trained_checkpoint_loads(small_corpus, tmp_path):
    """What training writes is a checkpoint: config with the training record, weights, tokenizer."""
    out = tmp_path / "m"
    train(small_corpus, out, tiny_config(3), quiet=True)
    model, tokenizer, config = checkpoint.load(out)
    assert config["format"] == "traductor-checkpoint" and config["training"]["step"] == 3
    assert model.cfg.vocab_size == tokenizer.vocab_size and model.cfg.d_model == 16
    assert config["languages"] == {"source": "en", "target": "es"}  # a corpus that records none: the legacy pair


def test_checkpoint_records_the_corpus_languages(tmp_path):
    """The pair `traductor corpus --lang fr` records in stats.json is the checkpoint's, and the bundle's."""
    corpus = write_corpus(tmp_path / "c", n_train=200)
    (corpus / "stats.json").write_text(json.dumps({"languages": {"source": "en", "target": "fr"}}))
    train(corpus, tmp_path / "m", tiny_config(1), quiet=True)
    assert checkpoint.load(tmp_path / "m")[2]["languages"] == {"source": "en", "target": "fr"}


def test_two_cpu_workers_share_each_update(small_corpus, tmp_path):
    """--workers 2: two processes, each update consumes one batch per worker (gradients averaged),
    the leader evaluates and saves, and what it saves is a checkpoint that resumes in one process."""
    cfg = replace(tiny_config(4), workers=2)
    result = train(small_corpus, tmp_path / "m", cfg, quiet=True)
    assert result["workers"] == 2 and result["steps"] == 4
    state = torch.load(tmp_path / "m" / STATE_FILE, weights_only=True)
    assert state["step"] == 4 and state["done_in_epoch"] == 8
    history = json.loads((tmp_path / "m" / "history.json").read_text())
    assert [h["step"] for h in history if "dev_loss" in h] == [3, 4]
    assert checkpoint.load(tmp_path / "m")[2]["training"]["workers"] == 2
    assert train(small_corpus, tmp_path / "m", tiny_config(5), quiet=True)["steps"] == 5
    assert not (tmp_path / "m" / ".rendezvous").exists()


# ---- CLI errors --------------------------------------------------------------------------------


def test_cli_train_missing_corpus_dir(tmp_path, capsys):
    """Training on a corpus directory that does not exist says how to make one."""
    run_error(
        ["train", "--corpus", str(tmp_path / "nope"), "--out", str(tmp_path / "m")],
        capsys,
        "has no train.tsv",
        "traductor corpus",
    )


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_cli_train_device_that_is_not_here(small_corpus, tmp_path, capsys):
    """--device cuda on a machine without one, or a name that is no device: one line, status 2, nothing written."""
    out = tmp_path / "m"
    argv = ["train", "--corpus", str(small_corpus), "--out", str(out), "--device"]
    run_error([*argv, "cuda"], capsys, "--device cuda", "no usable CUDA GPU")
    run_error([*argv, "gpu7"], capsys, "--device 'gpu7'", "not a device name")
    assert not out.exists()


def test_cli_translate_model_dir_that_is_not_one(tmp_path, capsys, monkeypatch):
    """--engine pytorch with a directory that is not a checkpoint, or does not exist: one line, status 2."""
    monkeypatch.setattr("sys.stdin", io.StringIO("uno dos\n"))
    (tmp_path / "empty").mkdir()
    run_error(
        ["translate", "--engine", "pytorch", "--model", str(tmp_path / "empty")],
        capsys,
        "is not a traductor checkpoint",
        "config.json",
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("uno dos\n"))
    run_error(["translate", "--engine", "pytorch", "--model", str(tmp_path / "missing")], capsys, "is not a directory")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "config.json").write_text('{"format": "something-else"}')
    monkeypatch.setattr("sys.stdin", io.StringIO("uno dos\n"))
    run_error(["translate", "--engine", "pytorch", "--model", str(tmp_path / "bad")], capsys, "format")


def test_cli_evaluate_onnx_engine_with_a_checkpoint(tiny_checkpoint, small_corpus, capsys):
    """Giving the ONNX engine a checkpoint (not a bundle) is a one-line error that says what is wrong."""
    run_error(
        ["evaluate", "--corpus", str(small_corpus / "test.tsv"), "--model", str(tiny_checkpoint)],
        capsys,
        "does not describe a traductor bundle",
    )


def test_cli_evaluate_and_translate_pytorch(tiny_checkpoint, small_corpus, capsys, monkeypatch):
    """The happy path of evaluate/translate with the reference engine: JSON scores, one line per input."""
    assert (
        main(
            [
                "evaluate",
                "--engine",
                "pytorch",
                "--model",
                str(tiny_checkpoint),
                "--corpus",
                str(small_corpus / "test.tsv"),
                "--limit",
                "20",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["sentences"] == 20 and report["chrf"] > 50
    monkeypatch.setattr("sys.stdin", io.StringIO("uno dos\ntres %s\n"))
    assert main(["translate", "--engine", "pytorch", "--model", str(tiny_checkpoint)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1].endswith("%s")


def test_auto_precision_takes_bf16_only_where_the_device_has_it(monkeypatch):
    """precision "auto" (the default) autocasts to bfloat16 on a GPU or a CPU with AVX-512 BF16 or
    AMX, and stays fp32 on a CPU without (bf16 emulated on AVX2: an update took 95 s, not 5 s);
    "bf16" and "fp32" are obeyed anywhere; anything else is refused, naming the choices."""
    import torch

    from traductor.errors import CommandError
    from traductor.training.config import TrainConfig
    from traductor.training.train import native_bf16, uses_bf16

    assert TrainConfig().precision == "auto"
    for probe in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"):
        monkeypatch.setattr(torch.cpu, probe, lambda: False)
    native_bf16.cache_clear()  # the probes are asked once per run; here they change
    assert not uses_bf16("auto", "cpu")
    assert uses_bf16("auto", "cuda")
    assert uses_bf16("bf16", "cpu") and not uses_bf16("fp32", "cuda")
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    native_bf16.cache_clear()
    assert uses_bf16("auto", "cpu")
    with pytest.raises(CommandError, match="auto, bf16, fp32"):
        uses_bf16("fp16", "cpu")
    native_bf16.cache_clear()  # not this machine's answer: leave none behind


def test_warm_start_with_its_own_vocabulary_carries_the_shared_pieces(small_corpus, tmp_path):
    """--init-vocab own: the run trains its own SentencePiece; every weight but the vocabulary's is
    the init checkpoint's, and a piece both vocabularies have keeps its embedding row and bias."""
    base_dir = tmp_path / "base"
    train(small_corpus, base_dir, tiny_config(2), quiet=True)
    base, base_tokenizer, _ = checkpoint.load(base_dir)
    cfg = replace(tiny_config(1), init_from=str(base_dir), init_vocab="own")
    cfg.model = replace(cfg.model, vocab_size=340)  # another vocabulary than the base's 300 pieces
    pairs, pair = train_module.load_split(small_corpus / "train.tsv"), train_module.languages(small_corpus)
    tokenizer = train_module.prepare_tokenizer(cfg, tmp_path, pairs, True, pair)
    assert tokenizer.vocab_size != base_tokenizer.vocab_size
    model = train_module.prepare_model(cfg, tokenizer, None, tmp_path)[0]

    old_ids = {base_tokenizer.sp.id_to_piece(i): i for i in range(base_tokenizer.vocab_size)}
    shared = [(i, old_ids[p]) for i in range(tokenizer.vocab_size) if (p := tokenizer.sp.id_to_piece(i)) in old_ids]
    assert 10 < len(shared) < tokenizer.vocab_size
    for new, old in shared:
        assert torch.equal(model.embedding.weight[new], base.embedding.weight[old])
        assert model.output_bias[new] == base.output_bias[old]
    fresh = [i for i in range(tokenizer.vocab_size) if tokenizer.sp.id_to_piece(i) not in old_ids]
    assert not torch.equal(model.embedding.weight[fresh[0]], torch.zeros_like(model.embedding.weight[0]))
    base_state = base.state_dict()
    for name, tensor in model.state_dict().items():
        if name not in ("embedding.weight", "output_bias", "positions"):
            assert torch.equal(tensor, base_state[name]), name


def test_a_warm_start_into_another_pair_drops_the_control_tokens_it_does_not_teach(small_corpus, tmp_path):
    """es-en warm-started from an en-es model with register tags: the tags mean nothing to it, so its
    tokenizer keeps their ids (the weights still match) but no longer has them (no formality, no
    term annotations offered); the same pair keeps them."""
    from traductor.model import controls
    from traductor.model.tokenizer import FILENAME, Tokenizer, with_symbols

    base_dir = tmp_path / "base"
    train(small_corpus, base_dir, tiny_config(1), quiet=True)
    (base_dir / FILENAME).write_bytes(with_symbols((base_dir / FILENAME).read_bytes(), controls.TOKENS))
    base = Tokenizer(base_dir / FILENAME)
    assert base.controls
    cfg, pairs = replace(tiny_config(1), init_from=str(base_dir)), train_module.load_split(small_corpus / "train.tsv")
    (tmp_path / "es-en").mkdir()
    (tmp_path / "en-es").mkdir()
    reverse = train_module.prepare_tokenizer(cfg, tmp_path / "es-en", pairs, True, {"source": "es", "target": "en"})
    assert not reverse.controls and reverse.vocab_size == base.vocab_size
    assert reverse.sp.piece_to_id("<formal>") == reverse.unk_id  # "<formal>" in a text is cut as any text
    assert reverse.encode("uno dos %s") == base.encode("uno dos %s")
    same = train_module.prepare_tokenizer(cfg, tmp_path / "en-es", pairs, True, train_module.languages(small_corpus))
    assert same.controls


def test_a_stop_file_ends_the_run_with_its_evaluation_and_state_saved(small_corpus, tmp_path):
    """A file named STOP in the run's directory ends it after the current update, evaluated and
    saved as at --max-minutes; it is removed, so the run resumed later goes on."""
    out = tmp_path / "run"
    out.mkdir()
    (out / "STOP").touch()
    assert train(small_corpus, out, tiny_config(50), quiet=True)["steps"] == 1
    assert not (out / "STOP").exists()
    assert torch.load(out / STATE_FILE, weights_only=True)["step"] == 1
    assert [h["step"] for h in json.loads((out / "history.json").read_text()) if "dev_chrf" in h] == [1]
    assert train(small_corpus, out, tiny_config(4), quiet=True)["steps"] == 4


def test_a_fresh_model_of_other_sizes_takes_the_tokenizer_of_a_checkpoint(small_corpus, tmp_path, capsys):
    """--tokenizer-from: new weights of the sizes the flags give (a bigger model trained from
    scratch), with the checkpoint's SentencePiece file as it is; with --init-from, or a directory
    without a tokenizer, it is a one-line error."""
    base_dir = tmp_path / "base"
    train(small_corpus, base_dir, tiny_config(2), quiet=True)
    cfg = replace(tiny_config(2), tokenizer_from=str(base_dir))
    cfg.model = replace(cfg.model, d_model=24, n_encoder_layers=2, vocab_size=999)  # the vocabulary is the file's
    train(small_corpus, tmp_path / "big", cfg, quiet=True)
    model, tokenizer, _ = checkpoint.load(tmp_path / "big")
    assert (tmp_path / "big" / "tokenizer.model").read_bytes() == (base_dir / "tokenizer.model").read_bytes()
    assert (model.cfg.d_model, model.cfg.n_encoder_layers, model.cfg.vocab_size) == (24, 2, tokenizer.vocab_size)

    out = str(tmp_path / "m")
    args = ["train", "--corpus", str(small_corpus), "--out", out, "--tokenizer-from", str(base_dir)]
    run_error([*args, "--init-from", str(base_dir)], capsys, "--tokenizer-from and --init-from")
    run_error([*args[:-1], str(tmp_path)], capsys, f"--tokenizer-from {tmp_path}: no tokenizer.model")


def test_cli_train_rejects_an_unknown_init_vocab(small_corpus, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["train", "--corpus", str(small_corpus), "--out", str(tmp_path / "m"), "--init-vocab", "shared"])
    assert "--init-vocab" in capsys.readouterr().err


def test_cli_average_writes_the_mean_of_the_states_weights(small_corpus, tmp_path, capsys):
    """`traductor average` (was scripts/average_checkpoints.py): a checkpoint whose weights are the
    element-wise mean of the states', with the run's config and tokenizer and the steps averaged."""
    run = tmp_path / "m"
    train(small_corpus, run, tiny_config(3), quiet=True)
    state = torch.load(run / STATE_FILE, weights_only=True)
    doubled = {**state, "step": 6, "model": {k: v * 3 for k, v in state["model"].items()}}
    torch.save(doubled, tmp_path / "later.pt")
    capsys.readouterr()  # what training printed
    assert (
        main(
            [
                "average",
                "--checkpoint",
                str(run),
                "--out",
                str(tmp_path / "avg"),
                str(run / STATE_FILE),
                str(tmp_path / "later.pt"),
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == {"out": str(tmp_path / "avg"), "averaged_steps": [3, 6]}
    model, tokenizer, config = checkpoint.load(tmp_path / "avg")
    assert config["training"]["averaged_steps"] == [3, 6] and config["languages"] == {"source": "en", "target": "es"}
    for name, weight in model.state_dict().items():
        torch.testing.assert_close(weight, state["model"][name] * 2)  # the mean of 1x and 3x
    assert tokenizer.vocab_size == model.cfg.vocab_size


def test_cli_average_weights_a_state_against_a_checkpoint_directory(small_corpus, tmp_path, capsys):
    """`--weights 3,1` with a state and a checkpoint directory (a fine-tune mixed back with the model
    it started from): 3/4 of the state's weights and 1/4 of the directory's, recorded as such."""
    run = tmp_path / "m"
    train(small_corpus, run, tiny_config(3), quiet=True)
    start, _, _ = checkpoint.load(run)  # the run's own checkpoint: the "model it started from"
    state = torch.load(run / STATE_FILE, weights_only=True)
    later = {**state, "model": {k: v + 4 for k, v in state["model"].items()}}
    torch.save(later, tmp_path / "later.pt")
    capsys.readouterr()
    argv = ["average", "--checkpoint", str(run), "--out", str(tmp_path / "mix"), "--weights", "3,1"]
    assert main([*argv, str(tmp_path / "later.pt"), str(run)]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "out": str(tmp_path / "mix"),
        "averaged_steps": [3],
        "averaged_checkpoints": [str(run)],
        "averaged_weights": [0.75, 0.25],
    }
    model, _, config = checkpoint.load(tmp_path / "mix")
    assert config["training"]["averaged_weights"] == [0.75, 0.25]
    start_weights = start.state_dict()
    for name, weight in model.state_dict().items():
        torch.testing.assert_close(weight, 0.75 * (state["model"][name] + 4) + 0.25 * start_weights[name])
    run_error([*argv, str(tmp_path / "later.pt")], capsys, "--weights", "1 states, 2 weights")
    with pytest.raises(SystemExit):  # argparse's own refusal, with the usage
        main([*argv[:-1], "0.7,x", str(run)])
    assert "--weights: '0.7,x': numbers separated by commas" in capsys.readouterr().err
