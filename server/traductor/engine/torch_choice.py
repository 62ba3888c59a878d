"""Token choice on the PyTorch runner's device: greedy, sampling and beam search as torch ops on
the logits where the runner made them, so that only the choices come back to the host.

    plain(...)    the rows' softmax normalizers, the rules, argmax (or a draw, for sampling), the
                  chosen token's log p: one (2, n) float64 copy to the host, token and log p a row
    beams(...)    the requests of one search and one K together: log-softmax, the rules, each
                  request's K best (the project's search) or 2K best (transformers') of its
                  K x V sums; the candidates of every beam request come to the host in one
                  copy, and the host's beam bookkeeping (decoding.advance_beam,
                  TransformersBeam.advance) goes on from them

The rules are not written here: decoding.constrain_plain and decoding.beam_rules apply them, the
same functions as on the host, given this module's `index` (numpy index arrays made device
tensors). What differs from the host is only the arithmetic of the choice, op for op the host's
(engine/selection.py): the same argmax (the first best), the same order of the K best (by score,
ties by the lower index: `top`), the same sampling filters, with the request's own numpy
generator drawing the same uniform number on the host. Exact equality with the host's tokens then
holds except where the host and the device round a reduction differently (docs/gpu.md, "Token
choice on the device": the conditions, and the tests that check them).

Imported by torch_runner.py only (it needs torch).
"""

from __future__ import annotations

import numpy as np
import torch

from ..model.constraints import Constraints
from ..model.generation import GenerationConfig
from . import decoding
from .beam_transformers import TransformersBeam
from .request import Request

NEG_INF = float("-inf")


def log_softmax(x: torch.Tensor) -> torch.Tensor:
    """selection.log_softmax's ops, in torch (a new tensor)."""
    shifted = x - x.max(dim=-1, keepdim=True).values
    return shifted - torch.log(torch.exp(shifted).sum(dim=-1, keepdim=True))


def top(x: torch.Tensor, k: int) -> torch.Tensor:
    """Indices of the k largest values along the last dimension of `x`, largest first, equal values
    by the lower index: numpy's argsort(-x, kind="stable")[..., :k], without sorting x. topk finds
    the k-th value; every value above it is in, and of those equal to it the lowest indices that
    fill k."""
    kth = x.topk(k, dim=-1).values[..., -1:]
    above = x > kth
    equal = x == kth
    need = k - above.sum(dim=-1, keepdim=True, dtype=torch.int32)
    take = above | (equal & (equal.cumsum(dim=-1, dtype=torch.int32) <= need))  # exactly k a row
    index = take.to(torch.float32).topk(k, dim=-1).indices.sort(dim=-1).values  # that set, by index
    order = torch.sort(x.gather(-1, index), dim=-1, descending=True, stable=True).indices
    return index.gather(-1, order)


def sample(x: torch.Tensor, temperature: float, top_k: int, top_p: float, u: float) -> torch.Tensor:
    """selection.sample's ops on one row (fp64), with its draw `u` in [0, 1) made on the host: the
    token as a 0-d tensor."""
    x = x.double() / temperature
    V = x.shape[-1]
    if 0 < top_k < V:
        x = torch.where(x < x.topk(top_k).values[-1], NEG_INF, x)
    p = torch.exp(x - x.max())
    p = p / p.sum()
    if top_p < 1.0:
        order = torch.sort(-p, stable=True).indices
        cum = torch.cumsum(p[order], 0)
        keep = torch.searchsorted(cum, cum.new_tensor([top_p])) + 1  # that many of the best
        kept = torch.where(torch.arange(V, device=x.device) < keep, p[order], 0.0)
        q = torch.zeros_like(p).scatter_(0, order, kept)
        p = q / q.sum()
    cdf = torch.cumsum(p, 0)
    token = torch.searchsorted(cdf, (u * cdf[-1]).reshape(1), right=True)
    return token.clamp_(max=V - 1)[0]


class TorchChoice:
    """choice.Choice over (B, V) logits on `device` (the runner's `choice`)."""

    def __init__(self, device: torch.device):
        self.device = device

    def index(self, ids) -> torch.Tensor:
        """numpy indices as the device's."""
        return self.tensor(np.asarray(ids, dtype=np.int64))

    def tensor(self, values: np.ndarray) -> torch.Tensor:
        """A small host array on the device (ids, a beam's scores or flags)."""
        return torch.from_numpy(np.ascontiguousarray(values)).to(self.device)

    @torch.no_grad()
    def plain(
        self,
        plain: list[Request],
        logits: torch.Tensor,
        n_rows: int,
        constraints: Constraints,
        generation: GenerationConfig | None,
    ) -> list[tuple[int, float]]:
        """decoding.choose_plain on the device: (token, log p) of each request. The rules write into
        a gathered copy of the rows; `logits` keeps the originals, which the log p reads (the
        unconstrained softmax, as on the host: a forced token's own logit, a row masked whole
        reporting token 0's)."""
        rows = self.index([r.state.rows[0] for r in plain])
        scores = logits[rows]  # (n, V), a copy
        m = scores.max(dim=-1).values
        total = torch.exp(scores - m[:, None]).sum(dim=-1)
        decoding.constrain_plain(plain, np.arange(len(plain)), scores, constraints, generation, self.index)
        tokens = scores.argmax(dim=-1)
        for i, r in enumerate(plain):
            if r.options.sampling:
                o = r.options
                tokens[i] = sample(scores[i], o.temperature, o.top_k, o.top_p, r.state.rng.random())
        logp = (logits[rows, tokens] - m) - torch.log(total)
        host = torch.stack([tokens.double(), logp.double()]).cpu().numpy()  # the step's one copy
        return list(zip(host[0].astype(np.int64).tolist(), host[1].astype(np.float32).tolist()))

    @torch.no_grad()
    def beams(
        self,
        requests: list[Request],
        logits: torch.Tensor,
        constraints: Constraints,
        generation: GenerationConfig | None,
        pad_id: int,
    ) -> list[tuple]:
        """decoding.choose_beams on the device for every beam request. Requests of one search and one K are
        chosen together (their rows stacked, the rules written in one go, the best of each
        request's K x V sums in one batched op); every candidate comes to the host in one copy."""
        V = logits.shape[-1]
        groups: dict[tuple[bool, int], list[int]] = {}
        for j, req in enumerate(requests):
            groups.setdefault((isinstance(req.state.beam, TransformersBeam), req.n_rows), []).append(j)
        found: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # request -> (scores, flat indices)
        for (transformers, K), members in groups.items():
            group = [requests[j] for j in members]
            beams = [r.state.beam for r in group]
            logp = log_softmax(logits[self.index([row for r in group for row in r.state.rows])])
            decoding.beam_rules(group, logp, constraints, generation, self.index)
            if transformers:  # TransformersBeam.step's sums, fp32
                if generation.renormalize:
                    logp = log_softmax(logp)
                scores, k = self.tensor(np.concatenate([b.scores for b in beams])), 2 * K
            else:  # selection.beam_step's: a finished beam goes on with PAD at no cost; fp64 sums
                frozen = torch.full((V,), NEG_INF, dtype=logp.dtype, device=self.device)
                frozen[pad_id] = 0.0
                logp = torch.where(self.tensor(np.concatenate([b.finished for b in beams]))[:, None], frozen, logp)
                scores, k = self.tensor(np.concatenate([b.scores for b in beams])), K
            total = (scores[:, None] + logp).reshape(len(group), K * V)
            best = top(total, k)
            chosen = total.gather(-1, best)
            for i, j in enumerate(members):
                found[j] = (chosen[i], best[i])
        parts = [torch.cat([found[j][0].double(), found[j][1].double()]) for j in range(len(requests))]
        host = torch.cat(parts).cpu().numpy()  # the step's one copy for every beam request
        out, at = [], 0
        for j, req in enumerate(requests):
            n = len(found[j][1])
            scores, flat = host[at : at + n], host[at + n : at + 2 * n].astype(np.int64)
            at += 2 * n
            beam = req.state.beam
            if isinstance(beam, TransformersBeam):
                at_limit = beam.prefixes.shape[1] + 1 >= req.options.max_new_tokens
                out.append(beam.advance(scores.astype(np.float32), flat, V, at_limit))
            else:
                out.append((scores, flat // V, flat % V))
        return out
