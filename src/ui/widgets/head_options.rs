//! The `<option>`s of a head picker, shared by the decode and tiles views: the value is
//! the head's index (from 0, as the tensors count), the label the head's number as the
//! cards and the explanations write it (from 1).

use leptos::prelude::*;

/// One option per head, `head` selected.
#[component]
pub fn HeadOptions(
    /// How many heads there are.
    #[prop(into)]
    heads: Signal<usize>,
    /// The selected head's index.
    #[prop(into)]
    head: Signal<usize>,
) -> impl IntoView {
    move || {
        (0..heads.get())
            .map(|h| {
                view! {
                    <option value=h.to_string() selected=move || head.get() == h>
                        {format!("head {}", h + 1)}
                    </option>
                }
            })
            .collect_view()
    }
}
