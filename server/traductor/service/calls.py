"""The Translator calls in progress, counted for the drain (running.Service.drain waits for them)."""

from __future__ import annotations

import asyncio

import grpc

from traductor_client.v1 import translator_pb2

SERVICE_NAME = translator_pb2.DESCRIPTOR.services_by_name["Translator"].full_name


class CallsInFlight(grpc.aio.ServerInterceptor):
    """Counts the Translator calls from the moment gRPC hands one to the server until its task ends
    (whatever ends it), so that the drain waits for these and for nothing else: gRPC's own stop
    also waits for every connection to close, and an idle one (a balancer's, a client that ignores
    GOAWAY) would hold it for the whole grace period. Health and reflection calls are not counted."""

    def __init__(self) -> None:
        self.count = 0
        self.idle = asyncio.Event()
        self.idle.set()

    async def intercept_service(self, continuation, details):
        if details.method.startswith(f"/{SERVICE_NAME}/"):
            self.count += 1
            self.idle.clear()
            asyncio.current_task().add_done_callback(self._ended)
        return await continuation(details)

    def _ended(self, _task) -> None:
        self.count -= 1
        if self.count == 0:
            self.idle.set()
