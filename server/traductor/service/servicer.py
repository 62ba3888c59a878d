"""The Translator servicer: each RPC is a few lines; errors are mapped by the interceptor. The
registry (registry.py) picks each call's model from its `model`, `source_language` and
`target_language`.

Texts go through the text pipeline (`pipeline/`: cut, protect, decode as one engine group per
request, restore, verify, join or stream), called once a call, as the HTTP API calls it, so both
protocols give the same result for the same text.

Every RPC first checks the call's key (`authorization: Bearer KEY`, service/keys/gate.py: the
--token, a stored key, or none on an open server); a translating one is then charged its
characters. A call's glossary (`glossary_id` or inline `glossary` entries) is resolved by `glossary_use`: an
id is asked of the `GlossaryLookup` the servicer is given (service/glossaries.py's store; without
one, NO_GLOSSARIES: every id is NOT_FOUND). A call that names no model and no language goes to a
model of the stored glossary's pair."""

from __future__ import annotations

import uuid
from dataclasses import replace

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

from .. import __version__
from ..engine.request import FinishEvent
from ..errors import InvalidInput
from ..glossary import NO_GLOSSARIES, Glossary, GlossaryLookup
from ..options import DecodingOptions, register_of
from . import glossary_use, grouping, pipeline
from .async_engine import request_summary
from .convert import (
    final_to_pb,
    format_from_pb,
    grouping_from_pb,
    options_from_pb,
    response_to_pb,
    token_to_pb,
    tokens_to_pb,
)
from .keys.gate import Caller, Gate
from .models import Model
from .registry import Registry
from .settings import Settings


def _request_id(request) -> str:
    rid = request.request_id or uuid.uuid4().hex[:16]
    summary = request_summary.get()
    if summary is not None:  # the RPC's log line names the id the caller gets back, made up or not
        summary["request_id"] = rid
    return rid


def secret(context) -> str:
    """The key of a call: its `authorization: Bearer KEY` metadata ("" when none)."""
    for name, value in context.invocation_metadata() or ():
        if name == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :]  # exactly: a key with a space more is another key
    return ""


def _model(registry: Registry, request, source: str, target: str) -> Model:
    """The model a call goes to (registry.route), named in the RPC's log line and metrics."""
    model = registry.route(request.model, source, target)
    summary = request_summary.get()
    if summary is not None:
        summary["model"] = model.name
    return model


class TranslatorServicer(pb_grpc.TranslatorServicer):
    def __init__(
        self,
        registry: Registry,
        settings: Settings,
        glossaries: GlossaryLookup = NO_GLOSSARIES,
        gate: Gate | None = None,
    ):
        self.registry, self.settings, self.glossaries = registry, settings, glossaries
        self.gate = gate or Gate(None, settings.token)

    def _lookup(self, caller: Caller) -> GlossaryLookup:
        """The glossaries the caller may name: its key's own (service/keys), or all."""
        owned_by = getattr(self.glossaries, "owned_by", None)
        return owned_by(caller.owner) if owned_by is not None else self.glossaries

    async def _admit(self, request, context, chars: int) -> tuple[Model, DecodingOptions, str, Glossary | None]:
        """`_call` for the call's key (service/keys/gate.py: checked, its model and pair allowed,
        then the call and its characters charged), before any work."""
        caller = await self.gate.caller(secret(context))
        call = self._call(request, caller)
        await self.gate.charge(caller, chars)
        return call

    def _call(self, request, caller: Caller) -> tuple[Model, DecodingOptions, str, Glossary | None]:
        """The call's model, decoding options, text format and glossary. The target_language that
        routed the call also picks a multilingual model's target (NLLB's forced first token,
        OPUS-MT's >>xx<<)."""
        entries = [(e.source, e.target) for e in request.glossary]
        glossary = glossary_use.requested(self._lookup(caller), request.glossary_id, entries)
        source, target = request.source_language, request.target_language
        if glossary is not None and glossary.source_language and not (request.model or source or target):
            source, target = glossary.source_language, glossary.target_language
        model = _model(self.registry, request, source, target)
        self.gate.check(caller, model, source, target)
        options = options_from_pb(request.options, target, source)
        register = register_of(request.formality, model.registers)
        if register:
            options = replace(options, register=register)
        return model, options, format_from_pb(request.format), glossary_use.for_model(glossary, model, target)

    async def Translate(self, request: pb.TranslateRequest, context) -> pb.TranslateResponse:
        rid = _request_id(request)
        model, options, format, glossary = await self._admit(request, context, len(request.text))
        event = await pipeline.translate(
            model.engine, request.text, options, rid, context.time_remaining(), format, glossary=glossary
        )
        return response_to_pb(event, rid, request.options.return_scores)

    async def TranslateStream(self, request: pb.TranslateRequest, context):
        rid = _request_id(request)
        model, options, format, glossary = await self._admit(request, context, len(request.text))
        if options.alternatives:
            raise InvalidInput("alternatives are given by Translate and TranslateBatch, not by a stream")
        delay = grouping_from_pb(request.stream)
        prepared = pipeline.prepare(model.engine, request.text, options, format, glossary)
        events = pipeline.stream(model.engine, prepared, rid, context.time_remaining())
        if delay is None:
            async for event in events:
                yield final_to_pb(event, rid) if isinstance(event, FinishEvent) else token_to_pb(event, rid)
            return
        scores = request.options.return_scores
        async for group in grouping.grouped(events, delay):  # the FinishEvent comes last, in the last group
            tokens = [e for e in group if not isinstance(e, FinishEvent)]
            if tokens:
                model.engine.metrics.observe_stream_message(len(tokens))
                yield tokens_to_pb(tokens, rid, scores)
            if isinstance(group[-1], FinishEvent):
                yield final_to_pb(group[-1], rid)

    async def TranslateBatch(self, request: pb.TranslateBatchRequest, context) -> pb.TranslateBatchResponse:
        rid = _request_id(request)
        chars = sum(len(t) for t in request.texts)
        model, options, format, glossary = await self._admit(request, context, chars)
        events = await pipeline.translate_many(
            model.engine,
            list(request.texts),
            options,
            rid,
            context.time_remaining(),
            format,
            max_texts=self.settings.max_batch_texts,
            glossary=glossary,
        )
        return pb.TranslateBatchResponse(
            results=[response_to_pb(e, f"{rid}-{i}", request.options.return_scores) for i, e in enumerate(events)]
        )

    async def GetModelInfo(self, request: pb.GetModelInfoRequest, context) -> pb.ModelInfo:
        await self.gate.caller(secret(context))
        return model_info(self.registry.get(request.model), self.settings, self.registry.default_name)

    async def ListModels(self, request: pb.ListModelsRequest, context) -> pb.ListModelsResponse:
        await self.gate.caller(secret(context))
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
        formality=model.formality,
        registers=list(model.registers),
        serving=model.serving,
    )
