"""Offline translation with the serving engine (`traductor translate`, `evaluate`, the export's
parity check): the serving scheduler, driven synchronously until every request is done, over the
bundle's ONNX graphs or, with `--device`, a PyTorch runner of the same model (torch_runner.py).

Because it is the same scheduler the server runs, every offline figure (BLEU, parity) is a
figure of the code that serves.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import TranslationError
from ..model.tokenizer import clip_source
from ..options import DecodingOptions, Limits, resolve
from .bundle import Bundle, load_bundle
from .confidence import bundle_calibration
from .request import FinishEvent, FinishReason, Request
from .runner import ModelRunner
from .runner_protocol import Runner
from .scheduler import Scheduler


def drive(scheduler: Scheduler, work: list[tuple[list[int], list[str], DecodingOptions]]) -> list[FinishEvent]:
    """Submit (source ids, placeholder values, resolved options) requests, step the scheduler until
    all are done, return their FinishEvents in order (the offline loop: translate, parity, bench)."""
    results: list[FinishEvent | None] = [None] * len(work)
    for i, (source, values, options) in enumerate(work):

        def sink(event, i=i):
            if isinstance(event, FinishEvent):
                results[i] = event

        scheduler.submit(Request(str(i), source, values, options, sink, stream=False))
    while scheduler.has_work():
        scheduler.step()
    return results  # type: ignore[return-value]


class OnnxTranslator:
    def __init__(self, bundle: Bundle, threads: int = 0, max_rows: int = 64, runner: Runner | None = None):
        """The bundle's graphs on ONNX Runtime, or `runner` (a PyTorch runner of its model)."""
        self.bundle = bundle
        self.tokenizer = bundle.tokenizer()
        self.runner = runner or ModelRunner(bundle, threads=threads, max_rows=max_rows)
        self.max_rows = max_rows
        self.limits = Limits(max_input_tokens=bundle.max_len, max_new_tokens=bundle.max_len - 1, max_beam_size=max_rows)

    @property
    def source_language(self) -> str:
        """The bundle's (its sentences are split by its rules)."""
        return self.bundle.config.languages.source

    @property
    def target(self) -> str:
        """The bundle's target language (a multilingual model's calls name theirs: `target_language`)."""
        return self.bundle.config.languages.target

    @classmethod
    def load(cls, path: Path | str, threads: int = 0, max_rows: int = 64) -> "OnnxTranslator":
        return cls(load_bundle(path), threads=threads, max_rows=max_rows)

    def generate(
        self,
        sources: list[list[int]],
        options: DecodingOptions,
        batch_size: int = 32,
        values: list[list[str]] | None = None,
    ) -> list[FinishEvent]:
        """Decode token-id sources (EOS included) with at most `batch_size` rows at once."""
        rows = max(1, min(batch_size, self.max_rows))
        if options.beam_size > rows:
            rows = options.beam_size
        calibration = bundle_calibration(self.bundle.config)
        scheduler = Scheduler(self.runner, self.tokenizer, rows, len(sources) + 1, calibration=calibration)
        work = [
            (list(src), values[i] if values else [], resolve(options, len(src), self.limits))
            for i, src in enumerate(sources)
        ]
        results = drive(scheduler, work)
        for event in results:
            if event.reason is FinishReason.ERROR:
                raise TranslationError(f"translation failed: {event.error}") from event.error
        return results  # type: ignore[return-value]

    def translate(
        self,
        texts: list[str],
        beam_size: int = 1,
        max_new_tokens: int = 0,
        batch_size: int = 32,
        target_language: str = "",
        source_language: str = "",
        register: str = "",
    ) -> list[str]:
        encoded = [self.tokenizer.encode(t, target_language or None, source_language or None, register) for t in texts]
        limit = self.bundle.max_len
        sources = [clip_source(ids, limit) for ids, _ in encoded]
        options = DecodingOptions(
            max_new_tokens=max_new_tokens,
            beam_size=beam_size,
            target_language=target_language,
            source_language=source_language,
        )
        events = self.generate(sources, options, batch_size, [v for _, v in encoded])
        return [e.text for e in events]
