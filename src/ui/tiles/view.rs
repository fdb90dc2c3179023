//! The tiles view (`view=tiles`): the context computed as FlashAttention computes it, tile
//! by tile with an online softmax. The full run's masked scores of one head and sentence
//! with the current tile outlined, the block size, ← → through the tiles, each query
//! row's running m and ℓ and the correction e^(m − m′) after the tile, the check of the
//! context against the full run's, and the peak memory. The numbers are
//! [`crate::engine::tiled`]'s, computed once per scenario and block; the pure parts are
//! [`crate::ui::tiles::data`].
//!
//! The parts are [`crate::ui::tiles::picture`] (the scores and the outline) and
//! [`crate::ui::tiles::tile_tables`] (the current tile's rows and scores as tables); the words are
//! [`crate::ui::tiles::words`].

use std::sync::Arc;

use leptos::prelude::*;

use crate::ui::widgets::check_line::CheckLine;
use crate::ui::widgets::head_options::HeadPicker;
use crate::ui::widgets::stepper::{StepButtons, Stepper, StepperPanel};

use crate::engine::{tiled, EngineError, Tiled, Trace};

use crate::lessons::same_place_tile;
use crate::ui::platform::timing;
use crate::ui::state::app_state::AppState;
use crate::ui::state::settings::UI_MAX_TOKENS;
use crate::ui::tiles::chosen::ChosenBlock;
use crate::ui::tiles::data::{cell_size, context_check, tiles_of};
use crate::ui::tiles::picture::TilesPicture;
use crate::ui::tiles::shown::Shown;
use crate::ui::tiles::tile_tables::{TileRows, TileScores};
use crate::ui::tiles::words::{check_words, peak_words, position_words};

/// The tiles view of the current inputs.
#[component]
pub fn TilesView(
    /// The page's state.
    state: AppState,
    /// The width of the column, CSS pixels.
    #[prop(into)]
    column: Signal<f64>,
    /// The block size and the tile shown first (a lesson step's): the block is then the
    /// view's own, not the page's `block=` setting. In the lessons the block the learner
    /// sets is the stage's [`ChosenBlock`], which the step's words follow.
    #[prop(optional)]
    start: Option<(usize, usize)>,
    /// Inside a lesson: the arrows step the tiles only while the panel itself has the
    /// focus (and do not then also move the lesson).
    #[prop(optional)]
    in_lesson: bool,
) -> impl IntoView {
    let AppState { run, view: view_state, lesson, .. } = state;
    // a lesson step's block: the one the learner set on this step, else the step's own
    let chosen = start.and(use_context::<ChosenBlock>());
    let own_block = start.map(|(b, _)| RwSignal::new(b.max(1)));
    let block = Memo::new(move |_| match (chosen.and_then(|c| c.on(lesson.get())), own_block) {
        (Some(set), _) => set.max(1),
        (None, Some(b)) => b.get(),
        (None, None) => view_state.with(|v| v.block.max(1)),
    });
    let scenario = Memo::new(move |_| run.with(|r| r.scenario.clone()));
    // Tiled once per scenario and block size; stepping reads the stored tiles.
    let tiles = tile_once(scenario, block);
    let full = Signal::derive(move || {
        run.with(|r| if r.computing { None } else { r.result.as_ref().ok().cloned() })
    });
    let head = RwSignal::new(0_usize);
    // a lesson step shows its own tile, or at a block the learner set the tile in the same
    // place, which the step's words then describe
    let set_before = chosen.and_then(|c| c.on(lesson.get_untracked()));
    let index = RwSignal::new(start.map_or(0, |(b, tile)| match set_before {
        None => tile,
        Some(set) => run.with_untracked(|r| {
            let sizes = r.result.as_ref().ok().map(|t| t.sizes);
            sizes.map_or(0, |s| same_place_tile((b, tile), set, s.t, s.t_k.unwrap_or(s.t)))
        }),
    }));
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
    let stepper = Stepper::new(index, count);
    let now = move || stepper.now();
    let t_q = move || sizes().map_or(0, |s| s.t);
    let t_k = move || sizes().map_or(0, |s| s.t_k.unwrap_or(s.t));
    let cell = move || cell_size((column.get() - 110.0).min(640.0), t_k().max(1));

    let current = Signal::derive(move || {
        let i = now();
        let id = mine.with(|m| m.get(i).copied())?;
        tiles.with(|t| t.as_ref().ok().and_then(|t| t.tiles.get(id).cloned()))
    });
    let where_text = move || position_words(current.get().as_ref(), now(), count());
    let shown = Shown { full, current, batch: Signal::derive(shown_batch), head: Signal::derive(shown_head) };
    let check = move || check_view(&tiles, full, shown_batch(), shown_head());
    let peak = move || peak_words(block.get(), t_q(), t_k());
    let error = move || {
        tiles.with(|t| {
            t.as_ref().err().map(|e| {
                view! {
                    <p class="al-error" data-testid="tiles-error" role="alert">
                        {crate::ui::state::field_words::page_words(&e.to_string())}
                    </p>
                }
            })
        })
    };
    let on_block = move |ev: leptos::ev::Event| {
        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
            let n = n.clamp(1, UI_MAX_TOKENS);
            index.set(start.map_or(0, |s| same_place_tile(s, n, t_q(), t_k())));
            match (chosen.zip(lesson.get_untracked()), own_block) {
                (Some((c, at)), _) => c.set(at, n),
                (None, Some(b)) => b.set(n),
                (None, None) => view_state.update(|v| v.block = n),
            }
        }
    };
    let max_block = move || t_q().max(t_k()).clamp(1, UI_MAX_TOKENS);
    view! {
        <StepperPanel
            stepper=stepper
            in_lesson=in_lesson
            class="al-tiles"
            testid="tiles-view"
            label="The online softmax, one tile at a time (← → to step)"
            title="The online softmax, tile by tile"
            intro="A fast kernel (FlashAttention) never holds the whole score matrix. It walks over tiles of block × block scores, keeping per query row a running maximum m and a running sum ℓ; when a tile raises the maximum, what was summed before is rescaled by e^(m − m′)."
            controls="the tile buttons"
        >
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
                <StepButtons stepper=stepper what="tile" testid="tiles" />
                <span class="al-step-where" data-testid="tiles-position" aria-live="polite">
                    {where_text}
                </span>
                <HeadPicker
                    caption="Show "
                    testid="tiles-head"
                    heads=Signal::derive(heads)
                    head=head
                    on_pick=Callback::new(move |()| index.set(0))
                />
            </div>
            {error}
            <p class="al-memory" data-testid="tiles-peak">
                {peak}
            </p>
            <div class="al-tiles-grid">
                <TilesPicture
                    shown=shown
                    cell=Signal::derive(cell)
                    t_q=Signal::derive(t_q)
                    t_k=Signal::derive(t_k)
                />
                <div class="al-tiles-rows">
                    <TileRows shown=shown block=block />
                    <TileScores shown=shown />
                </div>
            </div>
            {check}
        </StepperPanel>
    }
}

/// The tiles of `scenario` at `block`, once per scenario and block size (compared by
/// pointer), or the engine's error.
fn tile_once(
    scenario: Memo<crate::engine::Scenario>,
    block: Memo<usize>,
) -> Memo<Result<Arc<Tiled>, EngineError>> {
    Memo::new_with_compare(
        move |_| {
            let block = block.get();
            scenario.with(|s| {
                timing::mark("al-tiled-start");
                let t = tiled(s, block).map(Arc::new);
                timing::mark("al-tiled-end");
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
    )
}

/// The check of the tiled context against the full run's, for sentence `b` and head `h`.
fn check_view(
    tiles: &Memo<Result<Arc<Tiled>, EngineError>>,
    full: Signal<Option<Arc<Trace>>>,
    b: usize,
    h: usize,
) -> AnyView {
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
    let (ok, words) = check_words(diff);
    view! { <CheckLine ok=ok diff=diff words=words testid="tiles-check" /> }.into_any()
}
