#!/bin/sh
# Trunk's post_build hook (Trunk.toml). Trunk starts the hooks of one stage together, so
# the steps that must follow each other are one hook: first the service worker (it lists
# the build's files), then the precompressed copies (which it must not list).
set -eu
here="$(dirname "$0")"
sh "$here/service-worker.sh"
node "$here/precompress.mjs"
