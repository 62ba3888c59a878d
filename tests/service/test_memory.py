"""The translation memory (engine/memory.py, service/texts.py): a segment found in the bundle's
memory.tsv is answered from it with no model call; the others go to the model as before.

The bundle is the tiny test bundle with a memory.tsv added the way `traductor export --memory`
adds it (traductor_export.convert.copy_memory); one test runs the export command itself.
"""

from __future__ import annotations

import json
import shutil

import pytest
from service_harness import WAIT, ServerThread, make_settings, translate_request

from traductor.cli import main
from traductor.engine.bundle import load_bundle
from traductor.errors import BundleError
from traductor_client.v1 import translator_pb2 as pb

REMEMBERED = "uno dos tres"
TRANSLATION = "«de la memoria»"  # nothing the tiny model could write
MODEL = "cuatro cinco"
TEXT = f"{REMEMBERED}\n{MODEL}"
CAPITALISED, CAPITALISED_TRANSLATION = "Ocho nueve", "«Memoria» Ocho"  # found for "ocho nueve" too


def add_memory(bundle, rows: str) -> None:
    from traductor_export.convert import copy_memory

    (bundle / "source.tsv").write_text(rows, encoding="utf-8")
    memory = copy_memory(bundle / "source.tsv", bundle)
    (bundle / "source.tsv").unlink()
    config = json.loads((bundle / "config.json").read_text())
    config["memory"] = {"file": memory.file, "sha256": memory.sha256, "entries": memory.entries}
    (bundle / "config.json").write_text(json.dumps(config, indent=2) + "\n")


@pytest.fixture(scope="module")
def memory_bundle(tiny_bundle, tmp_path_factory):
    bundle = tmp_path_factory.mktemp("memory") / "bundle"
    shutil.copytree(tiny_bundle, bundle)
    add_memory(bundle, f"{REMEMBERED}\t{TRANSLATION}\t7\nseis\tSEIS\t2\n{CAPITALISED}\t{CAPITALISED_TRANSLATION}\t3\n")
    return bundle


class Submitted:
    """Counts the requests (segments) the engine's scheduler is given."""

    def __init__(self, scheduler):
        self.rows, submit = 0, scheduler.submit_many

        def counted(requests):
            self.rows += len(requests)
            return submit(requests)

        scheduler.submit_many = counted


@pytest.fixture(scope="module", params=[True, False], ids=["memory", "no-memory"])
def server(request, memory_bundle):
    s = ServerThread(make_settings(memory_bundle, use_memory=request.param))
    s.submitted = Submitted(s.service.engine.core.scheduler)
    s.use_memory = request.param
    yield s
    s.close()


def translate(server, text: str) -> pb.TranslateResponse:
    return server.stub.Translate(translate_request(text), timeout=WAIT)


def test_a_remembered_segment_is_answered_without_the_model(server):
    model_alone = translate(server, MODEL)
    remembered_alone = translate(server, REMEMBERED)
    before = server.submitted.rows
    both = translate(server, TEXT)
    if server.use_memory:
        assert both.text == f"{TRANSLATION}\n{model_alone.text}"
        assert server.submitted.rows - before == 1  # only the model's sentence
        assert both.usage.input_tokens == model_alone.usage.input_tokens
        assert list(both.token_ids) == list(model_alone.token_ids)
        assert remembered_alone.text == TRANSLATION and remembered_alone.usage.input_tokens == 0
    else:  # --no-memory: the model translates both
        assert TRANSLATION not in both.text and both.text == f"{remembered_alone.text}\n{model_alone.text}"
        assert server.submitted.rows - before == 2


def test_a_lowercase_segment_takes_its_capitalised_entry_with_a_lowercase_first_letter(server):
    """The tiny bundle translates into Spanish: "ocho nueve" is answered from the entry "Ocho
    nueve", its translation's first letter lowered after the quotation mark (engine/memory.find)."""
    before = server.submitted.rows
    lowered, exact = translate(server, "ocho nueve").text, translate(server, CAPITALISED).text
    if server.use_memory:
        assert (lowered, exact) == ("«memoria» Ocho", CAPITALISED_TRANSLATION)
        assert server.submitted.rows == before
    else:
        assert "emoria" not in lowered + exact and server.submitted.rows == before + 2


def test_stream_deltas_join_to_the_unary_text(server):
    unary = translate(server, TEXT).text
    for text in (TEXT, f"{MODEL}\n{REMEMBERED}", REMEMBERED, f"seis\n{REMEMBERED}"):
        messages = list(server.stub.TranslateStream(translate_request(text), timeout=WAIT))
        assert "".join(m.text_delta for m in messages) == translate(server, text).text
        assert messages[-1].index == sum(m.token_id != -1 for m in messages)
    messages = list(server.stub.TranslateStream(translate_request(TEXT), timeout=WAIT))
    assert "".join(m.text_delta for m in messages) == unary
    if server.use_memory:  # the remembered head is sent with the first message
        assert messages[0].text_delta.startswith(TRANSLATION)


def test_batch_puts_remembered_segments_in_place(server):
    texts = [TEXT, MODEL, "seis"]
    batch = server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=texts), timeout=WAIT)
    assert [r.text for r in batch.results] == [translate(server, t).text for t in texts]
    assert (batch.results[2].text == "SEIS") is server.use_memory


def test_the_bundle_memory_is_read_and_old_bundles_have_none(memory_bundle, tiny_bundle):
    assert load_bundle(memory_bundle).memory() == {
        REMEMBERED: TRANSLATION,
        "seis": "SEIS",
        CAPITALISED: CAPITALISED_TRANSLATION,
    }
    assert load_bundle(tiny_bundle).config.memory is None and load_bundle(tiny_bundle).memory() == {}


def test_a_modified_memory_is_refused(memory_bundle, tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(memory_bundle, bundle)
    with open(bundle / "memory.tsv", "a", encoding="utf-8") as f:
        f.write("siete\tsiete\t2\n")
    with pytest.raises(BundleError, match="memory.tsv: checksum mismatch"):
        load_bundle(bundle)
    (bundle / "memory.tsv").unlink()
    with pytest.raises(BundleError, match="missing memory.tsv"):
        load_bundle(bundle)


def test_a_malformed_memory_names_its_line(tiny_bundle, tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, bundle)
    with pytest.raises(BundleError, match=r"source.tsv:2: expected source<TAB>translation"):
        add_memory(bundle, "uno\tB\t2\nno tab here\n")


def test_offline_translate_uses_the_memory_unless_told_not_to(memory_bundle, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(TEXT + "\n"))
    assert main(["translate", "--model", str(memory_bundle)]) == 0
    with_memory = capsys.readouterr().out.splitlines()
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(TEXT + "\n"))
    assert main(["translate", "--model", str(memory_bundle), "--no-memory"]) == 0
    without = capsys.readouterr().out.splitlines()
    assert with_memory[0] == TRANSLATION and with_memory[1] == without[1]
    assert without[0] != TRANSLATION


def test_export_copies_the_memory_into_the_bundle(tiny_checkpoint, tmp_path, capsys):
    (tmp_path / "memory.tsv").write_text(f"{REMEMBERED}\t{TRANSLATION}\t3\n", encoding="utf-8")
    out = tmp_path / "bundle"
    argv = ["export", "--checkpoint", str(tiny_checkpoint), "--out", str(out), "--memory", str(tmp_path / "memory.tsv")]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed[printed.index("{\n") :])["memory"]["entries"] == 1  # after the progress lines
    bundle = load_bundle(out)
    assert bundle.config.memory.file == "memory.tsv" and bundle.config.memory.entries == 1
    assert bundle.memory() == {REMEMBERED: TRANSLATION}
    argv = ["export", "--checkpoint", str(tiny_checkpoint), "--out", str(tmp_path / "b2"), "--memory", "nope"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--memory: nope is not a file" in err


def test_no_memory_flag_and_environment():
    import argparse

    from traductor.service.settings import Settings

    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    assert Settings.from_args(parser.parse_args([]), environ={}).use_memory is True
    assert Settings.from_args(parser.parse_args(["--no-memory"]), environ={}).use_memory is False
    assert Settings.from_args(parser.parse_args([]), environ={"TRADUCTOR_USE_MEMORY": "0"}).use_memory is False
