#!/usr/bin/env bash
# Does a flood on one model starve another? p50/p99 of model B at 1 call in flight, alone and
# while model A takes a flood of FLOOD concurrent calls, for each --cpu-sharing (docs/service.md).
# Both models are copies of the packaged default model (the same work per call), served by one
# `traductor serve --model-repository`, each in its own engine process. Take it under the CPU lock:
#
#   flock -x /work/wt/cpu.lock bash docs/experiments/flood_starvation.sh [SECONDS] [FLOOD] > figures.json
set -euo pipefail
seconds=${1:-20}; flood=${2:-32}
work=$(mktemp -d); port=$((20000 + RANDOM % 20000)); server=""
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
python - "$work/repo" <<'PY'
import shutil, sys
from traductor.packaged import DEFAULT_MODEL, MODELS_DIR
for name in ("a", "b"):
    shutil.copytree(MODELS_DIR / DEFAULT_MODEL, f"{sys.argv[1]}/{name}")
PY
target=127.0.0.1:$port
load() { traductor-client --target "$target" loadtest --model "$1" --concurrency "$2" --duration "$3" --warmup 2 --json-out "$4" >/dev/null; }
for sharing in shared split; do
    traductor serve --model-repository "$work/repo" --default-model a --cpu-sharing "$sharing" \
        --host 127.0.0.1 --port "$port" --metrics-port 0 --log-level WARNING 2>"$work/serve-$sharing.log" &
    server=$!
    until traductor-client --target "$target" health >/dev/null 2>&1; do
        kill -0 "$server" || { cat "$work/serve-$sharing.log" >&2; exit 1; }; sleep 0.5
    done
    load b 1 "$seconds" "$work/$sharing-alone.json"
    load a "$flood" "$((seconds + 6))" "$work/$sharing-flood.json" &
    flooder=$!
    sleep 4   # the flood's warm-up: A's queue is full before B is measured
    load b 1 "$seconds" "$work/$sharing-flooded.json"
    wait "$flooder"
    kill "$server"; wait "$server" || true; server=""
done
python - "$work" "$seconds" "$flood" <<'PY'
import json, os, sys
work, seconds, flood = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
def level(path):
    return json.load(open(path))["levels"][0]
out = {"seconds": seconds, "flood_concurrency": flood, "cpus": len(os.sched_getaffinity(0)), "runs": {}}
for sharing in ("shared", "split"):
    run = {}
    for name in ("alone", "flooded"):
        s = level(f"{work}/{sharing}-{name}.json")
        run[f"b_{name}"] = {"requests": s["ok"], "errors": s["errors"],
                            "p50_ms": round(s["latency_seconds"]["p50"] * 1000, 1),
                            "p99_ms": round(s["latency_seconds"]["p99"] * 1000, 1)}
    a = level(f"{work}/{sharing}-flood.json")
    run["a_flood"] = {"requests": a["ok"], "errors": a["errors"], "requests_per_second": round(a["requests_per_second"], 1)}
    out["runs"][sharing] = run
print(json.dumps(out, indent=2))
PY
