# Sourced by the other scripts: the tools setup.sh installed come first on PATH, npm's
# wasm-opt (binaryen ≥ 117) before any system one.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$_root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
unset _root
