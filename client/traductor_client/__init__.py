"""Client for the traductor translation service: library, CLI and load generator.

    from traductor_client import TranslatorClient
    with TranslatorClient("localhost:50051") as client:
        print(client.translate("Permission denied").text)

Depends on grpcio and protobuf only; the load generator's optional plot needs matplotlib.
"""

from traductor_client._base import DEFAULT_TARGET, DEFAULT_TIMEOUT, __version__
from traductor_client.async_client import AsyncTranslatorClient
from traductor_client.errors import (
    Cancelled,
    DeadlineExceeded,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    TranslatorError,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    Unknown,
)
from traductor_client.results import ModelInfo, StreamEvent, StreamFinal, StreamToken, Timings, Translation, Usage
from traductor_client.retry import NO_RETRY, RetryPolicy
from traductor_client.sync_client import TranslatorClient

__all__ = [
    "AsyncTranslatorClient",
    "Cancelled",
    "DEFAULT_TARGET",
    "DEFAULT_TIMEOUT",
    "DeadlineExceeded",
    "FailedPrecondition",
    "Internal",
    "InvalidArgument",
    "ModelInfo",
    "NO_RETRY",
    "NotFound",
    "PermissionDenied",
    "ResourceExhausted",
    "RetryPolicy",
    "StreamEvent",
    "StreamFinal",
    "StreamToken",
    "Timings",
    "Translation",
    "TranslatorClient",
    "TranslatorError",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "Unknown",
    "Usage",
    "__version__",
]
