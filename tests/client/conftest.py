"""Fixtures for the client tests: a fake Translator server per test."""

from __future__ import annotations

from concurrent import futures

import grpc
import pytest
from client_fake_server import FakeServer, FakeTranslator  # next to this file: pytest puts this folder on sys.path
from file_samples import fake_translation

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc


@pytest.fixture
def server():
    fake = FakeServer()
    try:
        yield fake
    finally:
        fake.stop()


class CatalogFake(FakeTranslator):
    """The file tests' fake: "translates" a text to file_samples.fake_translation's "[es] TEXT"
    (a text containing DROP loses a placeholder), refuses a text containing REFUSE, and records
    the texts and the formats of the TranslateBatch calls."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = []
        self.formats = set()

    def TranslateBatch(self, request, context):
        self.formats.add(request.format)
        return super().TranslateBatch(request, context)

    def _check(self, text, options, context):
        if "REFUSE" in text:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "text is too long (test)")
        super()._check(text, options, context)

    def _response(self, text, options, request_id):
        self.texts.append(text)
        return pb.TranslateResponse(
            text=fake_translation(text), finish_reason=pb.FINISH_REASON_EOS, request_id=request_id or "generated"
        )


@pytest.fixture
def fake():
    translator = CatalogFake()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_TranslatorServicer_to_server(translator, server)
    translator.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    yield translator
    server.stop(grace=None).wait()
