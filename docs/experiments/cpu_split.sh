#!/usr/bin/env bash
# Where the CPU goes under load: the server process, its engine process and the load generator.
#
#   bash docs/experiments/cpu_split.sh [CONCURRENCY] [extra `traductor serve` flags...]
#
# Serves the default model (memory off, 32 new tokens per call) on a free port, runs 12 s of
# `traductor-client loadtest` at CONCURRENCY (default 64) with unary calls, then with streams, and
# prints each process's CPU over 8 s in the middle of the run (from /proc, 100% = one core) with
# the output tokens/s. With --no-engine-process there is no engine process (its column is 0).
set -euo pipefail
concurrency=${1:-64}
shift || true
port=$(python -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
texts=$(mktemp)
python - "$texts" <<'PY'
import sys, tempfile
from pathlib import Path
from traductor.bench.service import prepare_inputs
from traductor.engine.bundle import default_bundle, load_bundle
b = load_bundle(default_bundle())
path, _ = prepare_inputs(None, b.file("tokenizer.model"), b.max_len, Path(tempfile.mkdtemp()))
Path(sys.argv[1]).write_text(path.read_text())
PY
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
traductor serve --host 127.0.0.1 --port "$port" --metrics-port 0 --max-active-sequences 64 \
    --max-input-tokens 128 --no-memory --log-level WARNING "$@" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$texts"' EXIT
until traductor-client --target "127.0.0.1:$port" health >/dev/null 2>&1; do sleep 0.3; done
engine=0
for child in $(pgrep -P "$server"); do
    grep -q resource_tracker "/proc/$child/cmdline" || engine=$child
done
for fraction in 0 1; do
    out=$(mktemp)
    traductor-client --target "127.0.0.1:$port" loadtest --concurrency "$concurrency" --duration 12 --warmup 2 \
        --stream-fraction "$fraction" --min-new-tokens 32 --max-new-tokens 32 --no-progress --input "$texts" \
        --json-out "$out" >/dev/null &
    load=$!
    sleep 4
    s0=$(ticks $server); e0=$(ticks $engine); l0=$(ticks $load); t0=$(date +%s.%N)
    sleep 8
    s1=$(ticks $server); e1=$(ticks $engine); l1=$(ticks $load); t1=$(date +%s.%N)
    wait $load
    python - "$out" "$fraction" "$concurrency" <<PY
import json, sys
level = json.load(open(sys.argv[1]))["levels"][0]
dt = $t1 - $t0
mode = "streams" if sys.argv[2] == "1" else "unary"
print(f"{sys.argv[3]} {mode}: {level['output_tokens_per_second']:,.0f} tokens/s; CPU: server {($s1 - $s0) / dt:.0f}%, "
      f"engine process {($e1 - $e0) / dt:.0f}%, load generator {($l1 - $l0) / dt:.0f}%")
PY
    rm -f "$out"
done
