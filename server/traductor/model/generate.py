"""Reference decoding in PyTorch: greedy and beam search, with and without the KV cache.

This is the yardstick the ONNX graphs and the serving engine are checked against, so it is
written for clarity. The search (greedy or beam) only sees a *stepper* that turns the
prefixes decoded so far into next-token log-probabilities:

    NoCacheStepper  re-runs the decoder over the whole prefix (the textbook loop of model.md)
    CachedStepper   feeds only the newest token and keeps past keys/values per layer

Beam search reorders the stepper's state (the cache) by beam index after every step.
"""

from __future__ import annotations

from collections import Counter

import torch
import torch.nn.functional as F

from .constraints import Constraints
from .generation import GenerationConfig, apply_rules
from .transformer import Transformer

NEG_INF = float("-inf")


def pad_batch(seqs: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad id lists -> ids (B, n) and pad mask (B, n), True at padding."""
    n = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), n), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return ids, ids == pad_id


class NoCacheStepper:
    def __init__(self, model: Transformer, src: torch.Tensor, src_pad: torch.Tensor):
        self.model, self.src_pad = model, src_pad
        self.memory = model.encode(src, src_pad)

    def step(self, prefixes: torch.Tensor) -> torch.Tensor:
        """prefixes (B, t) -> log-probabilities of the next token (B, V)."""
        logits = self.model.decode(prefixes, self.memory, self.src_pad)[:, -1]
        return F.log_softmax(logits, dim=-1)

    def reorder(self, index: torch.Tensor) -> None:
        self.memory, self.src_pad = self.memory[index], self.src_pad[index]


class CachedStepper:
    def __init__(self, model: Transformer, src: torch.Tensor, src_pad: torch.Tensor):
        self.model, self.src_pad = model, src_pad
        self.cross = model.cross_kv(model.encode(src, src_pad))
        self.cache = model.empty_cache(src.shape[0])

    def step(self, prefixes: torch.Tensor) -> torch.Tensor:
        B, t = prefixes.shape
        position = torch.full((B,), t - 1, dtype=torch.long)
        logits, self.cache = self.model.decode_step(prefixes[:, -1:], position, self.cache, self.cross, self.src_pad)
        return F.log_softmax(logits, dim=-1)

    def reorder(self, index: torch.Tensor) -> None:
        self.cache = [(k[index], v[index]) for k, v in self.cache]
        self.cross = [(k[index], v[index]) for k, v in self.cross]
        self.src_pad = self.src_pad[index]


def _constrain(
    logp: torch.Tensor,
    constraints: Constraints,
    required: list[Counter],
    limits: list[int],
    registers: list[int | None],
    prefixes: torch.Tensor,
    done: torch.Tensor,
    generated: int,
    min_new_tokens: int,
    rules: tuple[GenerationConfig, int, int | None] | None = None,
) -> torch.Tensor:
    """The step's log-probabilities with what each row may not produce next set to -inf (a copy);
    the rules (EOS, placeholders, loops and registers; `limits` are the rows' repeat limits,
    `registers` their register tags, `done` the rows already finished) are those of
    model/constraints.py, shared with the engine, then an imported model's (model/generation.py;
    `rules` = (config, length limit, forced first token))."""
    logp = logp.clone()
    outputs = [row[1:] for row in prefixes.tolist()]  # BOS cut
    missing = [constraints.missing(need, row) for need, row in zip(required, outputs)]
    too_short = [generated < min_new_tokens] * len(missing)
    running = [[] if finished else row for row, finished in zip(outputs, done.tolist())]  # PAD runs do not loop
    stopping = constraints.stopping_rows(running, limits, too_short)
    rows, cols = constraints.banned(missing, too_short, registers, running)
    if rows.size:
        logp[torch.from_numpy(rows), torch.from_numpy(cols)] = NEG_INF
    constraints.stop(logp, torch.tensor(stopping, dtype=torch.long), [missing[i] for i in stopping])
    if rules is not None:
        config, limit, forced_first = rules
        apply_rules(logp, generated, limit, forced_first, config, constraints.eos_id)
    return logp


@torch.no_grad()
def greedy(
    model: Transformer,
    sources: list[list[int]],
    max_new_tokens: int,
    min_new_tokens: int = 0,
    use_cache: bool = True,
    placeholder_ids: frozenset[int] = frozenset(),
    generation: GenerationConfig | None = None,
    forced_first: int | None = None,
    stop_loops: bool = True,
    register_bans: dict | None = None,
) -> list[list[int]]:
    """Greedy decoding of a batch; returns each sequence's new tokens (EOS included if produced).

    With `placeholder_ids` (the tokenizer's <phK> ids), EOS waits for the source's placeholders;
    an output that loops ends unless `stop_loops` is false; with `register_bans` (the tokenizer's),
    a source with a register tag never gets the other register's words (model/constraints.py); with
    `generation`, an imported model's rules apply (and `forced_first` starts every output)."""
    rules = (generation, max_new_tokens, forced_first) if generation is not None else None
    cfg = model.cfg
    constraints = Constraints(placeholder_ids, cfg.eos_id, register_bans)
    required = [constraints.required(s) for s in sources]
    limits = [constraints.repeat_limit(s) if stop_loops else 0 for s in sources]
    registers = [constraints.register(s) for s in sources]
    src, src_pad = pad_batch(sources, cfg.pad_id)
    stepper = (CachedStepper if use_cache else NoCacheStepper)(model, src, src_pad)
    B = len(sources)
    prefixes = torch.full((B, 1), cfg.bos_id, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    for generated in range(max_new_tokens):
        step = stepper.step(prefixes)
        logp = _constrain(
            step, constraints, required, limits, registers, prefixes, done, generated, min_new_tokens, rules
        )
        nxt = logp.argmax(dim=-1)
        nxt = torch.where(done, torch.full_like(nxt, cfg.pad_id), nxt)
        prefixes = torch.cat([prefixes, nxt[:, None]], dim=1)
        done |= nxt == cfg.eos_id
        if done.all():
            break
    return [_strip(row[1:].tolist(), cfg) for row in prefixes]


def _strip(tokens: list[int], cfg) -> list[int]:
    """Cut after the first EOS; drop padding."""
    out = []
    for t in tokens:
        if t == cfg.pad_id:
            break
        out.append(t)
        if t == cfg.eos_id:
            break
    return out


@torch.no_grad()
def beam_search(
    model: Transformer,
    sources: list[list[int]],
    beam_size: int,
    max_new_tokens: int,
    min_new_tokens: int = 0,
    use_cache: bool = True,
    length_penalty: float = 1.0,
    placeholder_ids: frozenset[int] = frozenset(),
    stop_loops: bool = True,
    register_bans: dict | None = None,
) -> list[list[int]]:
    """Beam search; each sentence's best hypothesis by sum(log p) / length**length_penalty
    (the rules as in `greedy`).

    Beams live in rows b * K + k. A finished beam can only be extended by PAD at no cost, so it
    keeps its score and its place while the others go on.
    """
    cfg = model.cfg
    B, K = len(sources), beam_size
    expanded = [s for s in sources for _ in range(K)]
    constraints = Constraints(placeholder_ids, cfg.eos_id, register_bans)
    required = [constraints.required(s) for s in expanded]
    limits = [constraints.repeat_limit(s) if stop_loops else 0 for s in expanded]
    registers = [constraints.register(s) for s in expanded]
    src, src_pad = pad_batch(expanded, cfg.pad_id)
    stepper = (CachedStepper if use_cache else NoCacheStepper)(model, src, src_pad)
    prefixes = torch.full((B * K, 1), cfg.bos_id, dtype=torch.long)
    scores = torch.full((B, K), NEG_INF)
    scores[:, 0] = 0.0  # all beams start identical: keep one
    finished = torch.zeros(B * K, dtype=torch.bool)
    lengths = torch.zeros(B * K)
    for generated in range(max_new_tokens):
        step = stepper.step(prefixes)
        logp = _constrain(step, constraints, required, limits, registers, prefixes, finished, generated, min_new_tokens)
        V = logp.shape[-1]
        frozen = torch.full((V,), NEG_INF)
        frozen[cfg.pad_id] = 0.0
        logp = torch.where(finished[:, None], frozen, logp)
        total = (scores.view(B * K, 1) + logp).view(B, K * V)
        scores, flat = total.topk(K, dim=-1)  # (B, K)
        beam = flat // V + torch.arange(B)[:, None] * K  # source row of each new beam
        token = (flat % V).view(-1)
        beam = beam.view(-1)
        stepper.reorder(beam)
        prefixes = torch.cat([prefixes[beam], token[:, None]], dim=1)
        was_finished = finished[beam]
        lengths = lengths[beam] + (~was_finished).float()
        finished = was_finished | (token == cfg.eos_id)
        if finished.all():
            break
    normalized = scores / lengths.view(B, K).clamp(min=1) ** length_penalty
    best = normalized.argmax(dim=-1) + torch.arange(B) * K
    return [_strip(prefixes[i, 1:].tolist(), cfg) for i in best.tolist()]
