"""Beam requests' bookkeeping: which beam search a request runs, and when its hypothesis is final.

    start(n_rows, eos_id, generation)     the project's beam search (request.BeamState), or
                                          transformers' (beam_transformers.py) for a bundle whose
                                          generation.beam is "transformers"
    advance(req, choice, ...)             a step's choice (decoding.choose_beams, or the device's)
                                          applied to the beam state; the hypothesis (tokens,
                                          log-probabilities, ended at EOS) once it is final
    others(req, eos_id, pad_id)           the final search's other hypotheses, best first (the
                                          caller's `alternatives`)

It owns the difference between the two beam searches, so that the scheduler handles a beam
request one way. It does not know rows, the cache or the model (the scheduler reorders a beam's
rows to the source beams a choice names) nor events (the scheduler emits the hypothesis).
"""

from __future__ import annotations

import numpy as np

from ..model.generation import GenerationConfig
from . import decoding, selection
from .beam_transformers import TransformersBeam
from .request import BeamState, Request


def start(n_rows: int, eos_id: int, generation: GenerationConfig | None) -> BeamState | TransformersBeam:
    """A new request's beam state (`n_rows` beams)."""
    if generation is not None and generation.beam == "transformers":
        return TransformersBeam(n_rows, eos_id, generation)
    return BeamState.start(n_rows)


def advance(req: Request, choice: tuple, eos_id: int, pad_id: int) -> tuple[list[int], list[float], bool] | None:
    """Apply `choice` to the request's beam state: its best hypothesis (tokens, log-probabilities,
    ended at EOS) once the search is over, else None."""
    beam = req.state.beam
    if isinstance(beam, TransformersBeam):  # it moved its beams when it chose them
        return beam.best() if beam.done else None
    source, token = choice[-2:]
    decoding.advance_beam(beam, choice[0], source, token, eos_id)
    if not beam.finished.all() and beam.prefixes.shape[1] < req.options.max_new_tokens:
        return None
    return decoding.best_hypothesis(beam, eos_id, pad_id)


def others(req: Request, eos_id: int, pad_id: int) -> list[list[int]]:
    """The tokens (EOS and PAD cut) of every hypothesis of the final search but the best, best
    first: the project's beams ranked as `best_hypothesis` ranks them (ties by beam index), or
    transformers' finished set in its order. Beams that never grew (score -inf) are left out."""
    beam = req.state.beam
    if isinstance(beam, TransformersBeam):
        return [_cut(tokens, eos_id, pad_id) for tokens, _ in beam.finished[1:] if tokens]
    order = selection.ranked_beams(beam.scores, beam.lengths)
    return [_cut(beam.prefixes[k].tolist(), eos_id, pad_id) for k in order[1:] if np.isfinite(beam.scores[k])]


def _cut(tokens: list[int], eos_id: int, pad_id: int) -> list[int]:
    for end in (eos_id, pad_id):
        if end in tokens:
            tokens = tokens[: tokens.index(end)]
    return tokens
