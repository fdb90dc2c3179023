// The engine worker's entry (src/ui/state/engine/worker.rs starts it): wasm-bindgen's
// no-modules script, then its WebAssembly, passed as one object (Trunk's own loader shim
// passes the path alone, which wasm-bindgen warns about on every start).
importScripts('./engine_worker.js');
wasm_bindgen({ module_or_path: './engine_worker_bg.wasm' });
