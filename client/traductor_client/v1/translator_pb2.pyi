from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Format(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORMAT_TEXT: _ClassVar[Format]
    FORMAT_HTML: _ClassVar[Format]

class FinishReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_REASON_UNSPECIFIED: _ClassVar[FinishReason]
    FINISH_REASON_EOS: _ClassVar[FinishReason]
    FINISH_REASON_LENGTH: _ClassVar[FinishReason]
    FINISH_REASON_CANCELLED: _ClassVar[FinishReason]
    FINISH_REASON_DEADLINE: _ClassVar[FinishReason]
    FINISH_REASON_UNTRANSLATED: _ClassVar[FinishReason]
    FINISH_REASON_LOOP: _ClassVar[FinishReason]
FORMAT_TEXT: Format
FORMAT_HTML: Format
FINISH_REASON_UNSPECIFIED: FinishReason
FINISH_REASON_EOS: FinishReason
FINISH_REASON_LENGTH: FinishReason
FINISH_REASON_CANCELLED: FinishReason
FINISH_REASON_DEADLINE: FinishReason
FINISH_REASON_UNTRANSLATED: FinishReason
FINISH_REASON_LOOP: FinishReason

class DecodingOptions(_message.Message):
    __slots__ = ("max_new_tokens", "min_new_tokens", "beam_size", "temperature", "top_k", "top_p", "seed", "return_scores", "alternatives")
    MAX_NEW_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MIN_NEW_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BEAM_SIZE_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    RETURN_SCORES_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVES_FIELD_NUMBER: _ClassVar[int]
    max_new_tokens: int
    min_new_tokens: int
    beam_size: int
    temperature: float
    top_k: int
    top_p: float
    seed: int
    return_scores: bool
    alternatives: int
    def __init__(self, max_new_tokens: _Optional[int] = ..., min_new_tokens: _Optional[int] = ..., beam_size: _Optional[int] = ..., temperature: _Optional[float] = ..., top_k: _Optional[int] = ..., top_p: _Optional[float] = ..., seed: _Optional[int] = ..., return_scores: _Optional[bool] = ..., alternatives: _Optional[int] = ...) -> None: ...

class GlossaryEntry(_message.Message):
    __slots__ = ("source", "target")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class TranslateRequest(_message.Message):
    __slots__ = ("text", "options", "request_id", "format", "model", "source_language", "target_language", "glossary_id", "glossary", "formality", "stream")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TARGET_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    GLOSSARY_ID_FIELD_NUMBER: _ClassVar[int]
    GLOSSARY_FIELD_NUMBER: _ClassVar[int]
    FORMALITY_FIELD_NUMBER: _ClassVar[int]
    STREAM_FIELD_NUMBER: _ClassVar[int]
    text: str
    options: DecodingOptions
    request_id: str
    format: Format
    model: str
    source_language: str
    target_language: str
    glossary_id: str
    glossary: _containers.RepeatedCompositeFieldContainer[GlossaryEntry]
    formality: str
    stream: StreamOptions
    def __init__(self, text: _Optional[str] = ..., options: _Optional[_Union[DecodingOptions, _Mapping]] = ..., request_id: _Optional[str] = ..., format: _Optional[_Union[Format, str]] = ..., model: _Optional[str] = ..., source_language: _Optional[str] = ..., target_language: _Optional[str] = ..., glossary_id: _Optional[str] = ..., glossary: _Optional[_Iterable[_Union[GlossaryEntry, _Mapping]]] = ..., formality: _Optional[str] = ..., stream: _Optional[_Union[StreamOptions, _Mapping]] = ...) -> None: ...

class StreamOptions(_message.Message):
    __slots__ = ("group_tokens", "max_delay_ms")
    GROUP_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    group_tokens: bool
    max_delay_ms: int
    def __init__(self, group_tokens: _Optional[bool] = ..., max_delay_ms: _Optional[int] = ...) -> None: ...

class SegmentResult(_message.Message):
    __slots__ = ("source", "text", "finish_reason", "cut_short", "confidence", "low_confidence", "markup_unsure", "failed_checks")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    CUT_SHORT_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    LOW_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    MARKUP_UNSURE_FIELD_NUMBER: _ClassVar[int]
    FAILED_CHECKS_FIELD_NUMBER: _ClassVar[int]
    source: str
    text: str
    finish_reason: FinishReason
    cut_short: bool
    confidence: float
    low_confidence: bool
    markup_unsure: bool
    failed_checks: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, source: _Optional[str] = ..., text: _Optional[str] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ..., cut_short: _Optional[bool] = ..., confidence: _Optional[float] = ..., low_confidence: _Optional[bool] = ..., markup_unsure: _Optional[bool] = ..., failed_checks: _Optional[_Iterable[str]] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ...) -> None: ...

class Timings(_message.Message):
    __slots__ = ("queue_seconds", "encode_seconds", "decode_seconds", "total_seconds", "time_to_first_token_seconds")
    QUEUE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ENCODE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    DECODE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_TO_FIRST_TOKEN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    queue_seconds: float
    encode_seconds: float
    decode_seconds: float
    total_seconds: float
    time_to_first_token_seconds: float
    def __init__(self, queue_seconds: _Optional[float] = ..., encode_seconds: _Optional[float] = ..., decode_seconds: _Optional[float] = ..., total_seconds: _Optional[float] = ..., time_to_first_token_seconds: _Optional[float] = ...) -> None: ...

class TranslateResponse(_message.Message):
    __slots__ = ("text", "token_ids", "finish_reason", "usage", "timings", "token_logprobs", "score", "request_id", "confidence", "segments", "alternatives")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_IDS_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_LOGPROBS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVES_FIELD_NUMBER: _ClassVar[int]
    text: str
    token_ids: _containers.RepeatedScalarFieldContainer[int]
    finish_reason: FinishReason
    usage: Usage
    timings: Timings
    token_logprobs: _containers.RepeatedScalarFieldContainer[float]
    score: float
    request_id: str
    confidence: float
    segments: _containers.RepeatedCompositeFieldContainer[SegmentResult]
    alternatives: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, text: _Optional[str] = ..., token_ids: _Optional[_Iterable[int]] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., timings: _Optional[_Union[Timings, _Mapping]] = ..., token_logprobs: _Optional[_Iterable[float]] = ..., score: _Optional[float] = ..., request_id: _Optional[str] = ..., confidence: _Optional[float] = ..., segments: _Optional[_Iterable[_Union[SegmentResult, _Mapping]]] = ..., alternatives: _Optional[_Iterable[str]] = ...) -> None: ...

class TranslateStreamResponse(_message.Message):
    __slots__ = ("text_delta", "token_id", "index", "finish_reason", "usage", "timings", "token_logprob", "request_id", "confidence", "segments", "token_ids", "text_deltas", "token_logprobs")
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_LOGPROB_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_IDS_FIELD_NUMBER: _ClassVar[int]
    TEXT_DELTAS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_LOGPROBS_FIELD_NUMBER: _ClassVar[int]
    text_delta: str
    token_id: int
    index: int
    finish_reason: FinishReason
    usage: Usage
    timings: Timings
    token_logprob: float
    request_id: str
    confidence: float
    segments: _containers.RepeatedCompositeFieldContainer[SegmentResult]
    token_ids: _containers.RepeatedScalarFieldContainer[int]
    text_deltas: _containers.RepeatedScalarFieldContainer[str]
    token_logprobs: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, text_delta: _Optional[str] = ..., token_id: _Optional[int] = ..., index: _Optional[int] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., timings: _Optional[_Union[Timings, _Mapping]] = ..., token_logprob: _Optional[float] = ..., request_id: _Optional[str] = ..., confidence: _Optional[float] = ..., segments: _Optional[_Iterable[_Union[SegmentResult, _Mapping]]] = ..., token_ids: _Optional[_Iterable[int]] = ..., text_deltas: _Optional[_Iterable[str]] = ..., token_logprobs: _Optional[_Iterable[float]] = ...) -> None: ...

class TranslateBatchRequest(_message.Message):
    __slots__ = ("texts", "options", "request_id", "format", "model", "source_language", "target_language", "glossary_id", "glossary", "formality")
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TARGET_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    GLOSSARY_ID_FIELD_NUMBER: _ClassVar[int]
    GLOSSARY_FIELD_NUMBER: _ClassVar[int]
    FORMALITY_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    options: DecodingOptions
    request_id: str
    format: Format
    model: str
    source_language: str
    target_language: str
    glossary_id: str
    glossary: _containers.RepeatedCompositeFieldContainer[GlossaryEntry]
    formality: str
    def __init__(self, texts: _Optional[_Iterable[str]] = ..., options: _Optional[_Union[DecodingOptions, _Mapping]] = ..., request_id: _Optional[str] = ..., format: _Optional[_Union[Format, str]] = ..., model: _Optional[str] = ..., source_language: _Optional[str] = ..., target_language: _Optional[str] = ..., glossary_id: _Optional[str] = ..., glossary: _Optional[_Iterable[_Union[GlossaryEntry, _Mapping]]] = ..., formality: _Optional[str] = ...) -> None: ...

class TranslateBatchResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[TranslateResponse]
    def __init__(self, results: _Optional[_Iterable[_Union[TranslateResponse, _Mapping]]] = ...) -> None: ...

class GetModelInfoRequest(_message.Message):
    __slots__ = ("model",)
    MODEL_FIELD_NUMBER: _ClassVar[int]
    model: str
    def __init__(self, model: _Optional[str] = ...) -> None: ...

class ListModelsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListModelsResponse(_message.Message):
    __slots__ = ("models", "default_model")
    MODELS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_MODEL_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelInfo]
    default_model: str
    def __init__(self, models: _Optional[_Iterable[_Union[ModelInfo, _Mapping]]] = ..., default_model: _Optional[str] = ...) -> None: ...

class LanguagePair(_message.Message):
    __slots__ = ("source", "target")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class ModelInfo(_message.Message):
    __slots__ = ("name", "source_language", "target_language", "d_model", "n_heads", "n_encoder_layers", "n_decoder_layers", "vocab_size", "max_input_tokens", "max_new_tokens", "max_beam_size", "max_batch_texts", "bundle_sha256", "quantization", "version", "max_input_chars", "max_segments", "languages", "is_default", "serving", "formality", "registers")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TARGET_LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    D_MODEL_FIELD_NUMBER: _ClassVar[int]
    N_HEADS_FIELD_NUMBER: _ClassVar[int]
    N_ENCODER_LAYERS_FIELD_NUMBER: _ClassVar[int]
    N_DECODER_LAYERS_FIELD_NUMBER: _ClassVar[int]
    VOCAB_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_NEW_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_BEAM_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_TEXTS_FIELD_NUMBER: _ClassVar[int]
    BUNDLE_SHA256_FIELD_NUMBER: _ClassVar[int]
    QUANTIZATION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_INPUT_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    SERVING_FIELD_NUMBER: _ClassVar[int]
    FORMALITY_FIELD_NUMBER: _ClassVar[int]
    REGISTERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    source_language: str
    target_language: str
    d_model: int
    n_heads: int
    n_encoder_layers: int
    n_decoder_layers: int
    vocab_size: int
    max_input_tokens: int
    max_new_tokens: int
    max_beam_size: int
    max_batch_texts: int
    bundle_sha256: str
    quantization: str
    version: str
    max_input_chars: int
    max_segments: int
    languages: _containers.RepeatedCompositeFieldContainer[LanguagePair]
    is_default: bool
    serving: bool
    formality: bool
    registers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., source_language: _Optional[str] = ..., target_language: _Optional[str] = ..., d_model: _Optional[int] = ..., n_heads: _Optional[int] = ..., n_encoder_layers: _Optional[int] = ..., n_decoder_layers: _Optional[int] = ..., vocab_size: _Optional[int] = ..., max_input_tokens: _Optional[int] = ..., max_new_tokens: _Optional[int] = ..., max_beam_size: _Optional[int] = ..., max_batch_texts: _Optional[int] = ..., bundle_sha256: _Optional[str] = ..., quantization: _Optional[str] = ..., version: _Optional[str] = ..., max_input_chars: _Optional[int] = ..., max_segments: _Optional[int] = ..., languages: _Optional[_Iterable[_Union[LanguagePair, _Mapping]]] = ..., is_default: _Optional[bool] = ..., serving: _Optional[bool] = ..., formality: _Optional[bool] = ..., registers: _Optional[_Iterable[str]] = ...) -> None: ...
