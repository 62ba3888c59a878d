"""A training run's state: how it starts (SentencePiece trained on the corpus or taken from
--init-from, with the control tokens added when the run teaches them; weights new, --init-from's, carried across
vocabularies, or those of train_state.pt when resuming) and what is saved after each
evaluation so that it can resume (train_state.pt, history.json).

Owns the files of a run but the checkpoint and the plot; knows nothing of the batches, the loss
or the schedule (batches.py, train.py).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from ..model import checkpoint, controls, placeholders
from ..model.tokenizer import FILENAME as TOKENIZER_FILE
from ..model.tokenizer import Tokenizer, train_sentencepiece, with_symbols, without_symbols
from ..model.transformer import Transformer
from .config import TrainConfig

STATE_FILE = "train_state.pt"
STOP_FILE = "STOP"  # created by someone else in the run's directory: the run ends after the current update


@dataclass
class Progress:
    """Where a run is: saved in train_state.pt with the weights, so a run resumes where it stopped."""

    step: int = 0
    epoch: int = 0
    done_in_epoch: int = 0  # batches of the current epoch already trained on
    best: float = -1.0  # best dev chrF so far (the checkpoint holds that model)
    elapsed: float = 0.0  # seconds of training so far
    history: list = field(default_factory=list)


def prepare_tokenizer(cfg: TrainConfig, out_dir: Path, train_pairs, fresh: bool, pair: dict) -> Tokenizer:
    """A new run trains SentencePiece on the masked pairs, or takes --init-from's (unless --init-vocab
    own) or --tokenizer-from's; a resumed one reuses it. `pair`: the corpus's languages."""
    tok_file = out_dir / TOKENIZER_FILE
    if fresh and cfg.init_from and cfg.init_vocab == "init":
        tok_file.write_bytes((Path(cfg.init_from) / TOKENIZER_FILE).read_bytes())
    elif fresh and cfg.tokenizer_from:
        tok_file.write_bytes((Path(cfg.tokenizer_from) / TOKENIZER_FILE).read_bytes())
    elif fresh:
        lines = []
        for p in train_pairs:
            m, target = placeholders.mask_pair(p.source, p.target)
            lines += [m.text, target]
        train_sentencepiece(lines, tok_file, cfg.model.vocab_size)
    teaches = cfg.register_tags > 0 or cfg.term_annotations > 0
    if fresh and teaches:
        # a run that teaches the control tokens: appended after every piece, which keep their ids
        tok_file.write_bytes(with_symbols(tok_file.read_bytes(), controls.TOKENS))
    elif (
        fresh
        and (cfg.init_from or cfg.tokenizer_from)
        and pair != checkpoint.languages(checkpoint.read_config(Path(cfg.init_from or cfg.tokenizer_from)))
    ):
        # another pair's tokenizer (es-en from en-es): its tags are not this model's, keep none
        tok_file.write_bytes(without_symbols(tok_file.read_bytes(), controls.TOKENS))
    return Tokenizer(tok_file)


def transfer_weights(base: Transformer, base_tokenizer: Tokenizer, model: Transformer, tokenizer: Tokenizer) -> int:
    """Warm start across vocabularies: every weight of `base` but the vocabulary's is copied into
    `model` (same sizes); an embedding row and output bias of a piece `base_tokenizer` also has
    (the same string: English words, placeholders, shared stems) is copied from base's row, the
    other rows keep their fresh initialisation. Returns how many pieces were carried over."""
    vocab_weights = {"embedding.weight", "output_bias", "output_projection.weight"}
    state = base.state_dict()
    model.load_state_dict({k: v for k, v in state.items() if k not in vocab_weights}, strict=False)
    old_id = {base_tokenizer.sp.id_to_piece(i): i for i in range(base_tokenizer.vocab_size)}
    pairs = [(i, old_id[p]) for i in range(tokenizer.vocab_size) if (p := tokenizer.sp.id_to_piece(i)) in old_id]
    new_ids, old_ids = torch.tensor([n for n, _ in pairs]), torch.tensor([o for _, o in pairs])
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name in vocab_weights:
                param[new_ids] = state[name][old_ids].to(param.dtype)
    return len(pairs)


def prepare_model(cfg: TrainConfig, tokenizer: Tokenizer, state: dict | None, out_dir: Path, device="cpu"):
    """Model, optimizer and progress: from train_state.pt when resuming, else new (or --init-from's weights)."""
    base, base_tokenizer, _ = checkpoint.load(Path(cfg.init_from)) if cfg.init_from else (None, None, None)
    sizes = base.cfg if base is not None else cfg.model
    model = Transformer(replace(sizes, vocab_size=tokenizer.vocab_size))
    model.to(device)  # before the optimizer is made, so that its state lives on the same device
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    if state is None:
        if base is not None and cfg.init_vocab == "init" and base.cfg.vocab_size == tokenizer.vocab_size:
            model.load_state_dict(base.state_dict())
        elif base is not None:
            shared = transfer_weights(base, base_tokenizer, model, tokenizer)
            print(f"init from {cfg.init_from}: {shared} of {tokenizer.vocab_size} pieces carried over", file=sys.stderr)
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


def save_state(model, optimizer, out_dir: Path, progress: Progress, started: float) -> None:
    """train_state.pt (weights, optimizer, where the run is) and history.json: what a resumed run reads."""
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
