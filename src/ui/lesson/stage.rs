//! A lesson's stage: the open step's [`LessonPanel`] (words, navigation, quiz) with its
//! picture: the focus step's heatmaps (with the embedding plot under them), or instead of
//! them the decode view, the tiles view, the position similarity table or the causal
//! corners, as the step's [`lessons::Extra`] says; and what sits beside the words (the
//! embedding editor, the mask conventions). The column widths are
//! [`crate::ui::state::page_layout`]'s.

use std::sync::Arc;

use leptos::prelude::*;

use crate::draw::LABEL_FONT;
use crate::lessons::{self, Lesson};

use crate::ui::decode::view::DecodeView;
use crate::ui::explorer::tensors::TensorView;
use crate::ui::explorer::tokens::BatchTabs;
use crate::ui::heatmap::card::LabelFont;
use crate::ui::lesson::aside::LessonAside;
use crate::ui::lesson::cache_bars::CacheBars;
use crate::ui::lesson::causal_corners::CausalCorners;
use crate::ui::lesson::embedding_editor::EmbeddingEditor;
use crate::ui::lesson::embedding_plot::EmbeddingPlot;
use crate::ui::lesson::induction::InductionFigure;
use crate::ui::lesson::mask_conventions::MaskConventions;
use crate::ui::lesson::panel::LessonPanel;
use crate::ui::lesson::position_similarity::PositionSimilarity;
use crate::ui::lesson::split_both_ways::SplitBothWays;
use crate::ui::state::app_state::AppState;
use crate::ui::state::page_layout::{lesson_column, lesson_max_height, plot_beside, PLOT_WIDTH};
use crate::ui::tiles::chosen::ChosenBlock;
use crate::ui::tiles::view::TilesView;

/// The heatmaps' label size in presenter mode, CSS px (at least 18).
const PRESENTER_LABEL_FONT: f64 = 18.0;

/// The open lesson `l`'s stage.
#[component]
pub fn LessonStage(
    /// The page's state.
    state: AppState,
    /// Every lesson.
    all_lessons: Arc<Vec<Lesson>>,
    /// The open lesson.
    l: usize,
    /// Opens a lesson step.
    on_go: Callback<(usize, usize)>,
    /// Leaves the lessons.
    on_exit: Callback<()>,
    /// True while the step's vectors differ from the lesson's own.
    edited: Memo<bool>,
    /// True while anything differs from the step's own (a copied link does not keep it).
    changed: Memo<bool>,
    /// "Reset this lesson".
    on_reset: Callback<()>,
    /// Presenter mode.
    present: RwSignal<bool>,
) -> impl IntoView {
    let AppState { settings, view: view_state, lesson, shown, viewport, viewport_height, .. } = state;
    // the block the learner sets in a step's tiles view, which the step's words follow
    provide_context(ChosenBlock::default());
    // once a step's question is answered, its picture shows what the question asked
    // about: the revealed trace step, or the revealed extra
    let revealed = RwSignal::new(None::<(usize, usize)>);
    // a field of the open lesson's step `s`
    let stored = StoredValue::new(all_lessons.clone());
    fn field<T>(
        all: StoredValue<Arc<Vec<Lesson>>>,
        l: usize,
        s: usize,
        f: impl FnOnce(&lessons::LessonStep) -> T,
    ) -> Option<T> {
        all.with_value(|all| all.get(l).and_then(|x| x.steps.get(s)).map(f))
    }
    let open_quiz = move || {
        let at = lesson.get()?;
        (revealed.get() == Some(at)).then(|| field(stored, l, at.1, |x| x.quiz)).flatten().flatten()
    };
    Effect::new(move |_| {
        if let Some(step) = open_quiz().and_then(|q| q.reveal) {
            view_state.update(|v| v.step = step);
        }
    });
    let extra = Memo::new(move |_| {
        let own = lesson.get().and_then(|(_, s)| field(stored, l, s, |x| x.extra)).unwrap_or_default();
        open_quiz().and_then(|q| q.reveal_extra).unwrap_or(own)
    });
    let position = Signal::derive(move || lesson.get().unwrap_or((l, 0)));
    let batch = Signal::derive(move || view_state.with(|v| v.batch));
    let trace = Signal::derive(move || shown.get());
    // the open step's small table of numbers its words quote that the heatmaps lack, while
    // the sentences fit the step (else the table would quote other words' numbers)
    let aside = Signal::derive(move || {
        let (_, s) = lesson.get()?;
        let fits =
            shown.with(|t| t.as_ref().is_none_or(|t| field(stored, l, s, |x| x.fits(t)) != Some(false)));
        field(stored, l, s, |x| x.aside).filter(|_| fits)
    });
    let extras = move || match extra.get() {
        lessons::Extra::EmbeddingPlot => {
            // what the current step's picture shows beside the focus step: the step says
            view! { <EmbeddingEditor settings=settings /> }.into_any()
        }
        lessons::Extra::MaskConventions => {
            view! { <MaskConventions trace=trace batch=batch folded=present /> }.into_any()
        }
        lessons::Extra::None
        | lessons::Extra::PositionSimilarity { .. }
        | lessons::Extra::Decode { .. }
        | lessons::Extra::Tiles { .. }
        | lessons::Extra::CausalCorners
        | lessons::Extra::SplitBothWays
        | lessons::Extra::CacheBars
        | lessons::Extra::Induction(_) => ().into_any(),
    };
    let aside_table = move || view! { <LessonAside trace=trace aside=aside /> };
    let column = Signal::derive(move || lesson_column(viewport.get(), || present.get()));
    let max_height =
        Signal::derive(move || lesson_max_height(viewport.get(), viewport_height.get(), present.get()));
    // presenting on a projector's width (a phone stacks the page as outside presenter mode)
    let presenting = move || present.get() && viewport.get() > 900.0;
    provide_label_font(presenting);
    // presenting, the embedding plot sits beside the heatmaps instead of under them, so
    // that both are on the screen: the cards get the column less the plot's width
    // ... unless the map's cells beside the plot would be too small to read from the back
    // of a room: then the map has the column and the plot is left out (no step that
    // points at the plot has so many keys, by test)
    let plot_left_out = Memo::new(move |_| {
        let n_cols = shown.with(|t| t.as_ref().map_or(0, |t| t.key_length(0)));
        extra.get() == lessons::Extra::EmbeddingPlot
            && presenting()
            && !plot_beside(column.get(), PLOT_WIDTH, n_cols, PRESENTER_LABEL_FONT)
    });
    let beside = Memo::new(move |_| {
        let width = match extra.get() {
            lessons::Extra::EmbeddingPlot if !plot_left_out.get() => PLOT_WIDTH,
            _ => return None,
        };
        presenting().then_some(width)
    });
    let paired = Memo::new(move |_| beside.get().is_some());
    let cards_column = Signal::derive(move || column.get() - beside.get().unwrap_or(0.0));
    let heatmaps = move || {
        // the picture the words talk about, as large as the column allows
        // the stage's grid: 1fr : 1.25fr inside the lesson box, 0.8fr : 1fr when presenting
        // ... and short enough that words and picture share the first screen
        // (the page header, the lesson tabs and the card's title sit above it)
        view! {
            <div class="al-tabs">
                <BatchTabs state=state />
            </div>
            <div class="al-picture-pair" class:al-paired=paired>
                <div class="al-pair-cards">
                    <TensorView state=state column=cards_column compact=true max_height=max_height />
                </div>
                {move || match extra.get() {
                    lessons::Extra::EmbeddingPlot if !plot_left_out.get() => {
                        view! { <EmbeddingPlot trace=trace settings=settings /> }.into_any()
                    }
                    _ => ().into_any(),
                }}
            </div>
        }
    };
    // the decode and tiles views, the similarity table and the causal corners replace the
    // heatmaps; the other extras sit under them (a memo, so the heatmaps stay while only those change)
    let kind = Memo::new(move |_| Some(extra.get()).filter(|e| e.replaces_heatmaps()).unwrap_or_default());
    let picture =
        move || replacing_picture(kind.get(), state, column).unwrap_or_else(|| heatmaps().into_any());
    view! {
        <LessonPanel
            lessons=all_lessons
            position=position
            trace=trace
            on_go=on_go
            on_exit=on_exit
            edited=edited
            changed=changed
            on_reset=on_reset
            present=present
            revealed=revealed
            aside=aside_table
            extras=extras
            picture=picture
        />
    }
}

/// The picture of a step whose extra replaces the heatmaps: the decode view, the tiles
/// view, the position similarity table, the split heads or the causal corners; `None` for
/// the other extras.
/// The lesson stage and a lesson step's embed both draw it.
pub fn replacing_picture(kind: lessons::Extra, state: AppState, column: Signal<f64>) -> Option<AnyView> {
    let trace = Signal::derive(move || state.shown.get());
    let batch = Signal::derive(move || state.view.with(|v| v.batch));
    Some(match kind {
        lessons::Extra::PositionSimilarity { quoted } => {
            view! { <PositionSimilarity trace=trace quoted=quoted /> }.into_any()
        }
        lessons::Extra::SplitBothWays => view! { <SplitBothWays trace=trace batch=batch /> }.into_any(),
        lessons::Extra::CacheBars => view! { <CacheBars trace=trace /> }.into_any(),
        lessons::Extra::CausalCorners => view! { <CausalCorners trace=trace /> }.into_any(),
        lessons::Extra::Induction(figure) => {
            view! { <InductionFigure figure=figure column=column state=state /> }.into_any()
        }
        lessons::Extra::Decode { t } => {
            view! { <DecodeView state=state start=t in_lesson=true /> }.into_any()
        }
        lessons::Extra::Tiles { block, tile } => {
            view! { <TilesView state=state column=column start=(block, tile) in_lesson=true /> }.into_any()
        }
        _ => return None,
    })
}

/// The heatmaps' label size: while `presenting` on a projector's width, labels read from
/// the back of a room; on a phone's width (the page stacked) they would leave the cells no
/// room.
fn provide_label_font(presenting: impl Fn() -> bool + Send + Sync + 'static) {
    provide_context(LabelFont(Signal::derive(
        move || if presenting() { PRESENTER_LABEL_FONT } else { LABEL_FONT },
    )));
}
