#!/usr/bin/env bash
# Server CPU use under 64 unary calls and under 64 streams of exactly 32 tokens (the default
# model, translation memory off), with 2 and with 1 ONNX Runtime threads, two rounds; server CPU
# from /proc (docs/performance.md, "Where the per-token cost comes from"). Output JSON in $OUT.
#   bash docs/experiments/stream_cost_served.sh [OUT]
set -u
OUT=${1:-/tmp/stream-cost}; mkdir -p "$OUT"
port=50097
run() {  # threads stream_fraction label
  traductor serve --host 127.0.0.1 --port $port --metrics-port 0 --log-level WARNING --threads $1 --no-memory &
  local pid=$!
  for _ in $(seq 1 120); do traductor-client --target 127.0.0.1:$port health >/dev/null 2>&1 && break; sleep 0.5; done
  local c0; c0=$(awk '{print $14 + $15}' /proc/$pid/stat); local t0; t0=$(date +%s.%N)
  traductor-client --target 127.0.0.1:$port loadtest --concurrency 64 --duration 12 --warmup 2 --stream-fraction $2 \
    --min-new-tokens 32 --max-new-tokens 32 --no-progress --json-out $OUT/cpu-$3.json > /dev/null 2>&1
  local c1; c1=$(awk '{print $14 + $15}' /proc/$pid/stat); local t1; t1=$(date +%s.%N)
  kill -TERM $pid; wait $pid
  python -c "import json, os; d=json.load(open('$OUT/cpu-$3.json'))['levels'][0]
cpu = ($c1 - $c0) / os.sysconf('SC_CLK_TCK'); wall = $t1 - $t0
tok = d['output_tokens'] + d.get('warmup_requests', 0) * 32
print('$3', round(d['output_tokens_per_second']), 'tok/s; server CPU', round(100 * cpu / wall), '%; CPU us/token', round(cpu / tok * 1e6, 1))"
}
for r in 1 2; do
run 2 0 unary-t2-$r; run 2 1 stream-t2-$r; run 1 0 unary-t1-$r; run 1 1 stream-t1-$r
done
