#!/usr/bin/env bash
# Create (or bring up to date) the anchors' virtual environments under work/venvs/.
#
#   bash benchmarks/setup.sh            # both venvs
#   bash benchmarks/setup.sh anchors    # PyTorch + CTranslate2 only
#   bash benchmarks/setup.sh optimum    # Optimum ONNX Runtime only
#
# Each venv sees the system site-packages (torch 2.13.0 CPU), and every install uses
# benchmarks/constraints.txt so that pip never swaps torch for a CUDA build.
# Idempotent: a venv whose requirements file is unchanged since its last successful
# install is left alone (a stamp holds the file's checksum); otherwise pip runs again.
# Exit status is non-zero if any requested venv failed; the others are still set up.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
VENVS="$ROOT/work/venvs"
PYTHON="${PYTHON:-python3}"

if ! "$PYTHON" -c "import torch" >/dev/null 2>&1; then
    echo "setup: installing the CPU torch wheel into $PYTHON" >&2
    "$PYTHON" -m pip install torch==2.13.0 || { echo "setup: torch install failed" >&2; exit 1; }
fi

setup_venv() {
    local name="$1" req="$HERE/requirements-$1.txt"
    local venv="$VENVS/$name" stamp="$VENVS/$name/.requirements.sha256"
    local want
    want="$(cat "$req" "$HERE/constraints.txt" | sha256sum | cut -d' ' -f1)"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        echo "setup: $name venv up to date ($venv)" >&2
        return 0
    fi
    echo "setup: installing $name venv ($venv)" >&2
    mkdir -p "$VENVS"
    if [[ ! -x "$venv/bin/python" ]]; then
        "$PYTHON" -m venv --system-site-packages "$venv" || return 1
    fi
    "$venv/bin/python" -m pip install --disable-pip-version-check \
        -r "$req" -c "$HERE/constraints.txt" || return 1
    # Guard: the venv must still use the system's CPU torch.
    "$venv/bin/python" - <<'PY' || return 1
import torch, sys
if torch.version.cuda is not None:
    sys.exit(f"setup: a CUDA torch ({torch.__version__}) got into the venv")
print(f"setup: torch {torch.__version__} (CPU)", file=sys.stderr)
PY
    echo "$want" > "$stamp"
}

status=0
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(anchors optimum)
for name in "${targets[@]}"; do
    case "$name" in
        anchors|optimum) setup_venv "$name" || { echo "setup: $name venv FAILED" >&2; status=1; } ;;
        *) echo "setup: unknown venv '$name' (anchors, optimum)" >&2; status=2 ;;
    esac
done
exit $status
