#!/usr/bin/env bash
# Make a trained checkpoint the default model, measured on the way:
#   1. its weights stored in fp16 (half the size in git; they load as fp32) -> default_model/checkpoint
#   2. fp32 and int8 bundles exported from that checkpoint, parity checked on dev sources
#   3. both measured on the test split and the common messages (ONNX engine, greedy, as served),
#      the int8 one also with the translation memory; JSON reports in docs/model/
#   4. the int8 bundle with the memory -> default_model/bundle (what `traductor serve` loads)
#
#   scripts/ship_model.sh CHECKPOINT CORPUS_DIR WORK_DIR
# CORPUS_DIR is what `traductor corpus` wrote (test.tsv, dev.tsv, common.tsv, memory.tsv).
set -euo pipefail
ckpt=$1; corpus=$2; work=$3
here=$(cd "$(dirname "$0")/.." && pwd)
dest=$here/server/traductor/default_model
mkdir -p "$work"

python - "$ckpt" "$work/checkpoint" <<'PY'
import json, shutil, sys
from pathlib import Path
from safetensors.torch import load_file, save_file
src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
weights = load_file(src / "model.safetensors")
save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, out / "model.safetensors")
for name in ("config.json", "tokenizer.model"):
    shutil.copy(src / name, out / name)
print(json.dumps({"checkpoint": str(out), "tensors": len(weights)}))
PY

head -n 200 "$corpus/dev.tsv" > "$work/parity.tsv"
traductor export --checkpoint "$work/checkpoint" --out "$work/fp32" --parity-tsv "$work/parity.tsv" --force
traductor export --checkpoint "$work/checkpoint" --out "$work/int8" --quantize int8 \
  --parity-tsv "$work/parity.tsv" --memory "$corpus/memory.tsv" --force

for precision in fp32 int8; do
  traductor evaluate --model "$work/$precision" --corpus "$corpus/test.tsv" --common "$corpus/common.tsv" \
    > "$here/docs/model/default-model-test-$precision.json"
done
traductor evaluate --model "$work/int8" --corpus "$corpus/test.tsv" --common "$corpus/common.tsv" --memory \
  > "$here/docs/model/default-model-test-int8-memory.json"

rm -rf "$dest/checkpoint" "$dest/bundle"
cp -r "$work/checkpoint" "$dest/checkpoint"
cp -r "$work/int8" "$dest/bundle"
du -sh "$dest/checkpoint" "$dest/bundle"
