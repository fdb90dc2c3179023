//! The head picker of the decode and tiles views: a menu whose values are the heads'
//! indices (from 0, as the tensors count) and whose labels are the heads' numbers as the
//! cards and the explanations write them (from 1).

use leptos::prelude::*;

/// "`caption`" and a menu of `heads` heads with `head` selected; picking one sets `head`,
/// then runs `on_pick` (the tiles view starts the new head at its first tile).
#[component]
pub fn HeadPicker(
    /// The words before the menu: "Query ", "Show ".
    caption: &'static str,
    /// The menu's `data-testid`.
    testid: &'static str,
    /// How many heads there are.
    #[prop(into)]
    heads: Signal<usize>,
    /// The selected head's index.
    head: RwSignal<usize>,
    /// What else picking a head does.
    #[prop(optional)]
    on_pick: Option<Callback<()>>,
) -> impl IntoView {
    let options = move || {
        (0..heads.get())
            .map(|h| {
                view! {
                    <option value=h.to_string() selected=move || head.get() == h>
                        {format!("head {}", h + 1)}
                    </option>
                }
            })
            .collect_view()
    };
    view! {
        <label class="al-head-pick">
            {caption}
            <select
                data-testid=testid
                on:change=move |ev| {
                    head.set(event_target_value(&ev).parse().unwrap_or(0));
                    if let Some(f) = on_pick {
                        f.run(());
                    }
                }
            >
                {options}
            </select>
        </label>
    }
}
