#!/usr/bin/env bash
# Installs what is missing, then serves the app with live reload.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
port="${PORT:-8080}"
echo
echo "Attention Lens: open http://127.0.0.1:${port}/ in your browser (Ctrl-C to stop)"
echo
exec trunk serve --offline --address 127.0.0.1 --port "$port" "$@"
