"""`traductor train`: the paper's recipe on a corpus made by `traductor corpus`.

tokenizer   SentencePiece trained on the masked training pairs (skipped when resuming)
batches     pairs sorted by length and cut into batches of about `batch_tokens` tokens
step        teacher forcing, label-smoothed cross-entropy, Adam(0.9, 0.98, 1e-9),
            lr = lr_scale * d^-0.5 * min(step^-0.5, step * warmup^-1.5)
every N     dev loss and dev chrF/BLEU (greedy); the best model so far is saved as the
            checkpoint; train_state.pt (weights, optimizer, step) makes the run resumable
end         history.json and training.png (train/dev loss and dev chrF against steps)
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from ..model import checkpoint, placeholders
from ..model.generate import pad_batch
from ..model.tokenizer import BOS_ID, EOS_ID, PAD_ID, Tokenizer, train_sentencepiece
from ..model.tokenizer import FILENAME as TOKENIZER_FILE
from ..model.transformer import Transformer
from ..model.translator import TorchTranslator
from .config import TrainConfig
from .corpus import CorpusError, load_split
from .evaluate import score

STATE_FILE = "train_state.pt"


def lr_at(step: int, d_model: int, warmup: int, scale: float) -> float:
    step = max(step, 1)
    return scale * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def encode_pairs(tokenizer: Tokenizer, pairs, max_len: int) -> list[tuple[list[int], list[int]]]:
    out = []
    for p in pairs:
        m = placeholders.mask(p.source)
        src = tokenizer.encode_masked(m.text) + [EOS_ID]
        tgt = tokenizer.encode_masked(placeholders.mask_like(p.target, m.values)) + [EOS_ID]
        if len(src) <= max_len and len(tgt) + 1 <= max_len:
            out.append((src, tgt))
    return out


def make_batches(data, batch_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by similar length, each batch about batch_tokens (padded) tokens."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]) + rng.random() * 2, len(data[i][1])))
    batches, batch, longest = [], [], 0
    for i in order:
        longest_if = max(longest, len(data[i][0]), len(data[i][1]) + 1)
        if batch and longest_if * (len(batch) + 1) > batch_tokens:
            batches.append(batch)
            batch, longest_if = [], max(len(data[i][0]), len(data[i][1]) + 1)
        batch.append(i)
        longest = longest_if
    if batch:
        batches.append(batch)
    rng.shuffle(batches)
    return batches


def tensors(data, idx):
    src, src_pad = pad_batch([data[i][0] for i in idx], PAD_ID)
    tgt_in, tgt_pad = pad_batch([[BOS_ID] + data[i][1] for i in idx], PAD_ID)
    tgt_out, _ = pad_batch([data[i][1] + [PAD_ID] for i in idx], PAD_ID)
    return src, src_pad, tgt_in, tgt_pad, tgt_out


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
    for idx in make_batches(data, batch_tokens, random.Random(0)):
        loss, n = loss_on(model, tensors(data, idx), 0.0)
        total, count = total + float(loss), count + n
    model.train()
    return total / max(count, 1)


def dev_scores(model, tokenizer, pairs) -> dict:
    model.eval()
    hyps = TorchTranslator(model, tokenizer).translate([p.source for p in pairs], batch_size=64)
    model.train()
    return score([p.source for p in pairs], hyps, [p.target for p in pairs])


def plot(history: list[dict], out_file: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = [h for h in history if "dev_loss" in h]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot(
        [h["step"] for h in history if "train_loss" in h],
        [h["train_loss"] for h in history if "train_loss" in h],
        label="train (label-smoothed)",
        alpha=0.7,
    )
    ax1.plot([h["step"] for h in evals], [h["dev_loss"] for h in evals], "o-", label="dev")
    ax1.set(xlabel="step", ylabel="cross-entropy per token", title="Loss")
    ax1.legend()
    ax2.plot([h["step"] for h in evals], [h["dev_chrf"] for h in evals], "o-", label="chrF")
    ax2.plot([h["step"] for h in evals], [h["dev_bleu"] for h in evals], "s-", label="BLEU")
    ax2.set(xlabel="step", title="Dev translation quality (greedy)")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(out_file, dpi=100)
    plt.close(fig)


@dataclass
class Progress:
    """Where a run is: saved in train_state.pt with the weights, so a run resumes where it stopped."""

    step: int = 0
    epoch: int = 0
    done_in_epoch: int = 0  # batches of the current epoch already trained on
    best: float = -1.0  # best dev chrF so far (the checkpoint holds that model)
    elapsed: float = 0.0  # seconds of training so far
    history: list = field(default_factory=list)


def prepare_tokenizer(cfg: TrainConfig, out_dir: Path, train_pairs, fresh: bool) -> Tokenizer:
    """A new run trains SentencePiece on the masked pairs, or takes --init-from's; a resumed one reuses it."""
    tok_file = out_dir / TOKENIZER_FILE
    if fresh and cfg.init_from:
        tok_file.write_bytes((Path(cfg.init_from) / TOKENIZER_FILE).read_bytes())
    elif fresh:
        lines = []
        for p in train_pairs:
            m = placeholders.mask(p.source)
            lines += [m.text, placeholders.mask_like(p.target, m.values)]
        train_sentencepiece(lines, tok_file, cfg.model.vocab_size)
    return Tokenizer(tok_file)


def prepare_model(cfg: TrainConfig, tokenizer: Tokenizer, state: dict | None, out_dir: Path):
    """Model, optimizer and progress: from train_state.pt when resuming, else new (or --init-from's weights)."""
    base = checkpoint.load(Path(cfg.init_from))[0] if cfg.init_from else None
    model = Transformer(base.cfg if base is not None else replace(cfg.model, vocab_size=tokenizer.vocab_size))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    if state is None:
        if base is not None:
            model.load_state_dict(base.state_dict())
        return model, optimizer, Progress()
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    history_file = out_dir / "history.json"
    history = json.loads(history_file.read_text()) if history_file.is_file() else []
    progress = Progress(
        int(state["step"]),
        int(state["epoch"]),
        int(state["done_in_epoch"]),
        float(state["best"]),
        float(state["elapsed"]),
        history,
    )
    return model, optimizer, progress


def train_step(model, optimizer, cfg: TrainConfig, batch, step: int) -> tuple[float, int]:
    """One update at the schedule's learning rate; (label-smoothed loss per token, target tokens)."""
    for group in optimizer.param_groups:
        group["lr"] = lr_at(step, cfg.model.d_model, cfg.warmup, cfg.lr_scale)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cfg.precision == "bf16"):
        loss, ntok = loss_on(model, batch, cfg.label_smoothing)
    optimizer.zero_grad(set_to_none=True)
    (loss / ntok).backward()
    optimizer.step()
    return loss.item() / ntok, ntok


def evaluate_and_save(model, optimizer, tokenizer, cfg, out_dir: Path, dev, progress: Progress, started: float) -> dict:
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
        checkpoint.save(model, out_dir, out_dir / TOKENIZER_FILE, extra)
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "step": progress.step,
            "epoch": progress.epoch,
            "done_in_epoch": progress.done_in_epoch,
            "best": progress.best,
            "elapsed": time.monotonic() - started,
        },
        out_dir / STATE_FILE,
    )
    (out_dir / "history.json").write_text(json.dumps(progress.history) + "\n")
    plot(progress.history, out_dir / "training.png")
    return record


def train(corpus_dir: Path, out_dir: Path, cfg: TrainConfig, resume: bool = True, quiet: bool = False) -> dict:
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    for name in ("train.tsv", "dev.tsv"):
        if not (corpus_dir / name).is_file():
            raise CorpusError(f"{corpus_dir} has no {name}: make one with `traductor corpus --out {corpus_dir}`")
    train_pairs, dev_pairs = load_split(corpus_dir / "train.tsv"), load_split(corpus_dir / "dev.tsv")
    out_dir.mkdir(parents=True, exist_ok=True)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    state_file = out_dir / STATE_FILE
    state = torch.load(state_file, weights_only=True) if resume and state_file.is_file() else None
    tokenizer = prepare_tokenizer(cfg, out_dir, train_pairs, fresh=state is None)
    model, optimizer, progress = prepare_model(cfg, tokenizer, state, out_dir)
    train_data = encode_pairs(tokenizer, train_pairs, cfg.model.max_len)
    dev = (dev_pairs, encode_pairs(tokenizer, dev_pairs, cfg.model.max_len))
    started = time.monotonic() - progress.elapsed
    model.train()
    bar = tqdm(total=cfg.max_steps, initial=progress.step, desc="train", unit="step", disable=quiet, dynamic_ncols=True)
    while True:
        batches = make_batches(train_data, cfg.batch_tokens, random.Random(cfg.seed * 1000 + progress.epoch))
        for idx in batches[progress.done_in_epoch :]:
            t0 = time.monotonic()
            progress.step, progress.done_in_epoch = progress.step + 1, progress.done_in_epoch + 1
            per_tok, ntok = train_step(model, optimizer, cfg, tensors(train_data, idx), progress.step)
            bar.update(1)
            bar.set_postfix(
                epoch=progress.epoch,
                loss=f"{per_tok:.3f}",
                best_chrf=f"{progress.best:.1f}",
                tok_s=f"{ntok / (time.monotonic() - t0):.0f}",
            )
            if progress.step % 50 == 0:
                progress.history.append({"step": progress.step, "train_loss": round(per_tok, 4)})
            minutes = (time.monotonic() - started) / 60
            done = progress.step >= cfg.max_steps or minutes >= cfg.max_minutes
            if progress.step % cfg.eval_every == 0 or done:
                bar.write(
                    json.dumps(evaluate_and_save(model, optimizer, tokenizer, cfg, out_dir, dev, progress, started))
                )
            if done:
                bar.close()
                return {
                    "steps": progress.step,
                    "epochs": progress.epoch,
                    "minutes": round(minutes, 2),
                    "best_dev_chrf": progress.best,
                }
        progress.epoch, progress.done_in_epoch = progress.epoch + 1, 0
