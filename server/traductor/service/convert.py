"""Protobuf <-> engine types, at the edge only (from_pb / to_pb)."""

from __future__ import annotations

from traductor_client.v1 import translator_pb2 as pb

from ..engine.confidence import low
from ..engine.request import FinishEvent, FinishReason, Timings, TokenEvent
from ..errors import InvalidInput
from ..options import DecodingOptions

FINISH_TO_PB = {
    FinishReason.EOS: pb.FINISH_REASON_EOS,
    FinishReason.LENGTH: pb.FINISH_REASON_LENGTH,
    FinishReason.CANCELLED: pb.FINISH_REASON_CANCELLED,
    FinishReason.DEADLINE: pb.FINISH_REASON_DEADLINE,
    FinishReason.UNTRANSLATED: pb.FINISH_REASON_UNTRANSLATED,
    FinishReason.LOOP: pb.FINISH_REASON_LOOP,
}


def options_from_pb(o: pb.DecodingOptions, target_language: str = "", source_language: str = "") -> DecodingOptions:
    """Unset fields take the defaults; a field set to a value it cannot have is an error.

    max_new_tokens and beam_size set to 0 are refused here: 0 means "unset" only when the
    field is absent on the wire. `target_language` is the request's (it routed the call): a
    multilingual model translates into it, a one-target model ignores it; `source_language` too:
    a many-to-many model (NLLB, M2M100) translates from it.
    """
    for name in ("max_new_tokens", "beam_size"):
        if o.HasField(name) and getattr(o, name) < 1:
            raise InvalidInput(f"{name} must be >= 1 when set, got {getattr(o, name)}")
    d = DecodingOptions()
    return DecodingOptions(
        max_new_tokens=o.max_new_tokens if o.HasField("max_new_tokens") else d.max_new_tokens,
        min_new_tokens=o.min_new_tokens if o.HasField("min_new_tokens") else d.min_new_tokens,
        beam_size=o.beam_size if o.HasField("beam_size") else d.beam_size,
        temperature=o.temperature if o.HasField("temperature") else d.temperature,
        top_k=o.top_k if o.HasField("top_k") else d.top_k,
        top_p=o.top_p if o.HasField("top_p") else d.top_p,
        seed=o.seed if o.HasField("seed") else d.seed,
        return_scores=o.return_scores,
        alternatives=o.alternatives,
        target_language=target_language,
        source_language=source_language,
    )


FORMATS = {pb.FORMAT_TEXT: "text", pb.FORMAT_HTML: "html"}


def format_from_pb(value: int) -> str:
    """The text layer's format name; a number this server does not know is the caller's error."""
    if value not in FORMATS:
        raise InvalidInput(f"unknown format {value}: expected FORMAT_TEXT or FORMAT_HTML")
    return FORMATS[value]


def timings_to_pb(t: Timings) -> pb.Timings:
    return pb.Timings(
        queue_seconds=t.queue,
        encode_seconds=t.encode,
        decode_seconds=t.decode,
        total_seconds=t.total,
        time_to_first_token_seconds=t.first_token,
    )


def usage_to_pb(e: FinishEvent) -> pb.Usage:
    return pb.Usage(input_tokens=e.input_tokens, output_tokens=len(e.token_ids))


def segment_to_pb(e: FinishEvent) -> pb.SegmentResult:
    """One segment of a text's event (FinishEvent.segments)."""
    return pb.SegmentResult(
        source=e.source,
        text=e.text,
        finish_reason=FINISH_TO_PB[e.reason],
        cut_short=e.cut_short,
        confidence=e.confidence,
        low_confidence=low(e.confidence),
        markup_unsure=e.markup_unsure,
        failed_checks=e.failed_checks,
    )


def response_to_pb(e: FinishEvent, request_id: str, scores: bool) -> pb.TranslateResponse:
    r = pb.TranslateResponse(
        text=e.text,
        token_ids=e.token_ids,
        finish_reason=FINISH_TO_PB[e.reason],
        usage=usage_to_pb(e),
        timings=timings_to_pb(e.timings),
        request_id=request_id,
        confidence=e.confidence,
        segments=[segment_to_pb(s) for s in e.segments],
        alternatives=e.alternatives,
    )
    if scores:
        r.token_logprobs.extend(e.logprobs)
        r.score = sum(e.logprobs)
    return r


def token_to_pb(e: TokenEvent, request_id: str) -> pb.TranslateStreamResponse:
    return pb.TranslateStreamResponse(
        text_delta=e.text_delta, token_id=e.token_id, index=e.index, token_logprob=e.logprob, request_id=request_id
    )


MAX_GROUP_DELAY_MS = 1000  # StreamOptions.max_delay_ms, at most


def grouping_from_pb(o: pb.StreamOptions) -> float | None:
    """A stream's grouping (StreamOptions): None for one message a token, else how long a group
    may wait for more tokens, in seconds (0: not at all). InvalidInput names a bad field."""
    if not 0 <= o.max_delay_ms <= MAX_GROUP_DELAY_MS:
        raise InvalidInput(f"stream.max_delay_ms must be between 0 and {MAX_GROUP_DELAY_MS}, not {o.max_delay_ms}")
    if not o.group_tokens:
        if o.max_delay_ms:
            raise InvalidInput("stream.max_delay_ms needs stream.group_tokens")
        return None
    return o.max_delay_ms / 1000


def tokens_to_pb(group: list[TokenEvent], request_id: str, scores: bool) -> pb.TranslateStreamResponse:
    """One message for several tokens (StreamOptions.group_tokens): the first token's fields, and
    every token's id, text and (with return_scores) log p in the repeated fields."""
    first = group[0]
    r = pb.TranslateStreamResponse(
        text_delta="".join(e.text_delta for e in group),
        token_id=first.token_id,
        index=first.index,
        token_logprob=first.logprob,
        request_id=request_id,
        token_ids=[e.token_id for e in group],
        text_deltas=[e.text_delta for e in group],
    )
    if scores:
        r.token_logprobs.extend(e.logprob for e in group)
    return r


def final_to_pb(e: FinishEvent, request_id: str) -> pb.TranslateStreamResponse:
    return pb.TranslateStreamResponse(
        text_delta=e.final_delta,
        token_id=-1,
        index=len(e.token_ids),
        finish_reason=FINISH_TO_PB[e.reason],
        usage=usage_to_pb(e),
        timings=timings_to_pb(e.timings),
        request_id=request_id,
        confidence=e.confidence,
        segments=[segment_to_pb(s) for s in e.segments],
    )
