#!/usr/bin/env bash
# Install traductor and everything its commands and tests need, on a fresh Python 3.11.
#   torch     first, pinned: on these machines `torch==2.13.0` is a local CPU wheel, while a bare
#             `torch` requirement would pull gigabytes of CUDA packages
#   client    the traductor-client distribution (generated gRPC code, client library, CLI)
#   server    the traductor distribution with the training/export and test extras
#   export    the traductor-export distribution (export/): the exporter, its commands registered
#             through entry points (traductor export, traductor import)
#   system    Debian packages the tests use, when run as root with apt-get (CI): GNU gettext
#             (msgfmt) and Qt's lconvert/lrelease (qt6-l10n-tools) validate translated files,
#             chromium + chromium-driver run the web page's browser tests. Elsewhere the tests
#             that need them skip, naming the package to install.
set -euo pipefail
cd "$(dirname "$0")/.."
APT_PACKAGES="gettext qt6-l10n-tools chromium chromium-driver"
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
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -e "./client[files]" -e ".[train,test]" -e ./export
