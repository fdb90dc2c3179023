//! The pipeline: every trace step in order, with the operation in words, the PyTorch
//! line and the shape, named and numeric. Selecting a row shows that step's tensors.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::trace::shape_text;
use crate::engine::{Step, StepName, Trace};

fn step_row(
    trace: &Trace,
    step: &Step,
    selected: Signal<StepName>,
    on_select: Callback<StepName>,
) -> impl IntoView {
    let name = step.name;
    let title = trace.step_title(name);
    let path = step
        .shape_path
        .iter()
        .map(|r| {
            view! {
                <li>
                    <code class="al-op">{r.op.to_string()}</code>
                    " → "
                    <span class="al-shape">{shape_text(&r.dims, &r.shape)}</span>
                </li>
            }
        })
        .collect_view();
    let has_path = !step.shape_path.is_empty();
    view! {
        <li
            class="al-step"
            class:al-selected=move || selected.get() == name
            data-testid="trace-step"
            data-step=name.as_str()
        >
            <button
                type="button"
                class="al-step-button"
                aria-pressed=move || (selected.get() == name).to_string()
                on:click=move |_| on_select.run(name)
            >
                <span class="al-step-name">{title}</span>
                <span class="al-shape" data-testid="step-shape">
                    {shape_text(&step.dims, &step.shape)}
                </span>
            </button>
            <p class="al-step-op">{step.op.clone()}</p>
            <code class="al-pytorch">{step.pytorch.clone()}</code>
            {has_path.then(|| view! { <ul class="al-shape-path">{path}</ul> })}
        </li>
    }
}

/// The list of steps; arrow keys move the selection.
#[component]
pub fn Pipeline(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The selected step.
    #[prop(into)]
    selected: Signal<StepName>,
    /// Selects a step.
    on_select: Callback<StepName>,
) -> impl IntoView {
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some(trace) = trace.get_untracked() else { return };
        let names: Vec<StepName> = trace.steps.iter().map(|s| s.name).collect();
        let i = names.iter().position(|n| *n == selected.get_untracked()).unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowDown" => i + 1,
            "ArrowUp" => i.saturating_sub(1),
            _ => return,
        };
        let Some(&next) = names.get(next) else { return };
        ev.prevent_default();
        on_select.run(next);
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            let sel = format!("[data-testid=trace-step][data-step={}] button", next.as_str());
            if let Ok(Some(el)) = doc.query_selector(&sel) {
                use wasm_bindgen::JsCast;
                if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
            }
        }
    };
    view! {
        <ol class="al-pipeline" on:keydown=on_key aria-label="The steps of multi-head attention">
            {move || {
                trace
                    .get()
                    .map(|t| t.steps.iter().map(|s| step_row(&t, s, selected, on_select)).collect_view())
            }}
        </ol>
    }
}
