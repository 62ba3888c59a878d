"""Data-parallel training on one machine: `traductor train --workers N`.

On a small CPU, one process with two threads is barely faster than one thread (the matrices of a
small Transformer are too small to split well), while two processes with one thread each do
about twice the work (roughly measured: docs/model.md). With --workers N, N processes each train
the same model on their own batches and average their gradients after every backward pass
(PyTorch's DistributedDataParallel over the gloo backend), so one update sees N batches.

    worker r   takes batches r, r+N, r+2N, ... of each epoch (the same shuffled list in all)
    worker 0   the leader: trains the tokenizer, evaluates, saves, draws the progress bar
    stopping   every step the workers agree (all_reduce MAX) on whether any of them is done

What this module knows: the device (`resolve_device`), starting the workers (`spawn`), the
rendezvous (a file in the output directory), and the few collective operations the loop needs
(`Group`). What it does not know: the model, batches, losses or checkpoints; train.py's loop
runs unchanged in every worker.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from ..errors import CommandError


def resolve_device(name: str) -> torch.device:
    """The --device value as a torch device, refused early (a CommandError) if absent."""
    try:
        device = torch.device(name)
    except RuntimeError:
        raise CommandError(f"--device {name!r} is not a device name (cpu, cuda, cuda:0, ...)") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise CommandError(f"--device {name}: this torch has no usable CUDA GPU (torch {torch.__version__})")
    if device.type not in ("cpu", "cuda"):
        raise CommandError(f"--device {name}: only cpu and cuda are supported")
    return device


@dataclass(frozen=True)
class Group:
    """This process's place among the workers; with world == 1 every method is a no-op."""

    rank: int = 0
    world: int = 1

    @property
    def leader(self) -> bool:
        return self.rank == 0

    def threads(self, asked: int) -> int:
        """Threads per worker: --threads if given, else the machine's cores shared among the workers."""
        return asked or max(1, (os.cpu_count() or 1) // self.world)

    def any(self, flag: bool) -> bool:
        """True on every worker if it is true on any (so that all stop at the same step)."""
        if self.world == 1:
            return flag
        t = torch.tensor([int(flag)])
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return bool(t.item())

    def barrier(self) -> None:
        if self.world > 1:
            dist.barrier()

    def wrap(self, model: torch.nn.Module) -> torch.nn.Module:
        """The module to train: the model itself, or a DDP wrapper that averages gradients."""
        if self.world == 1:
            return model
        return torch.nn.parallel.DistributedDataParallel(model)


def _worker(rank: int, world: int, rendezvous: str, fn, args: tuple, results) -> None:
    dist.init_process_group("gloo", init_method=f"file://{rendezvous}", rank=rank, world_size=world)
    try:
        result = fn(*args, group=Group(rank, world))
        if rank == 0:
            results.put(result)
    finally:
        dist.destroy_process_group()


def spawn(fn, world: int, out_dir: Path, *args) -> dict:
    """Run fn(*args, group=Group(rank, world)) in `world` processes; rank 0's return value.

    fn must be a module-level function (it is pickled by name). If any worker fails, the others
    are stopped and the failure is raised here (torch.multiprocessing's ProcessRaisedException).
    """
    rendezvous = Path(out_dir) / ".rendezvous"
    rendezvous.unlink(missing_ok=True)
    results = mp.get_context("spawn").SimpleQueue()
    try:
        mp.spawn(_worker, args=(world, str(rendezvous.resolve()), fn, args, results), nprocs=world, join=True)
    finally:
        rendezvous.unlink(missing_ok=True)
    return results.get()
