"""Markdown tables of the model card from the JSON reports in docs/model/.

    python scripts/model_tables.py docs/model

Reads baselines-test.json (copy, Apertium: scripts/baselines.py) and every
`*-test-*.json` written by `traductor evaluate` (scripts/ship_model.sh writes the default model's),
and prints: quality per kind of program with the margin over Apertium, placeholders kept per
kind of placeholder, and the 200 common messages.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KINDS = ("command-line", "gtk", "kde-qt", "other")
PLACEHOLDERS = ("printf", "qt", "markup", "mnemonic", "python", "brace", "option", "shell")


def load(folder: Path) -> dict[str, dict]:
    systems = json.loads((folder / "baselines-test.json").read_text())
    for path in sorted(folder.glob("*-test-*.json")):
        systems[path.stem] = json.loads(path.read_text())
    return systems


def quality(systems: dict[str, dict]) -> str:
    apertium = systems["apertium"]
    rows = [
        "| system | chrF | BLEU | placeholders kept | "
        + " | ".join(f"{k} chrF (vs Apertium)" for k in KINDS)
        + " | 200 common messages exact |",
        "|---|---|---|---|" + "---|" * len(KINDS) + "---|",
    ]
    for name, r in systems.items():
        kinds = []
        for k in KINDS:
            chrf = r["by_kind"][k]["chrf"]
            margin = chrf - apertium["by_kind"][k]["chrf"]
            kinds.append(f"{chrf:.1f}" if name in ("copy", "apertium") else f"{chrf:.1f} ({margin:+.1f})")
        common = r.get("common")
        common_cell = f"{100 * common['exact_rate']:.1f}%" if common else "—"
        rows.append(
            f"| {name} | {r['chrf']:.1f} | {r['bleu']:.1f} | {100 * r['placeholder_rate']:.1f}% | "
            + " | ".join(kinds)
            + f" | {common_cell} |"
        )
    return "\n".join(rows)


def placeholder_kinds(systems: dict[str, dict]) -> str:
    rows = ["| system | " + " | ".join(PLACEHOLDERS) + " |", "|---|" + "---|" * len(PLACEHOLDERS)]
    totals = next(iter(systems.values()))["placeholder_kinds"]
    rows.append("| (in the test sources) | " + " | ".join(str(totals[p]["total"]) for p in PLACEHOLDERS) + " |")
    for name, r in systems.items():
        if name == "copy":
            continue
        cells = [f"{100 * r['placeholder_kinds'][p]['rate']:.1f}%" for p in PLACEHOLDERS]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    systems = load(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/model"))
    print(quality(systems), end="\n\n")
    print(placeholder_kinds(systems))


if __name__ == "__main__":
    main()
