#!/usr/bin/env bash
# Make an into-English training run a packaged model (issue 54), as ship_model.sh does for the
# models out of English, on what a 2-core session can afford:
#   1. its weights in fp16 -> work/ship-LANG-en/LANG-en (the checkpoint to commit); the run's
#      tokenizer with the control tokens of the en-LANG model it started from made unused
#      (tokenizer.without_symbols: ids kept), as `traductor train` now does itself for such a run
#   2. the int8 bundle with the reversed corpus's translation memory, parity checked on 200 dev
#      sources -> work/ship-LANG-en/int8 (what `traductor serve` loads, once copied to models/)
#
#   scripts/model/ship_into_english.sh LANG [CHECKPOINT]   (reads work/LANG-en, or CHECKPOINT: an averaged
#                                                           one, and work/corpus-LANG-en)
set -euo pipefail
l=$1; ckpt=${2:-work/$l-en}; corpus=work/corpus-$l-en; out=work/ship-$l-en; name=$l-en
export PATH=$PWD/.venv/bin:$PATH
rm -rf $out; mkdir -p $out
python - "$ckpt" "$out/$name" <<'PY'
import json, shutil, sys
from pathlib import Path
from safetensors.torch import load_file, save_file
from traductor.model import controls
from traductor.model.tokenizer import without_symbols
src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
weights = load_file(src / "model.safetensors")
save_file({k: v.half() if v.is_floating_point() else v for k, v in weights.items()}, out / "model.safetensors")
shutil.copy(src / "config.json", out / "config.json")
(out / "tokenizer.model").write_bytes(without_symbols((src / "tokenizer.model").read_bytes(), controls.TOKENS))
print(json.dumps({"checkpoint": str(out), "tensors": len(weights)}))
PY
head -n 200 $corpus/dev.tsv > $out/parity.tsv
traductor export --checkpoint $out/$name --out $out/int8 --quantize int8 --parity-tsv $out/parity.tsv --memory $corpus/memory.tsv --force
