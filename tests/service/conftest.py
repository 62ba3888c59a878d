"""Fixtures of the service tests: one in-process server per test module (see service_harness)."""

from __future__ import annotations

import pytest
from server_harness import ServerThread, make_settings


@pytest.fixture(scope="module")
def server_settings() -> dict:
    """Settings overrides of a module's server; a module redefines this fixture to change them."""
    return {}


@pytest.fixture(scope="module")
def server(tiny_bundle, server_settings):
    """One in-process server per test module."""
    s = ServerThread(make_settings(tiny_bundle, **server_settings))
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _engine_left_open(request):
    """A test that closed the gate cannot leave the engine held for the next test."""
    yield
    if "server" in request.fixturenames:
        request.getfixturevalue("server").gate.open()


@pytest.fixture(scope="session")
def alone(tiny_bundle):
    """Translate one text on its own with the offline ONNX translator (same bundle, own scheduler):
    the reference that batched server results must equal."""
    from traductor.engine.translator import OnnxTranslator
    from traductor.options import DecodingOptions

    translator = OnnxTranslator.load(tiny_bundle, threads=1, max_rows=8)

    def run(text: str, **options):
        ids, values = translator.tokenizer.encode(text)
        opts = DecodingOptions(**options)
        return translator.generate([ids], opts, batch_size=opts.beam_size, values=[values])[0]

    return run
