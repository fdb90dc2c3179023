// The first-paint worker's entry (index.html's head starts it for an explorer link):
// wasm-bindgen's no-modules script, then its WebAssembly, passed as one object (Trunk's
// own loader shim passes the path alone, which wasm-bindgen warns about on every start).
importScripts('./first_paint.js');
wasm_bindgen({ module_or_path: './first_paint_bg.wasm' });
