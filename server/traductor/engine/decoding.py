"""From one step's logits to each running request's next token(s): the scheduler's postprocess.

    plain requests (greedy or sampling, one row each)   one vectorised argmax over all of them;
                                                        sampled rows then draw from their own row
    beam requests (K rows each)                         log-softmax of their rows, one beam step;
                                                        requests of one search and one K together

Both apply the EOS/placeholder/loop/register rules of model/constraints.py first, then an imported model's
rules (model/generation.py: suppressed ids, forced first token, EOS forced at the limit); beam
requests of an imported model search as transformers does (beam_transformers.py). These
functions read the requests' state and return choices; the scheduler applies them (emits tokens, finishes
requests, moves rows). They know nothing of the cache, the runner or the events.

The rules are written once, here: `constrain_plain` and `beam_rules` turn each request's state into
the ids banned or forced in its rows (Constraints.banned / stop, generation.apply_rules) and write
them into the scores they are given, through `index` (numpy's own indices here; a device tensor's
for engine/torch_choice.py, which chooses on the PyTorch runner's device from the same calls).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..model.constraints import Constraints
from ..model.generation import GenerationConfig, apply_rules
from . import selection
from .beam_transformers import TransformersBeam
from .request import BeamState, Request


def host_index(ids: np.ndarray) -> np.ndarray:
    """Index arrays for numpy scores: themselves."""
    return ids


def apply_generation_rules(
    plain: list[Request],
    rows: np.ndarray,
    logits,
    config: GenerationConfig,
    eos_id: int,
    index: Callable[[np.ndarray], Any] = host_index,
) -> None:
    """An imported model's rules on the plain requests' rows of `logits`, in place."""
    if config.suppressed_ids:
        ids = np.asarray(config.suppressed_ids, dtype=np.int64)
        logits[index(rows[:, None]), index(ids[None, :])] = selection.NEG_INF  # np.ix_(rows, ids)
    for i, r in enumerate(plain):
        generated = len(r.state.tokens)
        if generated == 0 or (config.forced_eos_at_limit and generated == r.options.max_new_tokens - 1):
            row = int(rows[i])
            apply_rules(logits[row : row + 1], generated, r.options.max_new_tokens, r.forced_first, config, eos_id)


def _apply_constraints(
    constraints: Constraints, scores, rows: np.ndarray, missing, too_short, outputs, limits, registers, index
) -> None:
    """model/constraints.py's rules on `rows` of `scores` (one row per entry of the other lists), in
    place: what Constraints.apply does, through `index`. The loop rule's rows keep only EOS (or
    the placeholders they owe); every other banned id goes to -inf."""
    stopping = constraints.stopping_rows(outputs, limits, too_short)
    banned_rows, banned_cols = constraints.banned(missing, too_short, registers, outputs)
    if banned_rows.size:
        scores[index(rows[banned_rows]), index(banned_cols)] = selection.NEG_INF
    constraints.stop(scores, index(rows[np.asarray(stopping, dtype=np.int64)]), [missing[i] for i in stopping])


def constrain_plain(
    plain: list[Request],
    rows: np.ndarray,
    scores,
    constraints: Constraints,
    generation: GenerationConfig | None,
    index: Callable[[np.ndarray], Any] = host_index,
) -> None:
    """Every rule on the plain requests' rows `rows` of `scores`, in place (banned ids to -inf, an
    imported model's forced ids to 0): the EOS, placeholder, loop and register rules, then the
    model's. `scores` is numpy, or a tensor whose indices `index` makes from numpy int arrays."""
    missing = [r.state.missing for r in plain]
    too_short = [len(r.state.tokens) < r.options.min_new_tokens for r in plain]
    outputs, limits = [r.state.tokens for r in plain], [r.state.repeat_limit for r in plain]
    registers = [r.state.register for r in plain]
    _apply_constraints(constraints, scores, rows, missing, too_short, outputs, limits, registers, index)
    if generation is not None:
        apply_generation_rules(plain, rows, scores, generation, constraints.eos_id, index)


def choose_plain(
    plain: list[Request],
    logits: np.ndarray,
    n_rows: int,
    constraints: Constraints,
    generation: GenerationConfig | None = None,
) -> list[tuple[int, float]]:
    """(token, log p) for each plain request. Masks `logits` in place (the step's buffer, ours
    until the next step). Every token's log p is kept (the segment's confidence reads them).

    log p is under the unconstrained softmax, as the reference reports it: each row's softmax
    normalizer is taken before the masking, and the chosen token's logit after it, since masking
    only writes -inf and a chosen token is never masked; the rows whose chosen logit a rule may
    rewrite (an imported model's forced tokens score 0) or that sample are copied first. No copy
    of the other rows: at a 256k-token vocabulary a row is 1 MB (docs/big-models.md)."""
    rows = np.fromiter((r.state.rows[0] for r in plain), dtype=np.int64, count=len(plain))
    m, total = selection.row_normalizers(logits, rows)
    first = logits[rows, 0]  # a row masked whole gives argmax 0: its original logit
    kept = [i for i, r in enumerate(plain) if r.options.sampling or _forced(r, generation)]
    originals = logits[rows[kept]] if kept else None  # a copy
    constrain_plain(plain, rows, logits, constraints, generation)
    tokens = logits[:n_rows].argmax(axis=-1)[rows]
    for i, r in enumerate(plain):
        if r.options.sampling:
            o = r.options
            tokens[i] = selection.sample(logits[rows[i]], o.temperature, o.top_k, o.top_p, r.state.rng)
    chosen = logits[rows, tokens]
    chosen = np.where(chosen == selection.NEG_INF, first, chosen)
    for j, i in enumerate(kept):
        chosen[i] = originals[j, tokens[i]]
    return list(zip(tokens.tolist(), selection.token_logprobs_from(chosen, m, total).tolist()))


def _forced(r: Request, generation: GenerationConfig | None) -> bool:
    """Whether an imported model's rules may force this request's next token (apply_generation_rules)."""
    if generation is None:
        return False
    generated = len(r.state.tokens)
    return generated == 0 or (generation.forced_eos_at_limit and generated == r.options.max_new_tokens - 1)


def beam_rules(
    requests: list[Request],
    logp,
    constraints: Constraints,
    generation: GenerationConfig | None,
    index: Callable[[np.ndarray], Any] = host_index,
) -> None:
    """Every rule on beam requests' scores, in place: (sum of K, V), each request's K rows after the
    one before's, all of one search; log-probabilities, or the project's search's logits (its
    rules only ban, to -inf, or keep a score, so they mean the same on either). The EOS,
    placeholder, loop and register rules per beam (a finished beam of the project's search runs
    PAD and does not loop), then, in transformers' search, the imported model's. numpy, or a
    tensor (`index`)."""
    missing, too_short, running, limits, registers = [], [], [], [], []
    for req in requests:
        beam, K = req.state.beam, req.n_rows
        prefixes = beam.prefixes.tolist()
        missing += [constraints.missing(req.state.required, prefix) for prefix in prefixes]
        too_short += [beam.prefixes.shape[1] < req.options.min_new_tokens] * K
        if isinstance(beam, TransformersBeam):
            running += prefixes
        else:
            running += [[] if done else p for p, done in zip(prefixes, beam.finished.tolist())]
        limits += [req.state.repeat_limit] * K
        registers += [req.state.register] * K
    rows = np.arange(len(missing))
    _apply_constraints(constraints, logp, rows, missing, too_short, running, limits, registers, index)
    at = 0
    for req in requests:
        if isinstance(req.state.beam, TransformersBeam):
            generated, limit = req.state.beam.prefixes.shape[1], req.options.max_new_tokens
            mine = logp[at : at + req.n_rows]
            apply_rules(mine, generated, limit, req.forced_first, generation, constraints.eos_id)
        at += req.n_rows


def choose_beams(
    requests: list[Request],
    logits: np.ndarray,
    constraints: Constraints,
    generation: GenerationConfig | None,
    pad_id: int,
) -> list[tuple]:
    """One beam step for every beam request: (new scores (K,), source beam (K,), token (K,)) for
    the project's search, (source beam (K,), token (K,)) for transformers'. Requests of one search
    and one K are chosen together: their rows' softmax normalizers, the rules and (the project's
    search) the K best of each request's K x V sums in one go, each along the request's own rows,
    so that no request's choice depends on the others."""
    groups: dict[tuple[bool, int], list[int]] = {}
    for j, req in enumerate(requests):
        groups.setdefault((isinstance(req.state.beam, TransformersBeam), req.n_rows), []).append(j)
    out: list[tuple] = [()] * len(requests)
    for (transformers, K), members in groups.items():
        group = [requests[j] for j in members]
        rows = np.fromiter((row for r in group for row in r.state.rows), dtype=np.int64, count=K * len(group))
        if transformers:
            logp = selection.log_softmax(logits[rows])  # (n K, V)
            beam_rules(group, logp, constraints, generation)
            for i, (j, req) in enumerate(zip(members, group)):
                mine = logp[i * K : (i + 1) * K]
                if generation.renormalize:
                    mine = selection.log_softmax(mine)
                beam: TransformersBeam = req.state.beam
                out[j] = beam.step(mine, at_limit=beam.prefixes.shape[1] + 1 >= req.options.max_new_tokens)
            continue
        # the project's search: the rules ban into the logits themselves (-inf), after the softmax's
        # normalizers are taken; beam_step makes log p only where it needs them
        x = logits[rows]  # (n K, V), a copy
        m, lse = selection.log_normalizers(x)
        beam_rules(group, x, constraints, None)
        scores = np.stack([r.state.beam.scores for r in group])
        finished = np.stack([r.state.beam.finished for r in group])
        n = len(group)
        chosen = selection.beam_step(
            x.reshape(n, K, -1), m.reshape(n, K, 1), lse.reshape(n, K, 1), scores, finished, pad_id, K
        )
        for i, j in enumerate(members):
            out[j] = tuple(part[i] for part in chosen)
    return out


def advance_beam(beam: BeamState, scores: np.ndarray, source: np.ndarray, token: np.ndarray, eos_id: int) -> None:
    """Move the beams to the chosen hypotheses (the caller reorders the cache rows to match)."""
    was_finished = beam.finished[source]
    beam.logprobs = np.concatenate([beam.logprobs[source], (scores - beam.scores[source])[:, None]], axis=1)
    beam.scores = scores
    beam.lengths = beam.lengths[source] + (~was_finished)
    beam.finished = was_finished | (token == eos_id)
    beam.prefixes = np.concatenate([beam.prefixes[source], token[:, None]], axis=1)


def best_hypothesis(beam: BeamState, eos_id: int, pad_id: int) -> tuple[list[int], list[float], bool]:
    """The best beam's tokens (EOS and PAD cut), their log p, and whether it ended with EOS."""
    k = selection.best_beam(beam.scores, beam.lengths)
    best = beam.prefixes[k].tolist()
    ended = eos_id in best
    tokens = best[: best.index(eos_id)] if ended else best
    if pad_id in tokens:
        tokens = tokens[: tokens.index(pad_id)]
    return tokens, beam.logprobs[k].tolist()[: len(tokens)], ended
