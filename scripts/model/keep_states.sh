#!/usr/bin/env bash
# Keep a copy of OUT/train_state.pt each time `traductor train` rewrites it (for checkpoint
# averaging: `traductor average`). Runs until killed.
#   bash scripts/model/keep_states.sh OUT [SECONDS]
set -euo pipefail
out=$1; every=${2:-20}
mkdir -p "$out/states"
last=""
while true; do
  if [[ -f $out/train_state.pt ]]; then
    stamp=$(stat -c %Y "$out/train_state.pt")
    if [[ $stamp != "$last" ]]; then
      sleep 5  # let the trainer finish writing
      cp "$out/train_state.pt" "$out/states/state-$(date +%s).pt"
      last=$stamp
    fi
  fi
  sleep "$every"
done
