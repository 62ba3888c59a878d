"""`traductor serve`: flags and environment variables -> Settings -> server.serve()."""

from __future__ import annotations

import asyncio
import logging

from .settings import Settings


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="serve a bundle over gRPC (Prometheus metrics on --metrics-port)",
        description="Every flag also reads TRADUCTOR_<FLAG> from the environment.",
    )
    Settings.add_arguments(p)
    p.set_defaults(func=run)


def run(args) -> None:
    from .server import serve

    settings = Settings.from_args(args)
    if settings.device:  # torch and the device checked here, so that a missing one is one line at start
        from ..engine.torch_weights import check_device

        check_device(settings.device, settings.dtype)
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(settings))
