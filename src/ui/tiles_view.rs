//! The tiles view (`view=tiles`): the context computed as FlashAttention computes it, tile
//! by tile with an online softmax. The full run's masked scores of one head and sentence
//! with the current tile outlined, the block size, ← → through the tiles, each query
//! row's running m and ℓ and the correction e^(m − m′) after the tile, the check of the
//! context against the full run's, and the peak memory. The numbers are
//! [`crate::engine::tiled`]'s, computed once per scenario and block; the pure parts are
//! [`super::tiles_data`].

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;

use super::check_line::CheckLine;
use super::head_options::HeadOptions;
use super::lesson_keys::PanelStep;
use super::scroll_region::scroll_region;

use crate::engine::tiled::running_sum;
use crate::engine::{tiled, EngineError, StepName, Tiled, Trace};
use crate::format::{exact, fixed, short};

use super::app_state::AppState;
use super::decode_data::{format_difference, token_label};
use super::dom;
use super::settings::UI_MAX_TOKENS;
use super::tiles_data::{
    cell_size, context_check, outline, peak_scores, row_states, score_pixels, tile_words, tiles_of,
};

/// The cell width (CSS px) from which a column label holds its token as well as its
/// position ("2 sat"); narrower columns show the position only.
const COLUMN_WORDS: f64 = 48.0;

/// The most rows and columns of the current tile's scores listed in its table.
const MAX_TABLE: usize = 16;

/// The tiles view of the current inputs.
#[component]
pub fn TilesView(
    /// The page's state.
    state: AppState,
    /// The width of the column, CSS pixels.
    #[prop(into)]
    column: Signal<f64>,
    /// The block size and the tile shown first (a lesson step's): the block is then the
    /// view's own, not the page's `block=` setting.
    #[prop(optional)]
    start: Option<(usize, usize)>,
    /// Inside a lesson: the arrows step the tiles only while the panel itself has the
    /// focus (and do not then also move the lesson).
    #[prop(optional)]
    in_lesson: bool,
) -> impl IntoView {
    let AppState { run, view: view_state, .. } = state;
    let own_block = start.map(|(b, _)| RwSignal::new(b.max(1)));
    let block = Memo::new(move |_| match own_block {
        Some(b) => b.get(),
        None => view_state.with(|v| v.block.max(1)),
    });
    let scenario = Memo::new(move |_| run.with(|r| r.scenario.clone()));
    // Tiled once per scenario and block size; stepping reads the stored tiles.
    let tiles = Memo::new_with_compare(
        move |_| {
            let block = block.get();
            scenario.with(|s| {
                dom::mark("al-tiled-start");
                let t = tiled(s, block).map(Arc::new);
                dom::mark("al-tiled-end");
                t
            })
        },
        |a: Option<&Result<Arc<Tiled>, EngineError>>, b: Option<&Result<Arc<Tiled>, EngineError>>| match (
            a, b,
        ) {
            (Some(Ok(a)), Some(Ok(b))) => !Arc::ptr_eq(a, b),
            (Some(Err(a)), Some(Err(b))) => a != b,
            _ => true,
        },
    );
    let full = Signal::derive(move || {
        run.with(|r| if r.computing { None } else { r.result.as_ref().ok().cloned() })
    });
    let head = RwSignal::new(0_usize);
    let index = RwSignal::new(start.map_or(0, |(_, tile)| tile));
    let batch = move || view_state.with(|v| v.batch);
    let sizes = move || full.with(|f| f.as_ref().map(|f| f.sizes));
    let heads = move || sizes().map_or(1, |s| s.n_heads.max(1));
    let shown_head = move || head.get().min(heads() - 1);
    let shown_batch = move || batch().min(sizes().map_or(1, |s| s.b).saturating_sub(1));
    // The tiles of the shown head and sentence.
    let mine = Memo::new(move |_| {
        let (b, h) = (shown_batch(), shown_head());
        tiles.with(|t| t.as_ref().map(|t| tiles_of(t, b, h)).unwrap_or_default())
    });
    let count = move || mine.with(Vec::len);
    let now = move || index.get().min(count().saturating_sub(1));
    let go = move |delta: isize| {
        let last = count().saturating_sub(1);
        index.update(|i| *i = (*i).min(last).saturating_add_signed(delta).min(last));
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some(step) = dom::panel_step(&ev, in_lesson) else { return };
        match step {
            PanelStep::By(by) => go(by),
            PanelStep::Edge { last } => index.set(if last { count().saturating_sub(1) } else { 0 }),
        }
        ev.prevent_default();
        ev.stop_propagation();
    };
    let t_q = move || sizes().map_or(0, |s| s.t);
    let t_k = move || sizes().map_or(0, |s| s.t_k.unwrap_or(s.t));
    let cell = move || cell_size((column.get() - 110.0).min(640.0), t_k().max(1));

    // The score matrix: one pixel per cell, scaled up by CSS (pushed to the canvas here).
    let canvas = NodeRef::<html::Canvas>::new();
    Effect::new(move |_| {
        let (b, h) = (shown_batch(), shown_head());
        let Some(el) = canvas.get() else { return };
        full.with(|f| {
            let Some((rgba, width)) = f.as_ref().and_then(|f| score_pixels(f, b, h)) else { return };
            let height = rgba.len() / 4 / width.max(1);
            el.set_width(width as u32);
            el.set_height(height as u32);
            dom::put_rgba(&el, 0, 0, width as u32, &rgba);
        });
    });
    let current = move || {
        let i = now();
        let id = mine.with(|m| m.get(i).copied())?;
        tiles.with(|t| t.as_ref().ok().and_then(|t| t.tiles.get(id).cloned()))
    };
    let outline_style = move || {
        let c = cell();
        current().map_or_else(
            || "display: none".to_owned(),
            |tile| {
                let [x, y, w, h] = outline(&tile, c, 0.0, 0.0);
                format!("left: {x}px; top: {y}px; width: {w}px; height: {h}px")
            },
        )
    };
    let where_text = move || {
        let Some(tile) = current() else { return "No tiles.".to_owned() };
        format!(
            "Tile {} of {}: query rows {}–{}, key columns {}–{}",
            now() + 1,
            count(),
            tile.q[0],
            tile.q[1].saturating_sub(1),
            tile.k[0],
            tile.k[1].saturating_sub(1)
        )
    };
    // The running sum ℓ′ of one query row of the current tile, term by term (a click on its
    // ℓ′ opens it): the engine's `running_sum` of that row of the full run's masked scores.
    let sum_row = RwSignal::new(None::<usize>);
    let sum_terms = move || {
        let i = sum_row.get()?;
        let tile = current()?;
        if !(tile.q[0]..tile.q[1]).contains(&i) {
            return None;
        }
        let (b, h, block) = (shown_batch(), shown_head(), block.get());
        full.with(|f| {
            let f: &Trace = f.as_ref()?;
            let row: Vec<f64> = f.step(StepName::Masked)?.matrix(b, h)?.row(i).to_vec();
            let sum = running_sum(&row, block, tile.k[0] / block)?;
            let (q_tok, k_tok) = (f.query_tokens(b), f.key_tokens(b));
            let exps = sum
                .exps
                .iter()
                .map(|&(j, e)| {
                    let s = row.get(j).copied().unwrap_or(f64::NAN);
                    view! {
                        <li data-key=j>
                            {format!(
                                "key {}: e^(S − m′) = e^({} − {}) = {}",
                                token_label(k_tok, j),
                                fixed(s, 4),
                                fixed(sum.m, 4),
                                fixed(e, 4),
                            )}
                        </li>
                    }
                })
                .collect_view();
            let added: Vec<String> = std::iter::once(fixed(sum.carried, 4))
                .chain(sum.exps.iter().map(|(_, e)| fixed(*e, 4)))
                .collect();
            Some(view! {
                <div class="al-running-sum" data-testid="running-sum" aria-live="polite">
                    <p>
                        {format!(
                            "ℓ′ of “{}” after keys {}–{}: the sum so far, corrected, plus this tile's terms.",
                            token_label(q_tok, i),
                            sum.k[0],
                            sum.k[1].saturating_sub(1),
                        )}
                    </p>
                    <ul>
                        <li data-testid="running-sum-carried">
                            {format!(
                                "carried: e^(m − m′) · ℓ = {} × {} = {}",
                                fixed(sum.correction, 4),
                                fixed(sum.before, 4),
                                fixed(sum.carried, 4),
                            )}
                        </li>
                        {exps}
                    </ul>
                    <p data-testid="running-sum-total">
                        {format!("ℓ′ = {} = {}", added.join(" + "), fixed(sum.after, 4))}
                    </p>
                </div>
            })
        })
    };
    let rows = move || {
        let tile = current()?;
        let b = shown_batch();
        let tokens: Vec<String> =
            full.with(|f| f.as_ref().map(|f| f.query_tokens(b).to_vec()).unwrap_or_default());
        let body = row_states(&tile)
            .into_iter()
            .map(|r| {
                let raised = r.correction > 0.0 && r.correction < 1.0;
                view! {
                    <tr data-row=r.row>
                        <th scope="row">{token_label(&tokens, r.row)}</th>
                        <td data-value=exact(r.m)>{fixed(r.m, 4)}</td>
                        <td data-value=exact(r.l)>
                            <button
                                type="button"
                                class="al-cell-button"
                                data-testid="running-sum-open"
                                title="Show the terms of this running sum"
                                aria-expanded=move || {
                                    if sum_row.get() == Some(r.row) { "true" } else { "false" }
                                }
                                on:click=move |_| {
                                    sum_row
                                        .update(|s| *s = if *s == Some(r.row) { None } else { Some(r.row) })
                                }
                            >
                                {fixed(r.l, 4)}
                            </button>
                        </td>
                        <td data-value=exact(r.correction) class:al-raised=raised>
                            {fixed(r.correction, 4)}
                        </td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            {scroll_region(
                "the running maximum and sum of each query row, as a table".to_string(),
                view! {
                    <table class="al-table" data-testid="tile-rows">
                        <caption>
                            "Each query row of this block after the tile: the running maximum m′ = max(m, rowmax S), the correction e^(m − m′) of the sum and output so far, the running sum ℓ′ = e^(m − m′)·ℓ + Σ e^(S − m′) (click an ℓ′ for its terms)"
                        </caption>
                        <thead>
                            <tr>
                                <th scope="col">"query"</th>
                                <th scope="col">"m′"</th>
                                <th scope="col">"ℓ′"</th>
                                <th scope="col">"e^(m − m′)"</th>
                            </tr>
                        </thead>
                        <tbody>{body}</tbody>
                    </table>
                },
            )}
            {sum_terms}
            <p class="al-tile-words" data-testid="tile-words">
                {tile_words(&tile)}
            </p>
        })
    };
    // The current tile's scores as a table: the picture's text equivalent.
    let tile_table = move || {
        let tile = current()?;
        let (b, h) = (shown_batch(), shown_head());
        full.with(|f| {
            let f: &Trace = f.as_ref()?;
            let m = f.step(StepName::Masked)?.matrix(b, h)?;
            let (q_tok, k_tok) = (f.query_tokens(b), f.key_tokens(b));
            let q1 = tile.q[1].min(tile.q[0] + MAX_TABLE);
            let k1 = tile.k[1].min(tile.k[0] + MAX_TABLE);
            let head_row = (tile.k[0]..k1)
                .map(|j| view! { <th scope="col">{token_label(k_tok, j)}</th> })
                .collect_view();
            let body = (tile.q[0]..q1)
                .map(|i| {
                    let cells = (tile.k[0]..k1)
                        .map(|j| {
                            let x = m.get((i, j)).copied().unwrap_or(f64::NAN);
                            let blocked = f.mask.is_blocked(b, i, j);
                            view! {
                                <td data-value=exact(x) class:al-blocked=blocked>
                                    {short(x)}
                                </td>
                            }
                        })
                        .collect_view();
                    view! {
                        <tr>
                            <th scope="row">{token_label(q_tok, i)}</th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view();
            Some(view! {
                <details class="al-fold">
                    <summary>"This tile's scores as a table"</summary>
                    {scroll_region(
                        "this tile's scores as a table".to_string(),
                        view! {
                            <table class="al-table" data-testid="tile-scores">
                                <caption>
                                    "masked scores (q·k / √d_k, blocked ones the fill) of this tile"
                                </caption>
                                <thead>
                                    <tr>
                                        <th scope="col">"query \\ key"</th>
                                        {head_row}
                                    </tr>
                                </thead>
                                <tbody>{body}</tbody>
                            </table>
                        },
                    )}
                </details>
            })
        })
    };
    let check = move || {
        let (b, h) = (shown_batch(), shown_head());
        let diff = tiles.with(|t| {
            let t = t.as_ref().ok()?;
            full.with(|f| f.as_ref().and_then(|f| context_check(t, f, b, h)))
        });
        let Some(diff) = diff else {
            return view! {
                <p class="al-check" data-testid="tiles-check">
                    "The full run is not ready yet: no check."
                </p>
            }
            .into_any();
        };
        let ok = diff <= 1e-12;
        let words = if diff == 0.0 {
            "After the last tile of each block, O / ℓ: the context of this head equals the full run's softmax(S)·V, largest |difference| = 0 (bit for bit).".to_owned()
        } else if ok {
            format!("After the last tile of each block, O / ℓ: the context of this head equals the full run's softmax(S)·V, largest |difference| = {} (rounding: the sums are added in another order).", format_difference(diff))
        } else {
            format!("The tiled context differs from the full run's by up to {}.", format_difference(diff))
        };
        view! { <CheckLine ok=ok diff=diff words=words testid="tiles-check" /> }.into_any()
    };
    let peak = move || {
        let (held, all) = peak_scores(block.get(), t_q(), t_k());
        format!(
            "Peak memory for scores: one tile, block² = {held} numbers at a time, against T_q × T_k = {all} for the whole matrix (per head and sentence). The full weights are never stored."
        )
    };
    let error = move || {
        tiles.with(|t| {
            t.as_ref().err().map(|e| {
                view! {
                    <p class="al-error" data-testid="tiles-error" role="alert">
                        {e.to_string()}
                    </p>
                }
            })
        })
    };
    let on_block = move |ev: leptos::ev::Event| {
        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
            index.set(0);
            let n = n.clamp(1, UI_MAX_TOKENS);
            match own_block {
                Some(b) => b.set(n),
                None => view_state.update(|v| v.block = n),
            }
        }
    };
    // The tokens beside the rows and above the columns, when the cells are wide enough.
    let labels = move || {
        let c = cell();
        if c < 20.0 {
            return None;
        }
        let b = shown_batch();
        full.with(|f| {
            let f = f.as_ref()?;
            let q =
                f.query_tokens(b).iter().enumerate().map(|(i, tok)| format!("{i} {tok}")).collect::<Vec<_>>();
            let k =
                f.key_tokens(b).iter().enumerate().map(|(j, tok)| format!("{j} {tok}")).collect::<Vec<_>>();
            Some((q, k, c))
        })
    };
    let max_block = move || t_q().max(t_k()).clamp(1, UI_MAX_TOKENS);
    view! {
        <section
            class="al-tiles"
            data-testid="tiles-view"
            tabindex="0"
            on:keydown=on_key
            aria-label="The online softmax, one tile at a time (← → to step)"
        >
            <h2>"The online softmax, tile by tile"</h2>
            <p class="al-view-intro">
                "A fast kernel (FlashAttention) never holds the whole score matrix. It walks over tiles of block × block scores, keeping per query row a running maximum m and a running sum ℓ; when a tile raises the maximum, what was summed before is rescaled by e^(m − m′). Step with ← → (click this panel first) or the buttons."
            </p>
            <div class="al-step-nav">
                <label>
                    "Block "
                    <input
                        type="number"
                        min="1"
                        max=move || max_block().to_string()
                        step="1"
                        data-testid="tile-block"
                        prop:value=move || block.get().to_string()
                        on:change=on_block
                    />
                </label>
                <button
                    type="button"
                    data-testid="tiles-prev"
                    on:click=move |_| go(-1)
                    aria-label="Previous tile"
                >
                    "← Previous tile"
                </button>
                <button type="button" data-testid="tiles-next" on:click=move |_| go(1) aria-label="Next tile">
                    "Next tile →"
                </button>
                <span class="al-step-where" data-testid="tiles-position" aria-live="polite">
                    {where_text}
                </span>
                <label class="al-head-pick">
                    "Show "
                    <select
                        data-testid="tiles-head"
                        on:change=move |ev| {
                            head.set(event_target_value(&ev).parse().unwrap_or(0));
                            index.set(0);
                        }
                    >
                        <HeadOptions heads=Signal::derive(heads) head=head />
                    </select>
                </label>
            </div>
            {error}
            <p class="al-memory" data-testid="tiles-peak">
                {peak}
            </p>
            <div class="al-tiles-grid">
                <figure class="al-tiles-figure">
                    <div class="al-tiles-frame">
                        {move || {
                            labels()
                                .map(|(q, k, c)| {
                                    view! {
                                        <div class="al-tiles-collabels" aria-hidden="true">
                                            {k
                                                .into_iter()
                                                .enumerate()
                                                .map(|(j, l)| {
                                                    let shown = if c >= COLUMN_WORDS {
                                                        l.clone()
                                                    } else {
                                                        j.to_string()
                                                    };
                                                    // a narrow column shows its position only (the row
                                                    // labels and the title name the token)
                                                    view! {
                                                        <span style=format!("width: {c}px") title=l.clone()>
                                                            {shown}
                                                        </span>
                                                    }
                                                })
                                                .collect_view()}
                                        </div>
                                        <div class="al-tiles-rowlabels" aria-hidden="true">
                                            {q
                                                .into_iter()
                                                .map(|l| {
                                                    view! {
                                                        <span
                                                            style=format!("height: {c}px; line-height: {c}px")
                                                            title=l.clone()
                                                        >
                                                            {l.clone()}
                                                        </span>
                                                    }
                                                })
                                                .collect_view()}
                                        </div>
                                    }
                                })
                        }}
                        <div
                            class="al-tiles-canvas"
                            style=move || {
                                format!(
                                    "width: {}px; height: {}px",
                                    cell() * t_k() as f64,
                                    cell() * t_q() as f64,
                                )
                            }
                        >
                            <canvas
                                node_ref=canvas
                                data-testid="tiles-canvas"
                                role="img"
                                aria-label=move || {
                                    format!(
                                        "The masked scores of head {}, {} query rows by {} keys, blocked cells grey; the current tile is outlined. Its numbers are in the table below.",
                                        shown_head() + 1,
                                        t_q(),
                                        t_k(),
                                    )
                                }
                                style=move || {
                                    format!(
                                        "width: {}px; height: {}px",
                                        cell() * t_k() as f64,
                                        cell() * t_q() as f64,
                                    )
                                }
                            ></canvas>
                            <div class="al-tile-outline" data-testid="tile-outline" style=outline_style></div>
                        </div>
                    </div>
                    <figcaption>"masked scores, rows = queries, columns = keys; grey = blocked"</figcaption>
                </figure>
                <div class="al-tiles-rows">{rows}{tile_table}</div>
            </div>
            {check}
        </section>
    }
}
