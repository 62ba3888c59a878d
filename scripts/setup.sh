#!/usr/bin/env bash
# Install traductor and everything its commands and tests need into a virtual environment,
# .venv in the repository root (git-ignored): nothing is installed into, upgraded in or removed
# from the Python it is made with. Run it again at any time: it reuses .venv and installs what
# changed. Afterwards run the commands as .venv/bin/traductor, .venv/bin/python -m pytest, or
# `source .venv/bin/activate` first.
#   python    $PYTHON (default: python3.11 if there is one, else python3), Python 3.11 or newer,
#             makes .venv once (delete .venv to make it again with another Python)
#   torch     first, pinned: on these machines `torch==2.13.0` is a local CPU wheel, while a bare
#             `torch` requirement would pull gigabytes of CUDA packages
#   client    the traductor-client distribution (generated gRPC code, client library, CLI)
#   server    the traductor distribution with the training/export and test extras (ruff, pytest)
#   export    the traductor-export distribution (export/): the exporter, its commands registered
#             through entry points (traductor export, traductor import)
#   system    Debian packages the tests use, when run as root with apt-get (CI): GNU gettext
#             (msgfmt) and Qt's lconvert/lrelease (qt6-l10n-tools) validate translated files,
#             chromium + chromium-driver run the web page's browser tests. Elsewhere the tests
#             that need them skip, naming the package to install.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
APT_PACKAGES="gettext qt6-l10n-tools chromium chromium-driver redis-server"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing=""
    for package in $APT_PACKAGES; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
    done
    if [ -n "$missing" ]; then
        echo "setup.sh: apt-get install$missing" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
fi
if [ ! -x "$VENV/bin/python" ]; then
    python="${PYTHON:-$(command -v python3.11 || command -v python3 || true)}"
    if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "setup.sh: needs Python 3.11 or newer to make $VENV (found: ${python:-no python3}); set PYTHON=/path/to/python3.11" >&2
        exit 1
    fi
    echo "setup.sh: making the virtual environment $VENV with $python" >&2
    "$python" -m venv "$VENV"
fi
pip=("$VENV/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" -e "./client[files]" -e ".[train,test]" -e ./export
echo "setup.sh: installed in $VENV (run .venv/bin/traductor, or source .venv/bin/activate)" >&2
