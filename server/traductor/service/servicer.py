"""The Translator servicer: each RPC is a few lines; errors are mapped by the interceptor.

Texts go through `texts.py` (segmentation, one engine group per request), the same functions the
HTTP API calls, so both protocols give the same result for the same text."""

from __future__ import annotations

import uuid

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

from .. import __version__
from ..engine.request import FinishEvent
from . import texts
from .async_engine import AsyncEngine, request_summary
from .convert import final_to_pb, format_from_pb, options_from_pb, response_to_pb, token_to_pb


def _request_id(request) -> str:
    rid = request.request_id or uuid.uuid4().hex[:16]
    summary = request_summary.get()
    if summary is not None:  # the RPC's log line names the id the caller gets back, made up or not
        summary["request_id"] = rid
    return rid


class TranslatorServicer(pb_grpc.TranslatorServicer):
    def __init__(self, engine: AsyncEngine, model_info: pb.ModelInfo):
        self.engine, self.model_info = engine, model_info

    async def Translate(self, request: pb.TranslateRequest, context) -> pb.TranslateResponse:
        rid = _request_id(request)
        options, format = options_from_pb(request.options), format_from_pb(request.format)
        event = await texts.translate(self.engine, request.text, options, rid, context.time_remaining(), format)
        return response_to_pb(event, rid, request.options.return_scores)

    async def TranslateStream(self, request: pb.TranslateRequest, context):
        rid = _request_id(request)
        options, format = options_from_pb(request.options), format_from_pb(request.format)
        prepared = texts.prepare(self.engine, request.text, options, format)
        async for event in texts.stream(self.engine, prepared, rid, context.time_remaining()):
            yield final_to_pb(event, rid) if isinstance(event, FinishEvent) else token_to_pb(event, rid)

    async def TranslateBatch(self, request: pb.TranslateBatchRequest, context) -> pb.TranslateBatchResponse:
        rid = _request_id(request)
        options, format = options_from_pb(request.options), format_from_pb(request.format)
        events = await texts.translate_many(
            self.engine,
            list(request.texts),
            options,
            rid,
            context.time_remaining(),
            format,
            max_texts=self.model_info.max_batch_texts,
        )
        return pb.TranslateBatchResponse(
            results=[response_to_pb(e, f"{rid}-{i}", request.options.return_scores) for i, e in enumerate(events)]
        )

    async def GetModelInfo(self, request, context) -> pb.ModelInfo:
        return self.model_info


def model_info(bundle, settings, limits) -> pb.ModelInfo:
    """The limits reported are the engine's (`limits`): the settings capped by the bundle."""
    m, c = bundle.model, bundle.config
    return pb.ModelInfo(
        name=c.name or bundle.path.name,
        source_language=c.languages.source,
        target_language=c.languages.target,
        d_model=m.d_model,
        n_heads=m.n_heads,
        n_encoder_layers=m.n_encoder_layers,
        n_decoder_layers=m.n_decoder_layers,
        vocab_size=m.vocab_size,
        max_input_tokens=limits.max_input_tokens,
        max_new_tokens=limits.max_new_tokens,
        max_beam_size=limits.max_beam_size,
        max_batch_texts=settings.max_batch_texts,
        max_input_chars=settings.max_input_chars,
        max_segments=settings.max_segments,
        bundle_sha256=bundle.checksum,
        quantization=c.quantization,
        version=__version__,
    )
