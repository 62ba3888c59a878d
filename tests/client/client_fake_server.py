"""A small in-process Translator server for the client tests.

Deterministic behaviour, chosen so that every client feature can be observed from outside:

* a text is "translated" by reversing its words; each word is one token;
* ``max_new_tokens`` truncates (finish reason LENGTH), ``beam_size`` above 4 and empty text are
  INVALID_ARGUMENT, ``return_scores`` gives every token log-prob -0.5;
* the text ``!invalid`` is INVALID_ARGUMENT (in a batch: ``texts[i]: ...``), ``!block`` waits until ``release`` is set;
* ``fail_next`` is a queue of status codes: each call pops one and aborts with it (before any
  stream message); ``!break`` streams one token and then aborts with UNAVAILABLE;
* with ``required_token`` set, calls without ``authorization: Bearer <token>`` are
  UNAUTHENTICATED.

Every call is counted per method, with its metadata and decoding options, under a lock.
"""

from __future__ import annotations

import socket
import threading
import zlib
from collections import Counter
from concurrent import futures
from typing import Dict, List, Optional

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

BLOCK_LIMIT_SECONDS = 10.0  # a blocked handler gives up after this, so a failed test cannot hang


class FakeTranslator(pb_grpc.TranslatorServicer):
    def __init__(self) -> None:
        self.calls: Counter = Counter()
        self.metadata: List[Dict[str, str]] = []
        self.options: List[pb.DecodingOptions] = []
        self.stream_options: List[pb.StreamOptions] = []  # each TranslateStream's request.stream
        self.fail_next: List[grpc.StatusCode] = []
        self.required_token: Optional[str] = None
        self.release = threading.Event()
        self.blocked = threading.Event()  # set when a "!block" handler has started waiting
        self._lock = threading.Lock()

    # -- shared checks -------------------------------------------------------------------------
    def _enter(self, method: str, context: grpc.ServicerContext, options: Optional[pb.DecodingOptions] = None) -> None:
        metadata = {key: value for key, value in context.invocation_metadata()}
        with self._lock:
            self.calls[method] += 1
            self.metadata.append(metadata)
            if options is not None:
                self.options.append(options)
            code = self.fail_next.pop(0) if self.fail_next else None
        if code is not None:
            context.abort(code, f"scripted {code.name}")
        if self.required_token and metadata.get("authorization") != f"Bearer {self.required_token}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")

    def _check(self, text: str, options: pb.DecodingOptions, context) -> None:
        if not text.strip() or text == "!invalid":
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "text is empty or invalid")
        if options.HasField("beam_size") and not 1 <= options.beam_size <= 4:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "beam_size must be in [1, 4]")
        if text == "!block":
            self.blocked.set()
            self.release.wait(BLOCK_LIMIT_SECONDS)

    @staticmethod
    def _words(text: str, options: pb.DecodingOptions):
        words = list(reversed(text.split()))
        finish = pb.FINISH_REASON_EOS
        if options.HasField("max_new_tokens") and len(words) > options.max_new_tokens:
            words, finish = words[: options.max_new_tokens], pb.FINISH_REASON_LENGTH
        return words, finish

    @staticmethod
    def token_id(word: str) -> int:
        return zlib.crc32(word.encode()) % 1000

    def _response(self, text: str, options: pb.DecodingOptions, request_id: str):
        words, finish = self._words(text, options)
        logprobs = [-0.5] * len(words) if options.return_scores else []
        return pb.TranslateResponse(
            text=" ".join(words),
            token_ids=[self.token_id(w) for w in words],
            finish_reason=finish,
            usage=pb.Usage(input_tokens=len(text.split()) + 1, output_tokens=len(words)),
            timings=pb.Timings(total_seconds=0.001, time_to_first_token_seconds=0.0005),
            token_logprobs=logprobs,
            score=sum(logprobs),
            request_id=request_id or "generated",
        )

    # -- RPCs ----------------------------------------------------------------------------------
    def Translate(self, request, context):
        self._enter("Translate", context, request.options)
        self._check(request.text, request.options, context)
        return self._response(request.text, request.options, request.request_id)

    def TranslateStream(self, request, context):
        self._enter("TranslateStream", context, request.options)
        with self._lock:
            self.stream_options.append(request.stream)
        self._check(request.text, request.options, context)
        if request.text == "!break":
            yield pb.TranslateStreamResponse(text_delta="first", token_id=1, index=0)
            context.abort(grpc.StatusCode.UNAVAILABLE, "dropped mid-stream")
        words, finish = self._words(request.text, request.options)
        for index, word in enumerate(words):
            yield pb.TranslateStreamResponse(
                text_delta=(" " if index else "") + word,
                token_id=self.token_id(word),
                index=index,
                token_logprob=-0.5 if request.options.return_scores else 0.0,
            )
        yield pb.TranslateStreamResponse(
            token_id=-1,
            index=len(words),
            finish_reason=finish,
            usage=pb.Usage(input_tokens=len(request.text.split()) + 1, output_tokens=len(words)),
            timings=pb.Timings(total_seconds=0.001),
            request_id=request.request_id or "generated",
        )

    def TranslateBatch(self, request, context):
        self._enter("TranslateBatch", context, request.options)
        for index, text in enumerate(request.texts):
            if text == "!invalid":  # as the real server: a text's own refusal names its item
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"texts[{index}]: text is empty or invalid")
            self._check(text, request.options, context)
        return pb.TranslateBatchResponse(
            results=[self._response(t, request.options, request.request_id) for t in request.texts]
        )

    def GetModelInfo(self, request, context):
        self._enter("GetModelInfo", context)
        return self._info()

    def _info(self) -> pb.ModelInfo:
        return pb.ModelInfo(
            name="fake-reverse",
            source_language="en",
            target_language="es",
            d_model=8,
            max_beam_size=4,
            quantization="none",
            version="test",
            languages=[pb.LanguagePair(source="en", target="es")],
            is_default=True,
            serving=True,
        )

    def ListModels(self, request, context):
        self._enter("ListModels", context)
        return pb.ListModelsResponse(models=[self._info()], default_model="fake-reverse")


class FakeServer:
    """A started gRPC server with the fake Translator and a standard health servicer."""

    def __init__(self, port: int = 0) -> None:
        self.translator = FakeTranslator()
        self.health = health.HealthServicer()
        self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        pb_grpc.add_TranslatorServicer_to_server(self.translator, self._server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        self.port = self._server.add_insecure_port(f"127.0.0.1:{port}")
        if port and self.port != port:
            raise RuntimeError(f"could not bind port {port}")
        self._server.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.translator.release.set()  # unblock any waiting handler before shutting down
        self._server.stop(grace=None).wait()


def unused_port() -> int:
    """A port nothing listens on right now (bound then released by the OS)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: Reconnect quickly in tests so a server started late is found within milliseconds.
FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 100),
]
