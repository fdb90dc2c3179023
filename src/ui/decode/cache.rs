//! The decode view's K and V cache tables: the newest rows of the shown K/V head, the row
//! that just left the window marked. Their caption and column widths are the decoding's,
//! the same at every position; a step rebuilds the rows in place (one render effect a
//! table, see [`cache_table`]).

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::{DecodeStep, Decoded, Trace};
use crate::format::{exact, short};
use crate::ui::decode::data::{self as data, listed_rows, token_label};
use crate::ui::decode::position::{At, Ctx};
use crate::ui::widgets::scroll_region::scroll_region;
use crate::ui::widgets::text_fit::{may_overflow, ROW_HEADER_FITS};

/// The header over the rows: each is one position (its number and token).
const ROW_HEADER: &str = "position ↓";

/// The number columns a table of `width`-wide rows lists, and whether "…" follows them.
fn header_columns(width: usize) -> (usize, bool) {
    let cols = width.min(MAX_COLS);
    (cols, width > cols)
}

/// The newest cache rows listed in the K and V tables.
const MAX_ROWS: usize = 8;
/// The first numbers of a row listed (d_k may be up to 512). Four, with the label, fit
/// the table's half of the view at 1440 px without a sideways scroll, and every number a
/// step shifts costs the browser a text layout.
const MAX_COLS: usize = 4;

/// One row of a cache table: the position, its slot (new, cached or left), its label
/// and its first [`MAX_COLS`] numbers.
#[derive(Debug, Clone, PartialEq)]
struct CacheRow {
    pos: usize,
    slot: &'static str,
    label: String,
    values: Vec<f64>,
    more: bool,
}

/// A position's K or V cache, or under MLA what stands in their place: the latents `c_KV`
/// (for K, as one shared head) and the shared RoPE keys (for V).
fn pick(s: &DecodeStep, which: char) -> ndarray::ArrayView4<'_, f64> {
    match (&s.latent, which) {
        (Some(l), 'K') => l.c_kv.view(),
        (Some(l), _) => l.k_rope.view(),
        (None, 'K') => s.k_cache.view(),
        (None, _) => s.v_cache.view(),
    }
}

/// The rows of the K or V table at the current position, in the order of their
/// positions: the kept first keys, the row that left (if one did), then the newest
/// [`MAX_ROWS`] rows, the first [`MAX_COLS`] numbers of each.
fn cache_rows_now(
    d: &Arc<Decoded>,
    p: &DecodeStep,
    full: Option<&Trace>,
    at: At,
    which: char,
) -> Vec<CacheRow> {
    let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
    let width = at.width(which);
    let cols = width.min(MAX_COLS);
    let row = |pos: usize, slot: &'static str, values: Vec<f64>| CacheRow {
        pos,
        slot,
        label: match slot {
            "evicted" => format!("{} (left)", token_label(key_tokens, pos)),
            "new" => format!("{} (new)", token_label(key_tokens, pos)),
            "kept" => format!("{} (kept)", token_label(key_tokens, pos)),
            _ => token_label(key_tokens, pos),
        },
        values,
        more: width > cols,
    };
    let mut out = Vec::new();
    // the evicted row's numbers are in the previous position's cache
    if let Some(e) = p.evicted {
        let prev = p.t.checked_sub(1).and_then(|t| d.positions.get(t));
        let values = prev.and_then(|prev| {
            let i = prev.cache_positions.iter().position(|&x| x == e)?;
            data::cache_row(pick(prev, which), at.b, at.cache_head(), i, cols)
        });
        if let Some(values) = values {
            out.push(row(e, "evicted", values));
        }
    }
    for l in listed_rows(at.len, MAX_ROWS, p.kept) {
        let (Some(&pos), Some(values)) =
            (p.cache_positions.get(l), data::cache_row(pick(p, which), at.b, at.cache_head(), l, cols))
        else {
            continue;
        };
        let slot = if pos == p.t && !d.cross {
            "new"
        } else if l < p.kept {
            "kept"
        } else {
            "cached"
        };
        out.push(row(pos, slot, values));
    }
    // the row that left sits between the kept first keys and the window's rows
    out.sort_by_key(|r| r.pos);
    out
}

/// The longest of `labels` and of `numbers` (as the table shows them), in characters:
/// the widths the table's fixed layout gives its columns (`style/decode.css`).
fn column_chars<'a>(
    labels: impl Iterator<Item = &'a str>,
    numbers: impl Iterator<Item = f64>,
) -> (usize, usize) {
    let label = labels.map(|l| l.chars().count()).max().unwrap_or(0).max(ROW_HEADER.chars().count());
    let number = numbers.map(|x| short(x).chars().count()).max().unwrap_or(0).max(1);
    (label, number)
}

/// The column widths of the K or V table for a whole decoding (sentence `at.b`, K/V
/// head `at.kv_head`): the longest label any listed row takes at any position, and the
/// longest number of any row. The columns then keep their widths while the learner
/// steps, and a step does not lay out the table's columns again.
fn decoding_column_chars(d: &Decoded, full: Option<&Trace>, at: At, which: char) -> (usize, usize) {
    let key_tokens: &[String] = full.map(|f| f.key_tokens(at.b)).unwrap_or(&[]);
    let cols = at.width(which).min(MAX_COLS);
    // every key position's label, with the longest mark it can carry
    let mark = if d.positions.iter().any(|p| p.evicted.is_some()) {
        " (left)"
    } else if d.cross {
        ""
    } else {
        " (new)"
    };
    let keys = data::key_count(d);
    let labels: Vec<String> = (0..keys).map(|j| format!("{}{mark}", token_label(key_tokens, j))).collect();
    // a key's row never changes once written: each position's newest row is every row
    // (self-attention); a cross-attention cache is the same at every position
    let rows: Vec<Vec<f64>> = if d.cross {
        let first = d.positions.first();
        (0..keys)
            .filter_map(|l| {
                first.and_then(|p| data::cache_row(pick(p, which), at.b, at.cache_head(), l, cols))
            })
            .collect()
    } else {
        d.positions
            .iter()
            .filter_map(|p| {
                let newest = p.cache_positions.len().checked_sub(1)?;
                data::cache_row(pick(p, which), at.b, at.cache_head(), newest, cols)
            })
            .collect()
    };
    column_chars(labels.iter().map(String::as_str), rows.iter().flatten().copied())
}

/// The K or V table's caption: the same at every position, and short (presenter mode
/// fits a lesson step on one screen). How many rows it lists, when not all, is in the
/// shape line above ([`listed_words`]). Under MLA the tables are the latent and the RoPE
/// key, one row per token shared by every head.
fn cache_caption(which: char, at: At) -> String {
    let width = at.width(which);
    let cols = width.min(MAX_COLS);
    let (name, size) = match (at.latent, which) {
        (Some(_), 'K') => ("c_KV cache, shared by every head".to_owned(), "r_kv"),
        (Some(_), _) => ("k_rot cache, shared by every head".to_owned(), "d_rope"),
        (None, 'K') => (format!("K cache, K/V head {}", at.kv_head + 1), "d_k"),
        // a value row is the value size d_v wide, not a key's d_k
        (None, _) => (format!("{which} cache, K/V head {}", at.kv_head + 1), "d_v"),
    };
    // the columns are a row's features: the caption, over them, says so
    let numbers = if width > cols {
        format!("the first {cols} of {size} = {width} features →")
    } else {
        format!("{size} = {width} features →")
    };
    format!("{name}: {numbers}")
}

/// What the shape line adds about the tables' rows at a cache of `len` rows, `kept` of
/// them kept first keys: nothing while they list every row.
pub(super) fn listed_words(len: usize, kept: usize) -> String {
    let listed = listed_rows(len, MAX_ROWS, kept).len();
    if len <= listed {
        String::new()
    } else if kept > 0 {
        format!(
            "; the tables below list the {kept} kept and the newest {} of its L = {len} rows",
            listed - kept.min(listed)
        )
    } else {
        format!("; the tables below list the newest {MAX_ROWS} of its L = {len} rows")
    }
}

/// One row of a cache table, from plain values.
fn cache_row_view(r: &CacheRow) -> impl IntoView {
    let class = match r.slot {
        "new" => "al-row-new",
        "evicted" => "al-row-evicted",
        "kept" => "al-row-kept",
        _ => "",
    };
    let clip = if may_overflow(&r.label, ROW_HEADER_FITS) { "al-clip" } else { "" };
    view! {
        <tr class=class data-slot=r.slot data-pos=r.pos.to_string()>
            <th scope="row" class=clip>
                {r.label.clone()}
            </th>
            {r.values.iter().map(|&x| view! { <td data-value=exact(x)>{short(x)}</td> }).collect::<Vec<_>>()}
            {r.more.then(|| view! { <td>"…"</td> })}
        </tr>
    }
}

/// The K or V cache table of the shown K/V head. Its rows are one render effect: a Vec
/// of rows of plain values that Tachys rebuilds in place, setting only the texts and
/// attributes that changed (a step shifts the listed rows by one, so most numbers change
/// anyway; a keyed list, with a memo and five effects per row, costs as much:
/// BENCHMARKS.md).
pub(super) fn cache_table(ctx: Ctx, which: char) -> impl IntoView {
    let rows = Memo::new(move |_| {
        ctx.with(|d, p, full, at| cache_rows_now(d, p, full, at, which)).unwrap_or_default()
    });
    // The caption and the column widths: once per decoding, sentence and head. What a
    // step changes (L, how many rows are listed) is in the shape line above the tables.
    let caption =
        Memo::new(move |_| ctx.with_decoding(|_, _, at| cache_caption(which, at)).unwrap_or_default());
    let widths = Memo::new(move |_| {
        ctx.with_decoding(|d, full, at| decoding_column_chars(d, full, at, which)).unwrap_or((10, 1))
    });
    // the width, not t: the header is built again only for another decoding
    let d_k = Memo::new(move |_| ctx.with_decoding(|_, _, at| at.width(which)).unwrap_or(0));
    // The rows are positions ("position ↓" over their labels) and the columns a row's
    // features (the caption ends "features →"): one header row, so that presenter mode's
    // step still fits 720 px. The column widths are the <col>s'.
    let header = move || {
        let d_k = d_k.get();
        let (cols, more) = header_columns(d_k);
        let numbers = cols + usize::from(more);
        view! {
            <colgroup>
                <col class="al-col-label" />
                {(0..numbers).map(|_| view! { <col /> }).collect_view()}
            </colgroup>
            <thead>
                <tr>
                    <th scope="col">{ROW_HEADER}</th>
                    {(0..cols).map(|c| view! { <th scope="col">{c.to_string()}</th> }).collect_view()}
                    {more.then(|| view! { <th scope="col">"…"</th> })}
                </tr>
            </thead>
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
                    {header}
                    <tbody>
                        {move || rows.with(|rows| rows.iter().map(cache_row_view).collect::<Vec<_>>())}
                    </tbody>
                </table>
            },
        )}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{decode, run, Scenario};

    #[test]
    fn the_caption_is_the_decodings_and_the_shape_line_counts_the_rows() {
        let at = |kv_head, d_k, latent| At {
            batch_len: 1,
            h_kv: 3,
            len: 1,
            d_k,
            d_v: d_k,
            latent,
            b: 0,
            head: kv_head,
            kv_head,
        };
        assert_eq!(
            cache_caption('K', at(0, 64, None)),
            "K cache, K/V head 1: the first 4 of d_k = 64 features →"
        );
        assert_eq!(cache_caption('V', at(2, 4, None)), "V cache, K/V head 3: d_v = 4 features →");
        assert_eq!(
            cache_caption('V', at(0, 64, None)),
            "V cache, K/V head 1: the first 4 of d_v = 64 features →"
        );
        // under MLA: what is really cached, one row per token for every head
        let latent = at(2, 5, Some((8, 2)));
        assert_eq!(
            cache_caption('K', latent),
            "c_KV cache, shared by every head: the first 4 of r_kv = 8 features →"
        );
        assert_eq!(cache_caption('V', latent), "k_rot cache, shared by every head: d_rope = 2 features →");
        assert_eq!(listed_words(3, 0), "");
        assert_eq!(listed_words(8, 0), "");
        assert_eq!(listed_words(9, 0), "; the tables below list the newest 8 of its L = 9 rows");
        assert_eq!(
            listed_words(10, 4),
            "; the tables below list the 4 kept and the newest 4 of its L = 10 rows"
        );
    }

    #[test]
    fn the_columns_fit_the_longest_label_and_number() {
        assert_eq!(column_chars(std::iter::empty(), std::iter::empty()), (10, 1));
        // "-12.50" is the longest number, "60 w16 (new)" the longest label
        let labels = ["3 bat", "60 w16 (new)"];
        assert_eq!(
            column_chars(labels.into_iter(), [0.5, -1.25, -12.5, f64::NEG_INFINITY].into_iter()),
            (12, 6)
        );
        assert_eq!(column_chars(["x"].into_iter(), [-2e9].into_iter()), (10, 4));
        assert_eq!(header_columns(3), (3, false));
        assert_eq!(header_columns(64), (4, true));
    }

    /// Multi-head latent attention with RoPE, for [`decoded`]'s `extra`.
    const LATENT: &str = r#", "n_kv_heads": 2, "rope": {"style": "half"},
        "mla": {"kv_lora_rank": 3, "qk_nope_head_dim": 2, "qk_rope_head_dim": 2, "v_head_dim": 3}"#;

    /// One sentence of `words` (and `extra` JSON: a window, cross-attention, MLA), causal,
    /// d_model 4, h 2, h_kv 1 (unless `extra` says otherwise), decoded and run.
    fn decoded(words: &str, mask: &str, extra: &str) -> (Arc<Decoded>, Trace) {
        let kv = if extra.contains("n_kv_heads") { "" } else { r#""n_kv_heads": 1,"# };
        let s = Scenario::from_json(&format!(
            r#"{{"sentences": ["{words}"], "d_model": 4, "n_heads": 2, {kv}
                "projections": "seeded", "seed": 3, "mask": {{"causal": true{mask}}}{extra}}}"#
        ))
        .unwrap();
        (Arc::new(decode(&s).unwrap()), run(&s).unwrap())
    }

    /// With kept first keys beside a window, the row that just left is listed between
    /// them and the window's rows: every table lists its rows by position.
    #[test]
    fn the_rows_are_listed_by_position() {
        let (d, full) = decoded("bos the cat sat on the mat", r#", "window": 3, "keep_first": 1"#, "");
        let mut seen_evicted = false;
        for p in &d.positions {
            for which in ['K', 'V'] {
                let rows = cache_rows_now(&d, p, Some(&full), At::of(p, 0, 1), which);
                let pos: Vec<usize> = rows.iter().map(|r| r.pos).collect();
                assert!(pos.windows(2).all(|w| w[0] < w[1]), "t = {}: {pos:?}", p.t);
                seen_evicted |= rows.iter().any(|r| r.slot == "evicted") && rows[0].slot == "kept";
            }
        }
        assert!(seen_evicted, "a position where a row leaves beside a kept one");
    }

    #[test]
    fn the_widths_hold_every_row_the_table_lists_at_any_position() {
        let words = "a much longer word then short ones follow here";
        for (mask, extra) in [
            ("", ""),
            (r#", "window": 2"#, ""),
            ("", r#", "kv_sentences": ["keys of another sentence entirely"]"#),
            (r#", "window": 3"#, LATENT),
        ] {
            let (d, full) = decoded(words, mask, extra);
            let at = At::of(&d.positions[0], 0, 1);
            for which in ['K', 'V'] {
                let (label, number) = decoding_column_chars(&d, Some(&full), at, which);
                for p in &d.positions {
                    let rows = cache_rows_now(&d, p, Some(&full), At::of(p, 0, 1), which);
                    let (l, n) = column_chars(
                        rows.iter().map(|r| r.label.as_str()),
                        rows.iter().flat_map(|r| r.values.iter().copied()),
                    );
                    assert!(l <= label && n <= number, "t = {}: {l} > {label} or {n} > {number}", p.t);
                }
                // and no wider than some position needs
                let widest = d.positions.iter().map(|p| {
                    let rows = cache_rows_now(&d, p, Some(&full), At::of(p, 0, 1), which);
                    column_chars(
                        rows.iter().map(|r| r.label.as_str()),
                        rows.iter().flat_map(|r| r.values.iter().copied()),
                    )
                });
                let (l, n) = widest.fold((0, 0), |(a, b), (l, n)| (a.max(l), b.max(n)));
                assert_eq!(n, number);
                assert!(label <= l + 1, "{label} vs {l}");
            }
        }
    }
}
