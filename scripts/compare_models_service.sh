#!/usr/bin/env bash
# Serving cost of two bundles through `traductor serve`, in one run on this machine:
# output tokens/s at 1 and 64 concurrent streams (the shipped sentences), and p50/p99 latency of a
# short message at 1 stream. Each server runs alone; the load generator shares the machine.
#   bash scripts/compare_models_service.sh OLD_BUNDLE NEW_BUNDLE [OUTDIR] [SECONDS]
set -euo pipefail
old=$1; new=$2; out=${3:-docs/model/service-cost}; seconds=${4:-15}
mkdir -p "$out"
port=50093
printf 'Permission denied\nOut of memory\nSettings\nOpen File\nCancel\n' > "$out/short.txt"

serve_and_load() {  # $1: label, $2: bundle
  traductor serve --model "$2" --host 127.0.0.1 --port $port --metrics-port 0 --log-level WARNING &
  local pid=$!
  for _ in $(seq 1 240); do traductor-client --target 127.0.0.1:$port health >/dev/null 2>&1 && break; sleep 0.5; done
  traductor-client --target 127.0.0.1:$port loadtest --concurrency 1,64 --duration "$seconds" --warmup 3 \
    --stream-fraction 1 --no-progress --json-out "$out/$1-streams.json" > /dev/null
  traductor-client --target 127.0.0.1:$port loadtest --concurrency 1 --duration "$seconds" --warmup 3 \
    --input "$out/short.txt" --no-progress --json-out "$out/$1-short.json" > /dev/null
  kill -TERM $pid; wait $pid || true
}

for round in 1 2; do
  serve_and_load "old-$round" "$old"
  serve_and_load "new-$round" "$new"
done
python - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
rows = {}
for side in ("old", "new"):
    tps = {1: [], 64: []}
    p50 = []
    for r in (1, 2):
        for level in json.load(open(f"{out}/{side}-{r}-streams.json"))["levels"]:
            tps[int(level["level"])].append(level["output_tokens_per_second"])
        p50.append(json.load(open(f"{out}/{side}-{r}-short.json"))["levels"][0]["latency_seconds"]["p50"] * 1000)
    rows[side] = {"tokens_per_s_1": statistics.median(tps[1]), "tokens_per_s_64": statistics.median(tps[64]),
                  "short_p50_ms": statistics.median(p50)}
print(json.dumps(rows, indent=2))
json.dump(rows, open(f"{out}/summary.json", "w"), indent=2)
PY
