//! The word-order lesson's similarity table: `PE · PEᵀ`, the dot product of every two
//! positions' encodings ([`lessons::position_similarity`]), one row and one column per
//! position (from 0, as the formula counts), each cell coloured (viridis, smallest to largest)
//! and written out, so the picture is its own text equivalent; the cells the step's words
//! quote are outlined (`al-highlight`, as a heatmap's table marks them).

use std::sync::Arc;

use leptos::prelude::*;

use crate::draw::scale::{Scale, ScaleKind};
use crate::engine::Trace;
use crate::format::short;
use crate::lessons;

use crate::ui::widgets::note::note;
use crate::ui::widgets::table_head::matrix_head;

/// The most positions shown (T may be 128).
const MAX_SIDE: usize = 16;

/// `PE · PEᵀ` of the shown trace as a coloured table (nothing without positions).
#[component]
pub fn PositionSimilarity(
    /// The shown trace.
    #[prop(into)]
    trace: Signal<Option<Arc<Trace>>>,
    /// The cells the step's words quote, `(row, column)`: outlined.
    quoted: &'static [(usize, usize)],
) -> impl IntoView {
    move || trace.get().map(|t| similarity_table(&t, quoted))
}

/// `PE · PEᵀ` of `t` as a coloured table, the `quoted` cells outlined, or a note that `t`
/// has no positions.
fn similarity_table(t: &Trace, quoted: &[(usize, usize)]) -> AnyView {
    let sim = lessons::position_similarity(t);
    if sim.is_empty() {
        return note(
            "position-similarity-none",
            "This scenario has no positional encoding: turn positions on to compare them.",
        );
    }
    let n = sim.len().min(MAX_SIDE);
    // viridis from the smallest to the largest shown: every product here is positive
    let shown = || sim.iter().take(n).flat_map(|r| r.iter().take(n)).copied().filter(|v| v.is_finite());
    let (lo, hi) = (shown().fold(f64::INFINITY, f64::min), shown().fold(f64::NEG_INFINITY, f64::max));
    let scale = Scale { kind: ScaleKind::Sequential, lo, hi };
    // the columns by number alone (the corner says they are positions): twelve of
    // them fit a projected column at a size read from the back of the room
    let head = (0..n).map(|j| view! { <th scope="col">{j}</th> }).collect_view();
    let body = sim
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, row)| {
            let cells = row
                .iter()
                .take(n)
                .enumerate()
                .map(|(j, &v)| {
                    let bg = scale.color(v);
                    let fg = Scale::text_on(bg);
                    let style = format!(
                        "background: rgb({}, {}, {}); color: rgb({}, {}, {})",
                        bg.0, bg.1, bg.2, fg.0, fg.1, fg.2
                    );
                    let marked = quoted.contains(&(i, j));
                    view! {
                        <td style=style class:al-highlight=marked>
                            {short(v)}
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row">{format!("pos {i}")}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    let cut = (sim.len() > n).then(|| format!(" The first {n} of {} positions.", sim.len()));
    view! {
        <figure class="al-similarity" data-testid="position-similarity" tabindex="0">
            <figcaption>
                {format!(
                    "PE · PEᵀ: the dot product of two positions' codes, row = one position, column = the other (from 0).{}{}",
                    if quoted.is_empty() { "" } else { " Outlined: the products the words quote." },
                    cut.unwrap_or_default(),
                )}
            </figcaption>
            <table class="al-table">{matrix_head("pos \\ pos", head)} <tbody>{body}</tbody></table>
        </figure>
    }
    .into_any()
}
