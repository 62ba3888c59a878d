"""The server on the PyTorch runner (`traductor serve --device cpu`): test_scheduling.py's checks of
continuous batching as a caller sees it (a late request joins a running one and gets its alone
tokens, a cancelled stream and a past deadline free their rows and cache, a full queue refuses at
once, the metrics follow) run again on a server whose model runs in PyTorch; and a served text
equals the offline translation of the same model in PyTorch and in ONNX Runtime.

The bundle is a copy of the tiny one with its checkpoint in `weights/`, where `--device` finds it.
"""

from __future__ import annotations

import shutil

import pytest
from service_harness import WAIT, ServerThread, make_settings, translate_request
from test_scheduling import (  # noqa: F401  (collected here, run on this module's server)
    test_cancelled_stream_frees_its_rows,
    test_deadline_frees_a_decoding_request,
    test_full_queue_refuses_at_once,
    test_late_request_joins_while_another_is_decoding,
)

CHECKPOINT_FILES = ("config.json", "model.safetensors", "tokenizer.model")


@pytest.fixture(scope="module")
def torch_bundle(tiny_bundle, tiny_checkpoint, tmp_path_factory):
    bundle = tmp_path_factory.mktemp("torch-served") / "tiny"
    shutil.copytree(tiny_bundle, bundle)
    (bundle / "weights").mkdir()
    for name in CHECKPOINT_FILES:
        shutil.copy(tiny_checkpoint / name, bundle / "weights" / name)
    return bundle


@pytest.fixture(scope="module")
def server(torch_bundle):
    s = ServerThread(make_settings(torch_bundle, device="cpu", max_active_sequences=2, max_queued_requests=2))
    yield s
    s.close()


def test_the_served_model_runs_in_pytorch(server):
    from traductor.engine.torch_runner import TorchRunner

    assert isinstance(server.service.engine.core.scheduler.runner, TorchRunner)


@pytest.mark.parametrize("text", ["uno dos tres", "nueve ocho %s", "cero"])
def test_served_text_equals_the_offline_translations(server, torch_bundle, alone, text):
    """Unary and streamed, the text of the PyTorch runner offline and of the ONNX graphs alike."""
    from traductor.engine import torch_weights
    from traductor.engine.bundle import load_bundle
    from traductor.engine.translator import OnnxTranslator

    bundle = load_bundle(torch_bundle)
    offline = OnnxTranslator(bundle, runner=torch_weights.torch_runner(bundle, "cpu", threads=1))
    expected = offline.translate([text])[0]
    assert server.stub.Translate(translate_request(text), timeout=WAIT).text == expected
    streamed = list(server.stub.TranslateStream(translate_request(text), timeout=WAIT))
    assert "".join(m.text_delta for m in streamed) == expected and streamed[-1].token_id == -1
    assert alone(text).text == expected
