"""The model-repository check of the container stacks (tests/compose/run.sh, tests/kubernetes/checks.sh):
`traductor-client models --json` as they saw it through the balancer lists exactly the packaged
models (en-es the default, en-fr, en-de) and the second model, all serving. Prints what was listed;
exit 0 when it holds, 1 if not.

    python3 tests/stack_models_check.py LISTED_JSON SECOND_MODEL
"""

import json
import sys

from traductor.engine.bundle import scan
from traductor.packaged import MODELS_DIR


def holds(models: list[dict], second: str) -> bool:
    by_name = {m["name"]: m for m in models}
    return (
        sorted(by_name) == sorted([*scan(MODELS_DIR), second])
        and by_name["en-es"]["is_default"]
        and not by_name[second]["is_default"]
        and all(m["serving"] for m in models)
    )


if __name__ == "__main__":
    listed, second = json.loads(sys.argv[1]), sys.argv[2]
    for m in listed:
        print("    ListModels:", m["name"], m["languages"], f"default={m['is_default']} serving={m['serving']}")
    sys.exit(0 if holds(listed, second) else 1)
