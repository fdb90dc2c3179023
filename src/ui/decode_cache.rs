//! The decode view's K and V cache tables: the newest rows of the shown K/V head, keyed by
//! position (a step adds and removes a row or two), the row that just left the window
//! marked.

use std::sync::Arc;

use leptos::prelude::*;

use super::decode_data::{self as data, listed_rows, token_label};
use super::decode_position::{At, Ctx};
use super::scroll_region::scroll_region;
use super::text_fit::{may_overflow, ROW_HEADER_FITS};
use crate::engine::{DecodeStep, Decoded, Trace};
use crate::format::{exact, short};

/// The newest cache rows listed in the K and V tables.
const MAX_ROWS: usize = 8;
/// The first numbers of a row listed (d_k may be up to 512).
pub(super) const MAX_COLS: usize = 8;

/// One row of a cache table: kept on screen while its key stays (a position's key and
/// value never change, so a step adds a row and removes one, and the row that was new
/// only changes its class and label).
#[derive(Debug, Clone, PartialEq)]
struct CacheRow {
    /// The decoding it is from (its address), so that a new scenario replaces every row.
    generation: usize,
    /// The sentence and K/V head shown: another one's row at the same position has
    /// other numbers.
    b: usize,
    kv_head: usize,
    pos: usize,
    slot: &'static str,
    label: String,
    values: Vec<f64>,
    more: bool,
}

/// The rows of the K or V table at the current position: the row that left (if one
/// did), then the newest [`MAX_ROWS`] rows, the first [`MAX_COLS`] numbers of each.
fn cache_rows_now(
    d: &Arc<Decoded>,
    p: &DecodeStep,
    full: Option<&Trace>,
    at: At,
    which: char,
) -> Vec<CacheRow> {
    let generation = Arc::as_ptr(d) as usize;
    let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
    fn pick(s: &DecodeStep, which: char) -> &ndarray::Array4<f64> {
        if which == 'K' {
            &s.k_cache
        } else {
            &s.v_cache
        }
    }
    let cols = at.d_k.min(MAX_COLS);
    let row = |pos: usize, slot: &'static str, values: &[f64]| CacheRow {
        generation,
        b: at.b,
        kv_head: at.kv_head,
        pos,
        slot,
        label: match slot {
            "evicted" => format!("{} (left)", token_label(key_tokens, pos)),
            "new" => format!("{} (new)", token_label(key_tokens, pos)),
            _ => token_label(key_tokens, pos),
        },
        values: values.iter().take(cols).copied().collect(),
        more: at.d_k > cols,
    };
    let mut out = Vec::new();
    // the evicted row's numbers are in the previous position's cache
    if let Some(e) = p.evicted {
        let prev = p.t.checked_sub(1).and_then(|t| d.positions.get(t));
        if let Some(prev) = prev {
            let i = prev.cache_positions.iter().position(|&x| x == e);
            if let Some(values) =
                i.and_then(|i| data::cache_rows(pick(prev, which), at.b, at.kv_head).into_iter().nth(i))
            {
                out.push(row(e, "evicted", &values));
            }
        }
    }
    let rows = data::cache_rows(pick(p, which), at.b, at.kv_head);
    for l in listed_rows(rows.len(), MAX_ROWS) {
        let (Some(&pos), Some(values)) = (p.cache_positions.get(l), rows.get(l)) else { continue };
        let slot = if pos == p.t && !d.cross { "new" } else { "cached" };
        out.push(row(pos, slot, values));
    }
    out
}

/// The longest listed label and number, in characters: the widths the table's fixed
/// layout gives its columns (`style/decode.css`). With fixed widths a step lays out the
/// rows it adds and removes, not every column of the table again.
fn column_chars(rows: &[CacheRow]) -> (usize, usize) {
    let label = rows.iter().map(|r| r.label.chars().count()).max().unwrap_or(0).max("position".len());
    let number = rows
        .iter()
        .flat_map(|r| r.values.iter())
        .map(|&x| short(x).chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    (label, number)
}

/// The K or V cache table of the shown K/V head, its rows keyed.
pub(super) fn cache_table(ctx: Ctx, which: char) -> impl IntoView {
    let rows = Memo::new(move |_| {
        ctx.with(|d, p, full, at| cache_rows_now(d, p, full, at, which)).unwrap_or_default()
    });
    let caption = move || {
        ctx.with(|_, _, _, at| {
            let listed = at.len.min(MAX_ROWS);
            let cols = at.d_k.min(MAX_COLS);
            format!(
                "{which} cache, K/V head {}: {} row{} × d_k = {}{}{}",
                at.kv_head + 1,
                at.len,
                if at.len == 1 { "" } else { "s" },
                at.d_k,
                if at.len > listed {
                    format!(" ({} older rows not listed)", at.len - listed)
                } else {
                    String::new()
                },
                if at.d_k > cols { format!(", the first {cols} numbers of each") } else { String::new() },
            )
        })
    };
    let widths = Memo::new(move |_| rows.with(|r| column_chars(r)));
    // d_k, not t: the header is built again only for another decoding
    let d_k = Memo::new(move |_| ctx.with(|_, _, _, at| at.d_k).unwrap_or(0));
    let header = move || {
        let d_k = d_k.get();
        let cols = d_k.min(MAX_COLS);
        view! {
            <tr>
                <th scope="col">"position"</th>
                {(0..cols).map(|c| view! { <th scope="col">{c.to_string()}</th> }).collect_view()}
                {(d_k > cols).then(|| view! { <th scope="col">"…"</th> })}
            </tr>
        }
    };
    view! {
        {scroll_region(
            format!("the {which} cache as a table"),
            view! {
                <table
                    class="al-table al-cache-table"
                    data-testid=format!("{}-cache", which.to_ascii_lowercase())
                    style=move || {
                        let (label, number) = widths.get();
                        format!("--al-label-chars: {label}; --al-num-chars: {number}")
                    }
                >
                    <caption>{caption}</caption>
                    <thead>{header}</thead>
                    <tbody>
                        <For
                            each=move || rows.get()
                            key=|r| (r.generation, r.b, r.kv_head, r.pos)
                            children=move |r| {
                                let CacheRow { generation, b, kv_head, pos, values, more, .. } = r;
                                let now = Memo::new(move |_| {
                                    rows.with(|rows| {
                                            rows.iter()
                                                .find(|r| {
                                                    (r.generation, r.b, r.kv_head, r.pos)
                                                        == (generation, b, kv_head, pos)
                                                })
                                                .map(|r| (r.slot, r.label.clone()))
                                        })
                                        .unwrap_or_default()
                                });
                                let slot = move || now.with(|n| n.0);
                                // the row's slot and label follow the step (new, then
                                // cached, then left): its numbers stay
                                view! {
                                    <tr
                                        class:al-row-new=move || slot() == "new"
                                        class:al-row-evicted=move || slot() == "evicted"
                                        data-slot=slot
                                        data-pos=pos
                                    >
                                        <th
                                            scope="row"
                                            class:al-clip=move || {
                                                now.with(|n| may_overflow(&n.1, ROW_HEADER_FITS))
                                            }
                                        >
                                            {move || now.with(|n| n.1.clone())}
                                        </th>
                                        {values
                                            .into_iter()
                                            .map(|x| view! { <td data-value=exact(x)>{short(x)}</td> })
                                            .collect_view()}
                                        {more.then(|| view! { <td>"…"</td> })}
                                    </tr>
                                }
                            }
                        />
                    </tbody>
                </table>
            },
        )}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, values: &[f64]) -> CacheRow {
        CacheRow {
            generation: 0,
            b: 0,
            kv_head: 0,
            pos: 0,
            slot: "cached",
            label: label.to_owned(),
            values: values.to_vec(),
            more: false,
        }
    }

    #[test]
    fn the_columns_fit_the_longest_label_and_number() {
        assert_eq!(column_chars(&[]), (8, 1));
        let rows = [row("3 bat", &[0.5, -1.25]), row("60 w16 (new)", &[-12.5, f64::NEG_INFINITY])];
        // "-12.50" is the longest number, "60 w16 (new)" the longest label
        assert_eq!(column_chars(&rows), (12, 6));
        assert_eq!(column_chars(&[row("x", &[-2e9])]), (8, 4));
    }
}
