"""How models are named to a caller: a bad bundle stops `traductor serve` with one line naming
it, `traductor translate --to` among the packaged models, and error texts that stay short
however many models and pairs are served. (Moved out of test_models.py, which had grown past 300
lines; these need no in-process server.)"""

from __future__ import annotations

import subprocess
import sys

from server_harness import break_bundle, make_repository


def test_a_bad_bundle_stops_the_start_with_one_line_naming_it(tiny_bundle, tmp_path):
    repo = make_repository(tiny_bundle, tmp_path / "repo", {"aa-bb": ("aa", "bb"), "cc-dd": ("cc", "dd")})
    break_bundle(repo / "cc-dd")
    command = [sys.executable, "-m", "traductor.cli", "serve", "--model-repository", str(repo)]
    command += ["--default-model", "aa-bb", "--port", "0", "--metrics-port", "0", "--threads", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("traductor serve: error: model cc-dd:") and "checksum mismatch" in last
    assert "Traceback" not in done.stderr


def test_traductor_translate_to_picks_among_the_packaged_models(capsys, monkeypatch):
    import io

    from traductor.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("file not found\n"))

    assert main(["translate", "--to", "xx"]) == 2
    from traductor.engine.bundle import scan
    from traductor.packaged import MODELS_DIR

    names = sorted(scan(MODELS_DIR))  # every packaged model, each with its pair: de-en (de->en), en-de (en->de)...
    served = ", ".join(f"{n} ({n.split('-')[0]}->{n.split('-', 1)[1]})" for n in names)
    assert {"en-es", "en-fr", "en-de"} <= set(names)
    assert f"no packaged model translates any->xx; the models are: {served}\n" in capsys.readouterr().err


def test_error_texts_name_a_bounded_number_of_pairs_and_models():
    """A model with hundreds of pairs (NLLB) or a repository of many models is described in a short
    text, with how many more there are: gRPC refuses an error text over 8 KB (a caller asking an
    NLLB model for a target it lacks got RESOURCE_EXHAUSTED instead of NOT_FOUND, now and then)."""
    from traductor.engine.bundle import DESCRIBED_MODELS, DESCRIBED_PAIRS, describe, describe_all
    from traductor.engine.bundle_config import Languages

    codes = [f"l{i:03d}_Latn" for i in range(300)]
    pairs = [Languages("eng_Latn", c) for c in codes]
    text = describe("nllb", pairs)
    assert text.startswith("nllb (eng_Latn->l000_Latn, ") and text.endswith(
        f", and {300 - DESCRIBED_PAIRS} more pairs)"
    )
    assert text.count("->") == DESCRIBED_PAIRS
    assert describe("en-es", [Languages("en", "es")]) == "en-es (en->es)"
    many = describe_all({f"m{i:02d}": pairs for i in range(40)})
    assert many.endswith(f", and {40 - DESCRIBED_MODELS} more models")
    assert many.count("(eng_Latn->l000_Latn") == DESCRIBED_MODELS
    assert many.count("m") >= DESCRIBED_MODELS and len(many) < 4096
    assert (
        describe_all({"a": pairs[:1], "b": pairs[:2]})
        == "a (eng_Latn->l000_Latn), b (eng_Latn->l000_Latn, eng_Latn->l001_Latn)"
    )
