"""The Translator servicer: each RPC is a few lines; errors are mapped by the interceptor."""

from __future__ import annotations

import asyncio
import uuid

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

from .. import __version__
from ..engine.request import FinishEvent, FinishReason
from ..errors import DeadlinePassed, EngineFailure, InvalidInput
from .async_engine import AsyncEngine, request_summary
from .convert import final_to_pb, options_from_pb, response_to_pb, token_to_pb


def _request_id(request) -> str:
    rid = request.request_id or uuid.uuid4().hex[:16]
    summary = request_summary.get()
    if summary is not None:  # the RPC's log line names the id the caller gets back, made up or not
        summary["request_id"] = rid
    return rid


def _check_finish(event: FinishEvent) -> FinishEvent:
    if event.reason is FinishReason.ERROR:
        raise EngineFailure("engine error") from event.error
    if event.reason is FinishReason.DEADLINE:
        raise DeadlinePassed("the deadline passed before the translation was done")
    return event


class TranslatorServicer(pb_grpc.TranslatorServicer):
    def __init__(self, engine: AsyncEngine, model_info: pb.ModelInfo):
        self.engine, self.model_info = engine, model_info

    async def _translate(self, text: str, options, request_id: str, context, prepared=None) -> FinishEvent:
        async for event in self.engine.generate(
            text, options, request_id, context.time_remaining(), stream=False, prepared=prepared
        ):
            if isinstance(event, FinishEvent):
                return _check_finish(event)
        raise EngineFailure("the engine ended without a result")

    async def Translate(self, request: pb.TranslateRequest, context) -> pb.TranslateResponse:
        rid = _request_id(request)
        event = await self._translate(request.text, options_from_pb(request.options), rid, context)
        return response_to_pb(event, rid, request.options.return_scores)

    async def TranslateStream(self, request: pb.TranslateRequest, context):
        rid = _request_id(request)
        async for event in self.engine.generate(
            request.text, options_from_pb(request.options), rid, context.time_remaining()
        ):
            if isinstance(event, FinishEvent):
                yield final_to_pb(_check_finish(event), rid)
            else:
                yield token_to_pb(event, rid)

    async def TranslateBatch(self, request: pb.TranslateBatchRequest, context) -> pb.TranslateBatchResponse:
        limit = self.model_info.max_batch_texts
        if not request.texts or len(request.texts) > limit:
            raise InvalidInput(f"texts must hold between 1 and {limit} texts, got {len(request.texts)}")
        options = options_from_pb(request.options)
        rid = _request_id(request)
        prepared = [self.engine.prepare(t, options) for t in request.texts]  # every text checked before any work
        try:  # all texts decode together; if one fails, the others are cancelled
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(self._translate(t, options, f"{rid}-{i}", context, p))
                    for i, (t, p) in enumerate(zip(request.texts, prepared))
                ]
        except* Exception as failed:
            raise failed.exceptions[0] from None
        events = [t.result() for t in tasks]
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
        bundle_sha256=bundle.checksum,
        quantization=c.quantization,
        version=__version__,
    )
