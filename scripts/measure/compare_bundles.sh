#!/usr/bin/env bash
# Serving cost of two model bundles on this tree (docs/model-card.md, "Serving cost"): each bundle
# served by `traductor serve --no-memory` (every message goes to the model), then the load
# generator at 1 and 64 concurrent calls on held-out messages; the bundles alternate ROUNDS times,
# the one that goes first swapped every round. STREAM_FRACTION: 1 streams (default), 0 unary calls.
#   scripts/measure/compare_bundles.sh OLD_BUNDLE NEW_BUNDLE MESSAGES_FILE [ROUNDS] [SECONDS] [STREAM_FRACTION]
# MESSAGES_FILE: one message per line (e.g. `cut -f1 test.tsv | head -300`). Prints one line per run:
# label, concurrency, output tokens/s, p50 and p99 latency in ms, calls OK, errors.
# OLD_ENV / NEW_ENV: settings for one side's server, e.g. NEW_ENV=TRADUCTOR_SPIN=1 with the same
# bundle twice compares `serve` without and with spinning threads.
set -euo pipefail
old=$1; new=$2; messages=$3; rounds=${4:-3}; seconds=${5:-15}; fraction=${6:-1}
port=50098
run() {  # label bundle [VAR=value ...]
  env "${@:3}" traductor serve --model "$2" --no-memory --host 127.0.0.1 --port $port --metrics-port 0 --log-level WARNING &
  local pid=$!
  for _ in $(seq 1 120); do traductor-client --target 127.0.0.1:$port health >/dev/null 2>&1 && break; sleep 0.5; done
  traductor-client --target 127.0.0.1:$port loadtest --concurrency 1,64 --duration "$seconds" --warmup 3 \
    --input "$messages" --stream-fraction "$fraction" --no-progress --json-out "/tmp/compare-$1.json" > /dev/null 2>&1
  kill -TERM $pid; wait $pid
  python - "$1" "/tmp/compare-$1.json" <<'PY'
import json, sys
for level in json.load(open(sys.argv[2]))["levels"]:
    lat = level["latency_seconds"]
    ms = [round(1000 * lat[q], 1) for q in ("p50", "p99")]
    print(sys.argv[1], level["level"], round(level["output_tokens_per_second"]), *ms, level["ok"], level["errors"])
PY
}
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then run "old-$r" "$old" ${OLD_ENV:-}; run "new-$r" "$new" ${NEW_ENV:-}
  else run "new-$r" "$new" ${NEW_ENV:-}; run "old-$r" "$old" ${OLD_ENV:-}; fi
done
