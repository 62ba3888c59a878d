"""`traductor average`: the element-wise mean of the weights of a few training states, as one
checkpoint (a cheap gain over the best single evaluation; docs/model-card.md).

`traductor train` rewrites OUT/train_state.pt at every evaluation; keep copies of it with
`scripts/model/keep_states.sh OUT` while it trains, then:

    traductor average --checkpoint OUT --out OUT-avg OUT/states/state-*.pt

The result is a normal checkpoint (config and tokenizer copied from --checkpoint, the steps
averaged recorded in its training section), ready for `traductor evaluate` and `traductor export`.
Owns the averaging only; knows nothing of how the states were trained or kept. Imports torch
only when run, so that `traductor --help` stays torch-free.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import require_torch


def average(checkpoint_dir: Path, states: list[Path], out: Path) -> dict:
    """The mean of `states`' weights (train_state.pt copies) in `checkpoint_dir`'s model -> `out`."""
    import torch

    from ..model import checkpoint

    model, _, config = checkpoint.load(Path(checkpoint_dir))
    total, steps = None, []
    for path in states:
        state = torch.load(path, weights_only=True)
        steps.append(int(state["step"]))
        weights = state["model"]
        total = (
            {k: v.double().clone() for k, v in weights.items()}
            if total is None
            else {k: total[k] + weights[k].double() for k in total}
        )
    model.load_state_dict({k: (v / len(states)).float() for k, v in total.items()})
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    training = dict(config.get("training", {}))
    training["averaged_steps"] = steps
    tokenizer_file = Path(checkpoint_dir) / "tokenizer.model"
    checkpoint.save(model, out, tokenizer_file, {"training": training}, checkpoint.languages(config))
    return {"out": str(out), "averaged_steps": steps}


def register(sub) -> None:
    p = sub.add_parser(
        "average",
        help="average the weights of training states into one checkpoint",
        description="The element-wise mean of the weights of train_state.pt copies (scripts/model/keep_states.sh "
        "keeps them while `traductor train` runs), written as a checkpoint with --checkpoint's config and tokenizer.",
    )
    p.add_argument("--checkpoint", required=True, help="the training run's checkpoint directory (config, tokenizer)")
    p.add_argument("--out", required=True, help="directory for the averaged checkpoint")
    p.add_argument("states", nargs="+", help="train_state.pt copies to average")
    p.set_defaults(func=run)


def run(args) -> None:
    require_torch("average")
    print(json.dumps(average(Path(args.checkpoint), [Path(s) for s in args.states], Path(args.out))))
