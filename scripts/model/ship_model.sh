#!/usr/bin/env bash
# Make a trained checkpoint a packaged model (en-es, the default, unless NAME says otherwise), measured on the way:
#   1. its weights stored in fp16 (half the size in git; they load as fp32) -> checkpoints/NAME
#   2. fp32 and int8 bundles exported from that checkpoint, parity checked on dev sources
#   3. both measured on the test split and the common messages (ONNX engine, greedy, as served),
#      the int8 one also with the translation memory; JSON reports in docs/model/
#   4. the int8 bundle with the memory -> models/NAME (what `traductor serve` loads)
#
#   scripts/model/ship_model.sh CHECKPOINT CORPUS_DIR WORK_DIR [NAME]
# CORPUS_DIR is what `traductor corpus` wrote (test.tsv, dev.tsv, common.tsv, memory.tsv).
set -euo pipefail
ckpt=$1; corpus=$2; work=$3; name=${4:-en-es}
here=$(cd "$(dirname "$0")/../.." && pwd)
package=$here/server/traductor
# the reports of the en-es model keep their first name (docs link to them)
report=$([[ $name == en-es ]] && echo default-model || echo "$name")
mkdir -p "$work"

python - "$ckpt" "$work/$name" <<'PY'
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
traductor export --checkpoint "$work/$name" --out "$work/fp32" --parity-tsv "$work/parity.tsv" --force
traductor export --checkpoint "$work/$name" --out "$work/int8" --quantize int8 \
  --parity-tsv "$work/parity.tsv" --memory "$corpus/memory.tsv" --force

for precision in fp32 int8; do
  traductor evaluate --model "$work/$precision" --corpus "$corpus/test.tsv" --common "$corpus/common.tsv" \
    > "$here/docs/model/$report-test-$precision.json"
done
traductor evaluate --model "$work/int8" --corpus "$corpus/test.tsv" --common "$corpus/common.tsv" --memory \
  > "$here/docs/model/$report-test-int8-memory.json"

rm -rf "$package/checkpoints/$name" "$package/models/$name"
mkdir -p "$package/checkpoints" "$package/models"
cp -r "$work/$name" "$package/checkpoints/$name"
cp -r "$work/int8" "$package/models/$name"
du -sh "$package/checkpoints/$name" "$package/models/$name"
