#!/usr/bin/env bash
# Single-sentence throughput of two `traductor serve` trees, alternated ROUNDS times on this machine
# (docs/performance.md, "Whole texts"): 64 unary calls of one sentence for 15 s each.
#   docs/experiments/compare_services.sh BEFORE_PYTHONPATH BEFORE_BUNDLE AFTER_BUNDLE [ROUNDS]
# BEFORE_PYTHONPATH: server:export:client folders of another checkout; the after side is this tree,
# or the folders in AFTER_PYTHONPATH (a fixed checkout, so that editing this tree cannot touch a run).
# Per run: output tokens/s, and the server's CPU time per call (user + system, from /proc, over the
# warm-up and the measured 15 s): a figure the load generator's share of the 2 cores moves less.
set -u
before_path=$1; before_bundle=$2; after_bundle=$3; rounds=${4:-5}; after_path=${AFTER_PYTHONPATH:-}
port=50099
sentence=$(mktemp)
echo "The file could not be opened because it is locked by another program." > "$sentence"
run() {  # label pythonpath bundle
  PYTHONPATH=$2 traductor serve --model "$3" --host 127.0.0.1 --port $port --metrics-port 0 --log-level WARNING &
  local pid=$!
  for _ in $(seq 1 120); do traductor-client --target 127.0.0.1:$port health >/dev/null 2>&1 && break; sleep 0.5; done
  local cpu0; cpu0=$(awk '{print $14 + $15}' /proc/$pid/stat)
  traductor-client --target 127.0.0.1:$port loadtest --concurrency 64 --duration 15 --warmup 3 --input "$sentence" \
    --no-progress --json-out "/tmp/compare-$1.json" > /dev/null 2>&1
  local cpu1; cpu1=$(awk '{print $14 + $15}' /proc/$pid/stat)
  kill -TERM $pid; wait $pid
  python -c "import json, os; d=json.load(open('/tmp/compare-$1.json'))['levels'][0]
calls = d['requests'] + d['warmup_requests']; ms = ($cpu1 - $cpu0) / os.sysconf('SC_CLK_TCK') * 1000 / calls
print('$1', round(d['output_tokens_per_second']), 'tokens/s', round(ms, 3), 'server CPU ms/call')"
}
for r in $(seq 1 "$rounds"); do
  run "before-$r" "$before_path" "$before_bundle"
  run "after-$r" "$after_path" "$after_bundle"
done
