"""What the tests of the text pipeline over a fake engine share (tests/service/test_stream_spaces.py,
test_register_rewrite.py): a text streamed through `pipeline.prepare` and `pipeline.stream`."""

from __future__ import annotations

import asyncio

from traductor.engine.request import FinishEvent, TokenEvent
from traductor.options import DecodingOptions
from traductor.service import pipeline


def streamed(engine, text: str, options: DecodingOptions) -> tuple[list[str], FinishEvent]:
    """Each token event's text delta, and the text's finish event."""

    async def run():
        prepared = pipeline.prepare(engine, text, options, "text", None)
        deltas, done = [], None
        async for event in pipeline.stream(engine, prepared, "r"):
            if isinstance(event, TokenEvent):
                deltas.append(event.text_delta)
            else:
                done = event
        return deltas, done

    return asyncio.run(run())
