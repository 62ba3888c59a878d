"""The Translator servicer: each RPC is a few lines; errors are mapped by the interceptor. The
registry (registry.py) picks each call's model from its `model`, `source_language` and
`target_language`.

Texts go through `texts.py` (segmentation, one engine group per request), the same functions the
HTTP API calls, so both protocols give the same result for the same text."""

from __future__ import annotations

import uuid

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

from .. import __version__
from ..engine.request import FinishEvent
from ..options import DecodingOptions
from . import texts
from .async_engine import request_summary
from .convert import final_to_pb, format_from_pb, options_from_pb, response_to_pb, token_to_pb
from .models import Model
from .registry import Registry
from .settings import Settings


def _request_id(request) -> str:
    rid = request.request_id or uuid.uuid4().hex[:16]
    summary = request_summary.get()
    if summary is not None:  # the RPC's log line names the id the caller gets back, made up or not
        summary["request_id"] = rid
    return rid


def _model(registry: Registry, request) -> Model:
    """The model a call goes to (registry.route), named in the RPC's log line and metrics."""
    model = registry.route(request.model, request.source_language, request.target_language)
    summary = request_summary.get()
    if summary is not None:
        summary["model"] = model.name
    return model


def _options(request) -> tuple[DecodingOptions, str]:
    """The call's decoding options and text format. The target_language that routed the call also
    picks a multilingual model's target (NLLB's forced first token, OPUS-MT's >>xx<<)."""
    return options_from_pb(request.options, request.target_language), format_from_pb(request.format)


class TranslatorServicer(pb_grpc.TranslatorServicer):
    def __init__(self, registry: Registry, settings: Settings):
        self.registry, self.settings = registry, settings

    async def Translate(self, request: pb.TranslateRequest, context) -> pb.TranslateResponse:
        rid = _request_id(request)
        engine = _model(self.registry, request).engine
        options, format = _options(request)
        event = await texts.translate(engine, request.text, options, rid, context.time_remaining(), format)
        return response_to_pb(event, rid, request.options.return_scores)

    async def TranslateStream(self, request: pb.TranslateRequest, context):
        rid = _request_id(request)
        engine = _model(self.registry, request).engine
        options, format = _options(request)
        prepared = texts.prepare(engine, request.text, options, format)
        async for event in texts.stream(engine, prepared, rid, context.time_remaining()):
            yield final_to_pb(event, rid) if isinstance(event, FinishEvent) else token_to_pb(event, rid)

    async def TranslateBatch(self, request: pb.TranslateBatchRequest, context) -> pb.TranslateBatchResponse:
        rid = _request_id(request)
        engine = _model(self.registry, request).engine
        options, format = _options(request)
        events = await texts.translate_many(
            engine,
            list(request.texts),
            options,
            rid,
            context.time_remaining(),
            format,
            max_texts=self.settings.max_batch_texts,
        )
        return pb.TranslateBatchResponse(
            results=[response_to_pb(e, f"{rid}-{i}", request.options.return_scores) for i, e in enumerate(events)]
        )

    async def GetModelInfo(self, request: pb.GetModelInfoRequest, context) -> pb.ModelInfo:
        return model_info(self.registry.get(request.model), self.settings, self.registry.default_name)

    async def ListModels(self, request: pb.ListModelsRequest, context) -> pb.ListModelsResponse:
        default = self.registry.default_name
        return pb.ListModelsResponse(
            models=[model_info(m, self.settings, default) for m in self.registry], default_model=default
        )


def model_info(model: Model, settings: Settings, default: str) -> pb.ModelInfo:
    """The limits reported are the engine's (`engine.limits`): the settings capped by the bundle."""
    m, c, limits = model.bundle.model, model.bundle.config, model.engine.limits
    return pb.ModelInfo(
        name=model.name,
        source_language=model.languages[0].source,
        target_language=model.languages[0].target,
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
        bundle_sha256=model.bundle.checksum,
        quantization=c.quantization,
        version=__version__,
        languages=[pb.LanguagePair(source=p.source, target=p.target) for p in model.languages],
        is_default=model.name == default,
        serving=model.serving,
    )
