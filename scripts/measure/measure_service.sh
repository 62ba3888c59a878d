#!/usr/bin/env bash
# What `traductor serve` does on this machine with a given bundle (default: the default model):
#   1. continuous batching: streams at concurrency 1, 8 and 64 (and a latency/throughput plot)
#   2. one request at a time (--max-active-sequences 1) at concurrency 64, for the gain
# The load generator runs on the same machine as the server.
#   scripts/measure/measure_service.sh [BUNDLE] [OUTDIR] [SECONDS]
set -euo pipefail
bundle=${1:-$(python -c "from traductor.engine.bundle import default_bundle; print(default_bundle())")}
out=${2:-docs/service-figures}
seconds=${3:-20}
mkdir -p "$out"
port=50071

run_level() {  # $1: label, $2: concurrency list, $3...: extra serve flags
  local label=$1 levels=$2; shift 2
  traductor serve --model "$bundle" --host 127.0.0.1 --port $port --metrics-port 0 --log-level WARNING "$@" &
  local pid=$!
  for _ in $(seq 1 240); do traductor-client --target 127.0.0.1:$port health >/dev/null 2>&1 && break; sleep 0.5; done
  traductor-client --target 127.0.0.1:$port loadtest --concurrency "$levels" --duration "$seconds" --warmup 3 \
    --stream-fraction 1 --no-progress --json-out "$out/$label.json" ${PLOT:+--plot "$out/$label.png"} | tee "$out/$label.txt"
  kill -TERM $pid; wait $pid
}

PLOT=1 run_level continuous 1,8,64
run_level one-at-a-time 64 --max-active-sequences 1
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
cont = {int(l["level"]): l for l in json.load(open(f"{out}/continuous.json"))["levels"]}
single = json.load(open(f"{out}/one-at-a-time.json"))["levels"][0]
gain = cont[64]["output_tokens_per_second"] / single["output_tokens_per_second"]
print(f"continuous batching at 64 streams: {cont[64]['output_tokens_per_second']:.0f} tokens/s vs "
      f"{single['output_tokens_per_second']:.0f} one at a time: x{gain:.1f}")
PY
