"""A stream sends each segment as the verifier will leave it (service/pipeline/stream.py,
text/verify.streamable): a run of spaces its source lacks never goes out, its last spaces wait for a
word, and the deltas join to the unary call's text with nothing flagged for the spaces. A segment
none of whose text went out before it finished (behind the head) is repaired as a unary call
repairs it.

The engine is a fake that decodes by a table of token deltas: a tiny model cannot be made to write a
double space on purpose."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from pipeline_harness import streamed

from traductor.engine.request import FinishEvent, FinishReason, Timings, TokenEvent
from traductor.options import DecodingOptions, Limits
from traductor.service import pipeline
from traductor.text import TextLimits

OPTIONS = DecodingOptions(source_language="en", target_language="es")


class DeltaEngine:
    """Decodes each source into the token deltas of `table`; the segments' tokens interleave, the
    first segment's last, so that the second finishes while behind the head."""

    def __init__(self, table: dict[str, list[str]]):
        self.table = table
        self.limits, self.text_limits = Limits(), TextLimits()
        self.language, self.memory, self.target = "en", {}, "es"
        self.tokenizer = SimpleNamespace(controls=(), placeholder_ids=())
        self.metrics = SimpleNamespace(observe_verdict=lambda repaired, failed: None)
        self.sources: list[str] = []

    def rewritten(self, register: str) -> bool:
        return False  # no register by a rewrite (service/pipeline/register.py)

    def encode(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str]]:
        self.sources.append(text)
        return [len(self.sources) - 1, 7, 0], []

    async def generate_many(self, inputs, ids, timeout=None, stream=True):
        group = [self.sources[i[0][0]] for i in inputs]
        for j in reversed(range(len(group))):
            deltas = self.table[group[j]]
            for k, delta in enumerate(deltas):
                yield j, TokenEvent(k, k + 1, delta, -0.1)
            text = "".join(deltas)
            yield j, FinishEvent(FinishReason.EOS, text, list(range(len(deltas))), [-0.1] * len(deltas), 3, Timings())


TABLE = {
    "Save the file.": ["Guardar", "  ", "el", " ", " archivo", "."],
    "Open it.": [" Abrir", "lo", "  ", "ya", "."],  # a leading space too: the edges check repairs it
}


def test_no_double_space_goes_out_and_the_stream_ends_with_the_unary_text():
    engine = DeltaEngine(TABLE)
    deltas, done = streamed(engine, "Save the file.", OPTIONS)
    sent = "".join(deltas) + done.final_delta
    assert "  " not in "".join(deltas) and sent == "Guardar el archivo." == done.text
    assert all("doublespacing" not in s.failed_checks for s in done.segments)
    unary = asyncio.run(pipeline.translate(DeltaEngine(TABLE), "Save the file.", OPTIONS, "r"))
    assert unary.text == sent


def test_a_segment_finished_behind_the_head_is_repaired_whole():
    engine = DeltaEngine(TABLE)
    deltas, done = streamed(engine, "Save the file. Open it.", OPTIONS)
    sent = "".join(deltas) + done.final_delta
    assert sent == done.text == "Guardar el archivo. Abrirlo ya."
    assert [list(s.failed_checks) for s in done.segments] == [[], []]
