"""Average the weights of the last few training states into one checkpoint (a cheap gain).

`traductor train` rewrites OUT/train_state.pt at every evaluation; keep copies of it with
`scripts/keep_states.sh OUT` while it trains, then:

    python scripts/average_checkpoints.py --checkpoint OUT --out OUT-avg OUT/states/state-*.pt

The result is a normal checkpoint (config and tokenizer copied from --checkpoint, weights the
element-wise mean of the states' weights), ready for `traductor evaluate` and `traductor export`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from traductor.model import checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkpoint", required=True, help="the training run's checkpoint directory (config, tokenizer)"
    )
    parser.add_argument("--out", required=True, help="directory for the averaged checkpoint")
    parser.add_argument("states", nargs="+", help="train_state.pt copies to average")
    args = parser.parse_args()
    model, tokenizer, config = checkpoint.load(Path(args.checkpoint))
    total, steps = None, []
    for path in args.states:
        state = torch.load(path, weights_only=True)
        steps.append(int(state["step"]))
        weights = state["model"]
        total = (
            {k: v.double().clone() for k, v in weights.items()}
            if total is None
            else {k: total[k] + weights[k].double() for k in total}
        )
    model.load_state_dict({k: (v / len(args.states)).float() for k, v in total.items()})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    training = dict(config.get("training", {}))
    training["averaged_steps"] = steps
    tokenizer_file = Path(args.checkpoint) / "tokenizer.model"
    checkpoint.save(model, out, tokenizer_file, {"training": training}, checkpoint.languages(config))
    print(json.dumps({"out": str(out), "averaged_steps": steps}))


if __name__ == "__main__":
    main()
