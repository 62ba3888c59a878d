#!/usr/bin/env bash
# Train models on a GPU machine lent by the device tool (docs/model-card.md says which were).
# The machine has PyTorch and CUDA but reaches no package index: the few pure-Python packages
# the trainer imports that it lacks come as wheels in work/wheels, and each corpus as
# work/gpu/corpus-NAME.tar.xz (made by scripts/model/pack_corpus.py), both carried with the call.
#
#   bash scripts/model/device_train.sh MINUTES OUT_DIR NAME [NAME ...]
#
# Runs `traductor train --device cuda` for every NAME at once (one GPU, time-sliced), each for
# MINUTES of wall time, resuming work/gpu/model-NAME/train_state.pt when a previous call on the
# same (still warm) machine left one. Extra flags for all runs: TRAIN_FLAGS; a warm start per NAME:
# INIT_FROM, a path with {} for the NAME (server/traductor/checkpoints/en-{}); a {} in TRAIN_FLAGS is
# the NAME too (--tokenizer-from server/traductor/checkpoints/en-{}). STOP_AFTER=SECONDS asks every run
# to stop that long after the start (encoding the corpus included), so the packing that follows fits
# the call's time limit. DEVICE=cpu makes a dry
# run of the whole recipe on a machine without a GPU. Then, per NAME, the
# weights of its last evaluations averaged, in fp16, and its history -> OUT_DIR/NAME.tar (under
# the tool's 16 MiB per file), and the logs -> OUT_DIR/logs.tar.
set -euo pipefail
minutes=$1; out=$2; shift 2
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD/server:$PWD/export:$PWD/client
python3 -c "import sacrebleu, tqdm" 2>/dev/null || python3 -m pip install --quiet --no-deps --no-index \
  --find-links work/wheels sacrebleu portalocker regex tabulate colorama tqdm
if ! python3 -c "import langcodes, language_data" 2>/dev/null; then  # languages.py's; not in the device image
  python3 -m pip install --quiet --no-deps --no-index --no-compile --target work/site --find-links work/wheels \
    langcodes language_data marisa-trie
  export PYTHONPATH=$PYTHONPATH:$PWD/work/site
fi
if ! python3 -c "import lxml.etree" 2>/dev/null; then
  # sacrebleu imports lxml for its WMT XML test sets, which training never reads; lxml's wheel would
  # not fit in the carried 64 MiB beside the corpora, so an empty stand-in lets the import succeed
  mkdir -p work/devstub/lxml && touch work/devstub/lxml/__init__.py work/devstub/lxml/etree.py
  export PYTHONPATH=$PYTHONPATH:$PWD/work/devstub
fi
device=${DEVICE:-cuda}
[[ $device == cpu ]] || nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for name in "$@"; do
  [[ -d work/gpu/corpus-$name || ! -f work/gpu/corpus-$name.tar.xz ]] || tar -xJf "work/gpu/corpus-$name.tar.xz" -C work/gpu
done
if [[ " $* " == *" multi "* && ! -d work/gpu/corpus-multi ]]; then  # the multilingual pilot: fr + de, tagged
  python3 scripts/model/pack_corpus.py work/gpu/corpus-multi work/gpu/corpus-fr work/gpu/corpus-de --tag
fi
threads=$(( $(nproc) / $# ))
for name in "$@"; do
  mkdir -p "work/gpu/model-$name"
  init=()
  [[ -z ${INIT_FROM:-} ]] || init=(--init-from "${INIT_FROM//\{\}/$name}")
  bash scripts/model/keep_states.sh "work/gpu/model-$name" 10 > /dev/null 2>&1 &
  flags=${TRAIN_FLAGS:-}
  # shellcheck disable=SC2086  # TRAIN_FLAGS is a list of flags
  python3 -m traductor.cli train --corpus "work/gpu/corpus-$name" --out "work/gpu/model-$name" \
    --device "$device" --threads "$threads" --max-minutes "$minutes" "${init[@]}" ${flags//\{\}/$name} \
    > "work/gpu/train-$name.log" 2>&1 &
done
if [[ -n ${STOP_AFTER:-} ]]; then  # seconds from here: each run is asked to stop (a STOP file), whatever --max-minutes says
  (sleep "$STOP_AFTER"; for name in "$@"; do touch "work/gpu/model-$name/STOP"; done) &
  stopper=$!
fi
wait -n $(jobs -p) 2>/dev/null || true
while pgrep -f "traductor.cli train" > /dev/null; do sleep 5; done
[[ -z ${stopper:-} ]] || kill "$stopper" 2>/dev/null || true  # not left to stop a later resumed run
sleep 6  # the last keep_states copies
pkill -f keep_states.sh || true
mkdir -p "$out"
for name in "$@"; do
  model=work/gpu/model-$name
  tail -n 3 "work/gpu/train-$name.log" | tr '\r' '\n' | tail -n 2
  mapfile -t states < <(ls -t "$model"/states/state-*.pt | head -n 2)
  python3 -m traductor.cli average --checkpoint "$model" --out "$model-avg" "${states[@]}"
  python3 - "$model-avg" <<'PY'
import sys
from pathlib import Path
from safetensors.torch import load_file, save_file
path = Path(sys.argv[1]) / "model.safetensors"
weights = load_file(path)
save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, path)
PY
  cp "$model/history.json" "$model-avg/history.json"
  tar -cf "$out/$name.tar" -C "$model-avg" .
done
tar -cf "$out/logs.tar" work/gpu/train-*.log
ls -la "$out"
