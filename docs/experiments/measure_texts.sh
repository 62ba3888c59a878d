#!/usr/bin/env bash
# Whole texts through `traductor serve` (docs/performance.md, "Texts"):
#   1. latency at 1 stream of one sentence, and of a 10-sentence paragraph of such sentences
#   2. single-sentence throughput at 64 concurrent unary calls, this tree against an older one
#      (BEFORE_PYTHONPATH: a checkout from before segmentation, with its own bundle BEFORE_BUNDLE)
#   docs/experiments/measure_texts.sh BUNDLE [OUTDIR] [SECONDS]
set -euo pipefail
bundle=$1; out=${2:-docs/texts-figures}; seconds=${3:-15}
mkdir -p "$out"
port=50095
sentence="The file could not be opened because it is locked by another program."
paragraph=$(python -c "
s = ['The file could not be opened.', 'Check that you have permission to read it.', 'Close other programs that use it.',
     'Then try again.', 'If the problem persists, restart the computer.', 'Your changes have been saved.',
     'The backup is stored in your home folder.', 'You can restore it from the settings.', 'Press any key to continue.',
     'Thank you for using this program.']
print(' '.join(s))")
printf '%s\n' "$sentence" > "$out/sentence.txt"
printf '%s\n' "$paragraph" > "$out/paragraph.txt"

serve() {  # $1: PYTHONPATH, $2: bundle
  PYTHONPATH=$1 traductor serve --model "$2" --host 127.0.0.1 --port $port --metrics-port 0 --log-level WARNING &
  pid=$!
  for _ in $(seq 1 240); do traductor-client --target 127.0.0.1:$port health >/dev/null 2>&1 && break; sleep 0.5; done
}
load() {  # $1: label, $2: input, $3: concurrency
  traductor-client --target 127.0.0.1:$port loadtest --concurrency "$3" --duration "$seconds" --warmup 3 \
    --input "$2" --no-progress --json-out "$out/$1.json" > /dev/null
}

for round in 1 2; do
  serve "" "$bundle"
  load "sentence-1-r$round" "$out/sentence.txt" 1
  load "paragraph-1-r$round" "$out/paragraph.txt" 1
  load "after-64-r$round" "$out/sentence.txt" 64
  kill -TERM $pid; wait $pid || true
  if [[ -n ${BEFORE_PYTHONPATH:-} ]]; then
    serve "$BEFORE_PYTHONPATH" "$BEFORE_BUNDLE"
    load "before-64-r$round" "$out/sentence.txt" 64
    kill -TERM $pid; wait $pid || true
  fi
done
python - "$out" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
def runs(label):
    return [json.load(open(f"{out}/{label}-r{r}.json"))["levels"][0] for r in (1, 2) if os.path.exists(f"{out}/{label}-r{r}.json")]
summary = {}
for label in ("sentence-1", "paragraph-1"):
    summary[label + "_p50_ms"] = statistics.median(l["latency_seconds"]["p50"] * 1000 for l in runs(label))
for label in ("before-64", "after-64"):
    if runs(label):
        summary[label + "_tokens_per_s"] = statistics.median(l["output_tokens_per_second"] for l in runs(label))
print(json.dumps(summary, indent=2))
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
PY
