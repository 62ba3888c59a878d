#!/usr/bin/env bash
# Install traductor and everything its commands and tests need, on a fresh Python 3.11.
#   torch     first, pinned: on these machines `torch==2.13.0` is a local CPU wheel, while a bare
#             `torch` requirement would pull gigabytes of CUDA packages
#   client    the traductor-client distribution (generated gRPC code, client library, CLI)
#   server    the traductor distribution with the training/export and test extras
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -e ./client -e ".[train,test]"
