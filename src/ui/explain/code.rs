//! The explained cell as code: its PyTorch line and its LaTeX, each with a copy button
//! (the clipboard is [`crate::ui::platform::clipboard`]).

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::engine::explain::Explanation;
use crate::ui::explain::cell_state::CellState;
use crate::ui::platform::clipboard;

/// The PyTorch and LaTeX of the explained cell; nothing while its value is hidden for a
/// guess. The buttons are made once and read the texts when clicked.
#[component]
pub fn ExplainCode(
    /// The panel's state for the explained cell (the copy status).
    state: CellState,
    /// The explanation, when its answer may be shown.
    #[prop(into)]
    told: Signal<Option<Arc<Explanation>>>,
) -> impl IntoView {
    let py_ref = NodeRef::<leptos::html::Code>::new();
    let tex_ref = NodeRef::<leptos::html::Code>::new();
    let tex_open = RwSignal::new(false);
    let code = Memo::new(move |_| told.get().map(|e| (e.pytorch.clone(), e.latex.clone())));
    let has_code = Memo::new(move |_| code.with(Option::is_some));
    let set_status = move |text: String| state.set_status(text);
    let copy_py = move |_| {
        if let Some(py) = code.with_untracked(|c| c.as_ref().map(|c| c.0.clone())) {
            clipboard::copy_or_select(py, py_ref.get_untracked(), set_status);
        }
    };
    let copy_tex = move |_| {
        tex_open.set(true);
        if let Some(tex) = code.with_untracked(|c| c.as_ref().map(|c| c.1.clone())) {
            clipboard::copy_or_select(tex, tex_ref.get_untracked(), set_status);
        }
    };
    let on_toggle = move |ev: leptos::ev::Event| {
        let open = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .is_some_and(|d| d.open());
        tex_open.set(open);
    };
    view! {
        <Show when=move || has_code.get()>
            <div class="al-ex-code">
                <p class="al-ex-h">"PyTorch"</p>
                <code class="al-pytorch" node_ref=py_ref data-testid="explain-pytorch">
                    {move || code.with(|c| c.as_ref().map(|c| c.0.clone()))}
                </code>
                <div class="al-ex-buttons">
                    <button type="button" class="al-small" data-testid="explain-copy" on:click=copy_py>
                        "Copy PyTorch"
                    </button>
                    <button type="button" class="al-small" data-testid="explain-copy-latex" on:click=copy_tex>
                        "Copy as LaTeX"
                    </button>
                    <span class="al-ex-status" role="status">
                        {move || state.status()}
                    </span>
                </div>
                <details class="al-ex-latex" prop:open=move || tex_open.get() on:toggle=on_toggle>
                    <summary>"LaTeX"</summary>
                    <code node_ref=tex_ref data-testid="explain-latex">
                        {move || code.with(|c| c.as_ref().map(|c| c.1.clone()))}
                    </code>
                </details>
            </div>
        </Show>
    }
}
