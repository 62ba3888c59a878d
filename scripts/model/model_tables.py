"""Markdown tables of the model card from the JSON reports in docs/model/.

    python scripts/model/model_tables.py docs/model                 # en-es, the default model
    python scripts/model/model_tables.py docs/model --pair en-fr    # another language's model

Reads the baselines (`baselines-test.json` for en-es: copy and Apertium; `PAIR-baselines-test.json`
for another pair: copy, as Apertium has none of them; scripts/model/baselines.py) and the reports
`traductor evaluate` wrote (scripts/model/ship_model.sh: `PAIR-test-*.json`; for en-es every
`*-test-*.json` not of another pair), and prints: quality per kind of program with the margin over
the best baseline (Apertium, else copying the source), placeholders kept per kind of placeholder,
and the 200 common messages.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KINDS = ("command-line", "gtk", "kde-qt", "other")
PLACEHOLDERS = ("printf", "qt", "markup", "mnemonic", "python", "brace", "option", "shell")


def load(folder: Path, pair: str = "en-es") -> dict[str, dict]:
    if pair == "en-es":
        systems = json.loads((folder / "baselines-test.json").read_text())
        reports = [p for p in sorted(folder.glob("*-test-*.json")) if not p.name.startswith("en-")]
    else:
        systems = json.loads((folder / f"{pair}-baselines-test.json").read_text())
        reports = sorted(folder.glob(f"{pair}-test-*.json"))
    for path in reports:
        systems[path.stem] = json.loads(path.read_text())
    return systems


def quality(systems: dict[str, dict]) -> str:
    baseline_name = "apertium" if "apertium" in systems else "copy"
    apertium = systems[baseline_name]
    rows = [
        "| system | chrF | BLEU | placeholders kept | "
        + " | ".join(f"{k} chrF (vs {baseline_name})" for k in KINDS)
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
    args = sys.argv[1:]
    pair = args[args.index("--pair") + 1] if "--pair" in args else "en-es"
    folder = next((a for a in args if a not in ("--pair", pair)), "docs/model")
    systems = load(Path(folder), pair)
    print(quality(systems), end="\n\n")
    print(placeholder_kinds(systems))


if __name__ == "__main__":
    main()
