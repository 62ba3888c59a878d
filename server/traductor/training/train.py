"""`traductor train`: the paper's recipe on a corpus made by `traductor corpus`.

tokenizer   SentencePiece trained on the masked training pairs (skipped when resuming)
batches     pairs sorted by length and cut into batches of about `batch_tokens` tokens (batches.py)
step        teacher forcing, label-smoothed cross-entropy, Adam(0.9, 0.98, 1e-9),
            lr = lr_scale * d^-0.5 * min(step^-0.5, step * warmup^-1.5)
every N     dev loss and dev chrF/BLEU (greedy); the best model so far is saved as the
            checkpoint; train_state.pt (weights, optimizer, step) makes the run resumable (state.py)
workers     --workers N: N CPU processes, each on its own batches, gradients averaged (parallel.py)
end         history.json and training.png (train/dev loss and dev chrF against steps)
"""

from __future__ import annotations

import copy
import functools
import json
import random
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from ..errors import CommandError
from ..model import checkpoint
from ..model.tokenizer import FILENAME as TOKENIZER_FILE
from ..model.tokenizer import PAD_ID, Tokenizer
from ..model.translator import TorchTranslator
from .augment import Augmenter
from .batches import encode_pairs, make_batches, tensors
from .config import INIT_VOCABS, PRECISIONS, TrainConfig
from .corpus import CorpusError, languages, load_split
from .evaluate import score
from .parallel import Group, resolve_device, spawn
from .plots import plot
from .state import STATE_FILE, STOP_FILE, Progress, prepare_model, prepare_tokenizer, save_state


def lr_at(step: int, d_model: int, warmup: int, scale: float) -> float:
    step = max(step, 1)
    return scale * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def loss_on(model, batch, smoothing: float) -> tuple[torch.Tensor, int]:
    src, src_pad, tgt_in, tgt_pad, tgt_out = batch
    logits = model(src, src_pad, tgt_in, tgt_pad)
    loss = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        tgt_out.reshape(-1),
        ignore_index=PAD_ID,
        label_smoothing=smoothing,
        reduction="sum",
    )
    ntok = int((tgt_out != PAD_ID).sum())
    return loss, ntok


@torch.no_grad()
def dev_loss(model, data, batch_tokens: int) -> float:
    model.eval()
    total, count = 0.0, 0
    device = next(model.parameters()).device
    for idx in make_batches(data, batch_tokens, random.Random(0)):
        loss, n = loss_on(model, tensors(data, idx, device), 0.0)
        total, count = total + float(loss), count + n
    model.train()
    return total / max(count, 1)


def dev_scores(model, tokenizer, pairs) -> dict:
    """Greedy decoding runs on the CPU (the generation code is CPU-only): on a GPU run, a CPU copy."""
    model.eval()
    on_cpu = model if next(model.parameters()).device.type == "cpu" else copy.deepcopy(model).cpu()
    hyps = TorchTranslator(on_cpu, tokenizer).translate([p.source for p in pairs], batch_size=64)
    model.train()
    return score([p.source for p in pairs], hyps, [p.target for p in pairs])


@functools.cache  # asked at every update; the answer never changes in a run
def native_bf16(device_type: str) -> bool:
    """Whether the device multiplies in bfloat16 natively: a GPU, or a CPU with AVX-512 BF16 or AMX
    (torch's own probes; elsewhere its bf16 kernels emulate, far slower than fp32)."""
    if device_type != "cpu":
        return True
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, name, lambda: False)() for name in probes)


def uses_bf16(precision: str, device_type: str) -> bool:
    """The training precision (config.py: "bf16", "fp32" or "auto") on this device: autocast or not."""
    if precision not in PRECISIONS:
        raise CommandError(f"precision {precision!r}: must be one of {', '.join(PRECISIONS)}")
    return precision == "bf16" or (precision == "auto" and native_bf16(device_type))


def train_step(model, optimizer, cfg: TrainConfig, batch, step: int) -> tuple[float, int]:
    """One update at the schedule's learning rate; (label-smoothed loss per token, target tokens)."""
    for group in optimizer.param_groups:
        group["lr"] = lr_at(step, cfg.model.d_model, cfg.warmup, cfg.lr_scale)
    device_type = next(model.parameters()).device.type
    with torch.autocast(device_type, dtype=torch.bfloat16, enabled=uses_bf16(cfg.precision, device_type)):
        loss, ntok = loss_on(model, batch, cfg.label_smoothing)
    optimizer.zero_grad(set_to_none=True)
    (loss / ntok).backward()
    optimizer.step()
    return loss.item() / ntok, ntok


def evaluate_and_save(
    model, optimizer, tokenizer, cfg, out_dir: Path, dev, progress: Progress, started: float, pair: dict
) -> dict:
    """Dev loss and scores; the checkpoint if chrF improved; train_state.pt, history and plot always."""
    dev_pairs, dev_data = dev
    scores = dev_scores(model, tokenizer, dev_pairs)
    record = {
        "step": progress.step,
        "epoch": progress.epoch,
        "minutes": round((time.monotonic() - started) / 60, 2),
        "dev_loss": round(dev_loss(model, dev_data, cfg.batch_tokens), 4),
        "dev_chrf": scores["chrf"],
        "dev_bleu": scores["bleu"],
    }
    progress.history.append(record)
    if scores["chrf"] > progress.best:
        progress.best = scores["chrf"]
        extra = {"training": {**cfg.to_dict(), "step": progress.step, "dev": scores}}
        checkpoint.save(model, out_dir, out_dir / TOKENIZER_FILE, extra, pair)
    save_state(model, optimizer, out_dir, progress, started)
    plot(progress.history, out_dir / "training.png")
    return record


def train(corpus_dir: Path, out_dir: Path, cfg: TrainConfig, resume: bool = True, quiet: bool = False) -> dict:
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    device = resolve_device(cfg.device)
    bf16 = uses_bf16(cfg.precision, device.type)  # a wrong precision fails here, before any work
    if cfg.init_vocab not in INIT_VOCABS:
        raise CommandError(f"--init-vocab {cfg.init_vocab!r}: must be one of {', '.join(INIT_VOCABS)}")
    if cfg.tokenizer_from and cfg.init_from:
        raise CommandError("--tokenizer-from and --init-from: give one (--init-from brings its tokenizer)")
    if cfg.tokenizer_from and not (Path(cfg.tokenizer_from) / TOKENIZER_FILE).is_file():
        raise CommandError(f"--tokenizer-from {cfg.tokenizer_from}: no {TOKENIZER_FILE} there")
    for name in ("train.tsv", "dev.tsv"):
        if not (corpus_dir / name).is_file():
            raise CorpusError(f"{corpus_dir} has no {name}: make one with `traductor corpus --out {corpus_dir}`")
    if cfg.workers < 1 or (cfg.workers > 1 and cfg.device != "cpu"):
        raise CommandError(f"--workers {cfg.workers}: must be 1, or more on --device cpu (data-parallel CPU processes)")
    if not quiet:
        what = "bfloat16" if bf16 else "fp32"
        print(f"precision {cfg.precision}: matrix products in {what} on {device}", file=sys.stderr, flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    if cfg.workers == 1:
        return train_in_group(corpus_dir, out_dir, cfg, resume, quiet)
    return spawn(train_in_group, cfg.workers, out_dir, corpus_dir, out_dir, cfg, resume, quiet)


def train_in_group(corpus_dir: Path, out_dir: Path, cfg: TrainConfig, resume: bool, quiet: bool, group=None) -> dict:
    """One worker's run (the only one without --workers): tokenizer, model, then the loop."""
    group = group or Group()
    train_pairs, dev_pairs = load_split(corpus_dir / "train.tsv"), load_split(corpus_dir / "dev.tsv")
    device = resolve_device(cfg.device)
    if cfg.threads or group.world > 1:
        torch.set_num_threads(group.threads(cfg.threads))
    torch.manual_seed(cfg.seed)
    state_file = out_dir / STATE_FILE
    state = torch.load(state_file, weights_only=True, map_location="cpu") if resume and state_file.is_file() else None
    pair = languages(corpus_dir)
    if group.leader:
        prepare_tokenizer(cfg, out_dir, train_pairs, fresh=state is None, pair=pair)
    group.barrier()  # the others read the tokenizer the leader has just written
    tokenizer = Tokenizer(out_dir / TOKENIZER_FILE)
    model, optimizer, progress = prepare_model(cfg, tokenizer, state, out_dir, device)
    torch.manual_seed(cfg.seed * 1000 + group.rank)  # own dropout masks per worker (weights: DDP copies rank 0's)
    augment = None
    if cfg.register_tags > 0 or cfg.term_annotations > 0:
        if not tokenizer.controls:
            raise CommandError("--register-tags/--term-annotations: the tokenizer has no control tokens")
        augment = Augmenter(train_pairs, pair["target"], cfg.register_tags, cfg.term_annotations, cfg.seed).source
    train_data = encode_pairs(tokenizer, train_pairs, cfg.model.max_len, augment, progress=not quiet and group.leader)
    dev = (dev_pairs, encode_pairs(tokenizer, dev_pairs, cfg.model.max_len))
    return loop(model, optimizer, tokenizer, cfg, out_dir, (train_data, dev, pair), progress, device, group, quiet)


def loop(model, optimizer, tokenizer, cfg, out_dir, data, progress: Progress, device, group: Group, quiet) -> dict:
    """Updates until max_steps, max_minutes or a file named STOP in out_dir (then removed: a stop asked
    from outside, as scripts/model/device_train.sh does before its call's time is up); evaluation and
    checkpoints every eval_every updates and at the end."""
    train_data, dev, pair = data
    started = time.monotonic() - progress.elapsed
    trained = group.wrap(model)
    trained.train()
    quiet = quiet or not group.leader
    bar = tqdm(total=cfg.max_steps, initial=progress.step, desc="train", unit="step", disable=quiet, dynamic_ncols=True)
    while True:
        batches = make_batches(train_data, cfg.batch_tokens, random.Random(cfg.seed * 1000 + progress.epoch))
        for first in range(progress.done_in_epoch, len(batches) - group.world + 1, group.world):
            t0 = time.monotonic()
            progress.step, progress.done_in_epoch = progress.step + 1, first + group.world
            batch = tensors(train_data, batches[first + group.rank], device)
            per_tok, ntok = train_step(trained, optimizer, cfg, batch, progress.step)
            bar.update(1)
            bar.set_postfix(
                epoch=progress.epoch,
                loss=f"{per_tok:.3f}",
                best_chrf=f"{progress.best:.1f}",
                tok_s=f"{ntok * group.world / (time.monotonic() - t0):.0f}",
            )
            if progress.step % 50 == 0:
                progress.history.append({"step": progress.step, "train_loss": round(per_tok, 4)})
            minutes = (time.monotonic() - started) / 60
            asked = (out_dir / STOP_FILE).exists()  # a stat a step: microseconds against an update's milliseconds
            done = group.any(progress.step >= cfg.max_steps or minutes >= cfg.max_minutes or asked)
            if progress.step % cfg.eval_every == 0 or done:
                if group.leader:
                    record = evaluate_and_save(model, optimizer, tokenizer, cfg, out_dir, dev, progress, started, pair)
                    bar.write(json.dumps(record))
                group.barrier()
            if done:
                bar.close()
                if group.leader:
                    (out_dir / STOP_FILE).unlink(missing_ok=True)  # asked once: a resumed run goes on
                return {
                    "steps": progress.step,
                    "epochs": progress.epoch,
                    "minutes": round(minutes, 2),
                    "workers": group.world,
                    "best_dev_chrf": progress.best,
                }
        progress.epoch, progress.done_in_epoch = progress.epoch + 1, 0
