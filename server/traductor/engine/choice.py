"""Where a step's tokens are chosen: on the host, or on the device where the runner's logits are.

    HOST                  numpy logits (B, V) in host memory: decoding.py, the ONNX runner's
                          way and the PyTorch runner's with device_choice=False
    runner.choice         a runner's own chooser, for logits it keeps where it made them
                          (torch_choice.TorchChoice: torch ops on the PyTorch runner's device)

Both answer the same two questions the same way: `plain` -> (token, log p) of each plain request,
`beams` -> each beam request's step (decoding.choose_beams's tuple). Both apply every rule
through the same functions (decoding.constrain_plain and decoding.beam_rules, over
model/constraints.py and model/generation.py): only the arrays those write into differ. The scheduler takes the runner's
chooser when it has one (`chooser`), and knows nothing else about where the logits are.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..model.constraints import Constraints
from ..model.generation import GenerationConfig
from . import decoding
from .request import Request


class Choice(Protocol):
    def plain(
        self,
        plain: list[Request],
        logits: Any,
        n_rows: int,
        constraints: Constraints,
        generation: GenerationConfig | None,
    ) -> list[tuple[int, float]]:
        """(token, log p) of each plain request's next token; `logits` may be masked in place."""
        ...

    def beams(
        self,
        requests: list[Request],
        logits: Any,
        constraints: Constraints,
        generation: GenerationConfig | None,
        pad_id: int,
    ) -> list[tuple]:
        """Each beam request's step, as decoding.choose_beams returns it (its state may move, as there)."""
        ...


class HostChoice:
    """The host's choice over numpy logits (decoding.py)."""

    def plain(self, plain, logits, n_rows, constraints, generation) -> list[tuple[int, float]]:
        return decoding.choose_plain(plain, logits, n_rows, constraints, generation)

    def beams(self, requests, logits, constraints, generation, pad_id) -> list[tuple]:
        return decoding.choose_beams(requests, logits, constraints, generation, pad_id)


HOST = HostChoice()


def chooser(runner: Any) -> Choice:
    """The runner's chooser (its `choice`), or the host's when it has none."""
    return getattr(runner, "choice", None) or HOST
