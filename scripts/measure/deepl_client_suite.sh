#!/usr/bin/env bash
# DeepL's own client test suite (deepl-python's tests/) in its real-server mode against a traductor
# server started here on the packaged models, one test module at a time (docs/deepl-api.md lists
# the tests that still fail and why).
#
#   scripts/measure/deepl_client_suite.sh [DEEPL_PYTHON_CHECKOUT] [OUT_DIR]
#
# DEEPL_PYTHON_CHECKOUT: a checkout of github.com/DeepLcom/deepl-python (default /tmp/deepl-python;
# it is never copied into this repository). A throwaway virtualenv ($OUT_DIR/venv) gets the `deepl`
# release of the checkout's version and the suite's test requirements (pydantic 1, pytest, click).
# The server: `traductor serve --threads 1` with an administrator key (--token), a fresh glossary
# directory, the HTTP API on a free port; the suite reads DEEPL_SERVER_URL and DEEPL_AUTH_KEY, and
# DEEPL_MOCK_SERVER_PORT is unset (real-server mode). Each module's pytest output goes to
# $OUT_DIR/<module>.txt; the last line printed is the total. SUITE_MODEL_REPOSITORY=DIR serves that
# model repository instead of the packaged models (docs/deepl-api.md: a stand-in German source).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
checkout=${1:-/tmp/deepl-python}
out=${2:-/tmp/deepl-client-suite}
mkdir -p "$out"
[ -f "$checkout/deepl/version.py" ] || { echo "no deepl-python checkout at $checkout" >&2; exit 2; }
version=$(sed -n 's/^VERSION = "\(.*\)"/\1/p' "$checkout/deepl/version.py")
if [ ! -x "$out/venv/bin/python" ]; then
    "$here/.venv/bin/python" -m venv "$out/venv"
    "$out/venv/bin/pip" install -q "deepl==$version" "pydantic>=1.8.1,<2" "pytest>=8.4,<9" pytest-timeout \
        typing_extensions requests click
fi
port=$("$here/.venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
key="suite-$RANDOM$RANDOM"
rm -rf "$out/glossaries"
OMP_NUM_THREADS=1 "$here/.venv/bin/traductor" serve --http-port "$port" --port 0 --metrics-port 0 --threads 1 \
    --token "$key" --glossary-dir "$out/glossaries" ${SUITE_MODEL_REPOSITORY:+--model-repository "$SUITE_MODEL_REPOSITORY" --default-model en-es} \
    >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$port/v2/usage" -H "Authorization: DeepL-Auth-Key $key" >/dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
    sleep 1
done
export DEEPL_SERVER_URL="http://127.0.0.1:$port" DEEPL_AUTH_KEY="$key"
unset DEEPL_MOCK_SERVER_PORT DEEPL_PROXY_URL DEEPL_MOCK_PROXY_SERVER_PORT
passed=0 failed=0 skipped=0 errors=0
cd "$checkout"
for module in tests/test_*.py; do
    name=$(basename "$module" .py)
    "$out/venv/bin/python" -m pytest "$module" -q -p no:cacheprovider -rfE --timeout=300 >"$out/$name.txt" 2>&1 || true
    summary=$(tail -1 "$out/$name.txt")
    echo "$name: $summary"
    for kind in passed failed skipped error; do
        n=$(grep -oE "[0-9]+ $kind" <<<"$summary" | grep -oE "^[0-9]+" || echo 0)
        case $kind in passed) passed=$((passed + n)) ;; failed) failed=$((failed + n)) ;;
            skipped) skipped=$((skipped + n)) ;; error) errors=$((errors + n)) ;; esac
    done
done
grep -h -E "^(FAILED|ERROR) " "$out"/test_*.txt | sed 's/ - .*//' >"$out/failing.txt" || true
echo "deepl-python $version: $passed passed, $failed failed, $skipped skipped, $errors errors (failing: $out/failing.txt)"
