//! The header rows of the app's tables: a row of fixed column names, or a matrix's row
//! with its corner cell (what the rows and the columns are) before the column labels; and
//! a whole matrix table with its caption. Functions, not components, so the labels may be
//! built from borrowed data.

use leptos::prelude::*;

/// A `<thead>` with one `<th scope="col">` per name.
pub fn column_heads(names: &[&'static str]) -> impl IntoView {
    let cells = names.iter().map(|&name| view! { <th scope="col">{name}</th> }).collect_view();
    view! {
        <thead>
            <tr>{cells}</tr>
        </thead>
    }
}

/// A matrix's `<thead>`: the corner cell's words (such as `query \ key`), then `columns`
/// (one `<th scope="col">` each).
pub fn matrix_head(corner: impl IntoView, columns: impl IntoView) -> impl IntoView {
    view! {
        <thead>
            <tr>
                <th scope="col">{corner}</th>
                {columns}
            </tr>
        </thead>
    }
}

/// A matrix as a captioned `<table>`: [`matrix_head`]'s row of `corner` and `columns`,
/// then `rows` (each a `<tr>`).
pub fn matrix_table(
    class: &'static str,
    testid: &'static str,
    caption: impl IntoView,
    corner: impl IntoView,
    columns: impl IntoView,
    rows: impl IntoView,
) -> impl IntoView {
    view! {
        <table class=class data-testid=testid>
            <caption>{caption}</caption>
            {matrix_head(corner, columns)}
            <tbody>{rows}</tbody>
        </table>
    }
}
