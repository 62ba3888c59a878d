"""`traductor average`: the element-wise mean of the weights of a few training states, as one
checkpoint (a cheap gain over the best single evaluation; docs/model-card.md).

`traductor train` rewrites OUT/train_state.pt at every evaluation; keep copies of it with
`scripts/model/keep_states.sh OUT` while it trains, then:

    traductor average --checkpoint OUT --out OUT-avg OUT/states/state-*.pt

A state may also be a checkpoint directory (a packaged model's weights, say), and `--weights`
makes the mean a weighted one: a fine-tuned run that lost some of what its starting model knew is
shipped as 0.7 x the run's averaged states + 0.3 x the model it started from (docs/model-card.md):

    traductor average --checkpoint OUT --out OUT-mix --weights 0.7,0.3 OUT-avg server/traductor/checkpoints/en-fr

The result is a normal checkpoint (config and tokenizer copied from --checkpoint, the steps
averaged, and the weights and directories where given, recorded in its training section), ready
for `traductor evaluate` and `traductor export`.
Owns the averaging only; knows nothing of how the states were trained or kept. Imports torch
only when run, so that `traductor --help` stays torch-free.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import CommandError, require_torch


def _weights_of(path: Path) -> tuple[dict, int | None]:
    """(a state's or a checkpoint directory's weights, its step: None for a directory)."""
    import torch

    from ..model import checkpoint

    if path.is_dir():
        model, _, _ = checkpoint.load(path)
        return model.state_dict(), None
    state = torch.load(path, weights_only=True)
    return state["model"], int(state["step"])


def average(checkpoint_dir: Path, states: list[Path], out: Path, weights: list[float] | None = None) -> dict:
    """The mean of `states`' weights (train_state.pt copies or checkpoint directories) in
    `checkpoint_dir`'s model -> `out`; `weights`: one a state, the mean weighted by them (their
    sum need not be 1: they are divided by it)."""
    from ..model import checkpoint

    if weights is not None and (len(weights) != len(states) or min(weights) <= 0):
        raise CommandError(f"--weights: one positive number a state ({len(states)} states, {len(weights)} weights)")
    shares = [w / sum(weights) for w in weights] if weights else [1 / len(states)] * len(states)
    model, _, config = checkpoint.load(Path(checkpoint_dir))
    total, steps, directories = None, [], []
    for path, share in zip(states, shares):
        own, step = _weights_of(Path(path))
        if step is None:
            directories.append(str(path))
        else:
            steps.append(step)
        if total is not None and own.keys() != total.keys():
            raise CommandError(f"{path}: not the same model as the states before it (other weight names)")
        total = {k: (0 if total is None else total[k]) + v.double() * share for k, v in own.items()}
    try:
        model.load_state_dict({k: v.float() for k, v in total.items()})
    except RuntimeError as e:
        raise CommandError(f"the states are not {checkpoint_dir}'s model ({str(e).splitlines()[0]})") from e
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    record = {"averaged_steps": steps}  # in the checkpoint's training section, and printed
    if directories:
        record["averaged_checkpoints"] = directories
    if weights:
        record["averaged_weights"] = shares
    training = {**config.get("training", {}), **record}
    tokenizer_file = Path(checkpoint_dir) / "tokenizer.model"
    checkpoint.save(model, out, tokenizer_file, {"training": training}, checkpoint.languages(config))
    return {"out": str(out), **record}


def _weight_list(text: str) -> list[float]:
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: numbers separated by commas (0.7,0.3)") from None


def register(sub) -> None:
    p = sub.add_parser(
        "average",
        help="average the weights of training states into one checkpoint",
        description="The element-wise mean of the weights of train_state.pt copies (scripts/model/keep_states.sh "
        "keeps them while `traductor train` runs), written as a checkpoint with --checkpoint's config and tokenizer.",
    )
    p.add_argument("--checkpoint", required=True, help="the training run's checkpoint directory (config, tokenizer)")
    p.add_argument("--out", required=True, help="directory for the averaged checkpoint")
    p.add_argument(
        "--weights", type=_weight_list, help="one a state, by commas: a weighted mean (0.7,0.3: 70%% of the first)"
    )
    p.add_argument("states", nargs="+", help="train_state.pt copies (or checkpoint directories) to average")
    p.set_defaults(func=run)


def run(args) -> None:
    require_torch("average")
    states = [Path(s) for s in args.states]
    print(json.dumps(average(Path(args.checkpoint), states, Path(args.out), args.weights)))
