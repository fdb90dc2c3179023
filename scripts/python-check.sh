#!/usr/bin/env bash
# "Take it to Python": runs the engine's exported scripts and notebooks (trace --python,
# trace --notebook) in a project-local venv, .venv/, with the NumPy of
# tools/requirements.txt. See tools/python_check.py for what is checked. Ends with
# `N passed, M failed`.
#
#   scripts/python-check.sh           NumPy (part of `make test`; PyTorch checks run too
#                                     when torch is already in .venv)
#   scripts/python-check.sh --torch   also installs tools/requirements-torch.txt and
#                                     requires the PyTorch checks (`make check-torch`)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv || { echo "python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
# Pinned versions: pip downloads nothing once they are installed.
.venv/bin/pip install --quiet --disable-pip-version-check -r tools/requirements.txt
if [ "${1:-}" = "--torch" ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check -r tools/requirements-torch.txt
fi

cargo build --quiet -p attention-engine --example trace
.venv/bin/python tools/python_check.py --trace-bin "${CARGO_TARGET_DIR:-target}/debug/examples/trace" "$@"
