"""The training curves: train/dev loss and dev chrF/BLEU against updates, as a PNG."""

from __future__ import annotations

import sys
from pathlib import Path


def plot(history: list[dict], out_file: Path) -> None:
    """Draw the curves; without matplotlib (a bare GPU box, say) say so once on stderr and draw nothing."""
    try:
        import matplotlib
    except ImportError:
        if not getattr(plot, "warned", False):
            print("training.png not drawn: matplotlib is not installed", file=sys.stderr)
            plot.warned = True
        return

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
