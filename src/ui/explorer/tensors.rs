//! The selected step: its name, shape, words and PyTorch line, notes about fully masked
//! rows, and one keyed heatmap card per head.

use std::sync::Arc;

use leptos::prelude::*;

use crate::draw::{Scale, LABEL_FONT};
use crate::engine::trace::shape_text;
use crate::engine::{StepName, Trace};

use crate::ui::decode::view::DecodeView;
use crate::ui::explorer::lines_view::LinesView;
use crate::ui::explorer::shared_vectors::shared_vector_note;
use crate::ui::explorer::tensor_bar::{HeadPicker, LinesToggle, ViewModes};
use crate::ui::heatmap::card::{HeatmapCard, LabelFont};
use crate::ui::heatmap::highlight::Highlights;
use crate::ui::state::app_state::AppState;
use crate::ui::state::card_id::CardId;
pub use crate::ui::state::page_layout::shown_step;
use crate::ui::state::page_layout::{card_width, one_head_at_a_time};
use crate::ui::state::settings::{ViewMode, ViewState};
use crate::ui::tiles::view::TilesView;

/// The tensors of the selected step, in a column `column` px wide. `compact` leaves out
/// the step's words and PyTorch line (the lesson's words stand beside it).
#[component]
pub fn TensorView(
    /// The page's state.
    state: AppState,
    /// The width of the column the cards sit in, CSS pixels.
    #[prop(into)]
    column: Signal<f64>,
    /// Leave out the step's words and PyTorch line.
    compact: bool,
    /// The tallest a card's picture may be (lessons: words and picture in one screen).
    #[prop(into)]
    max_height: Signal<Option<f64>>,
) -> impl IntoView {
    let AppState { shown, view: view_state, .. } = state;
    let trace = Signal::derive(move || shown.get());
    // The step and sentence shown ([`shown_step`], the sentence kept inside the batch):
    // worked out once here for the cards' keys, the header, the shared scale and the
    // lines view.
    let selected = Memo::new(move |_| {
        let (step, batch) = view_state.with(|v| (v.step, v.batch));
        shown.with(|t| t.as_ref().map(|t| (shown_step(t, step), batch.min(t.sizes.b.saturating_sub(1)))))
    });
    // The cards to show, as keys: a card is kept while its key stays.
    let ids = Memo::new(move |_| {
        let (name, batch) = selected.get()?;
        let heads = shown.with(|t| {
            let t = t.as_ref()?;
            // h cards, or h_kv for the key/value heads before the repeat (grouped-query)
            let s = t.step(name)?;
            Some(if s.has_heads() { s.shape.get(1).copied().unwrap_or(1) } else { 1 })
        })?;
        Some((0..heads).map(|head| CardId { step: name, batch, head }).collect::<Vec<_>>())
    });
    // Presenter mode (labels larger than LABEL_FONT) shows one head at a time when two side
    // by side would draw cells smaller than their labels; the picker chooses which, and a
    // step starts on the head its words point at (its first highlighted cell's).
    let font = use_context::<LabelFont>().map(|f| f.0);
    let highlights = use_context::<Highlights>().map(|h| h.0);
    // a step's cards and the columns of each: (h, or 1 without heads; the last axis)
    let heads_and_cols = move |step: StepName| {
        shown.with(|t| {
            t.as_ref().and_then(|t| t.step(step)).map_or((1, 0), |s| {
                (
                    if s.has_heads() { s.shape.get(1).copied().unwrap_or(1) } else { 1 },
                    s.shape.last().copied().unwrap_or(0),
                )
            })
        })
    };
    let one_head = Memo::new(move |_| {
        let Some(font) = font.map(|f| f.get()).filter(|f| *f > LABEL_FONT) else { return false };
        let Some((step, _)) = selected.get() else { return false };
        let (heads, n_cols) = heads_and_cols(step);
        one_head_at_a_time(column.get(), heads, n_cols, font)
    });
    let card_max_height = card_max_height(shown, selected, max_height, font, compact);
    let (chosen, head_shown) = head_choice(selected, highlights);
    let cards_shown = move || {
        let all = ids.get().unwrap_or_default();
        if one_head.get() {
            let head = head_shown.get();
            all.into_iter().filter(|id| id.head == head).collect()
        } else {
            all
        }
    };
    let scale_for = card_scales(shown, view_state, selected);
    let width_for = move |id: CardId| {
        Signal::derive(move || {
            let (heads, n_cols) = heads_and_cols(id.step);
            card_width(column.get(), if one_head.get() { 1 } else { heads }, n_cols)
        })
    };
    // A (B, h, T_q, T_k) step can be shown as lines instead of heatmaps.
    let lines_possible = move || {
        let Some((step, _)) = selected.get() else { return false };
        shown.with(|t| {
            t.as_ref().and_then(|t| t.step(step)).is_some_and(|s| s.has_heads() && s.cols_are_keys())
        })
    };
    let as_lines = move || lines_possible() && view_state.with(|v| v.lines);
    let selection =
        Signal::derive(move || selected.get().unwrap_or_else(|| (view_state.with(|v| v.step), 0)));
    // The decode and tiles views replace the cards (the explorer only, not a lesson's).
    let mode = Memo::new(move |_| if compact { ViewMode::Cards } else { view_state.with(|v| v.mode) });
    let cards = move || mode.get() == ViewMode::Cards;
    view! {
        {(!compact).then(|| view! { <ViewModes view_state=view_state mode=mode /> })}
        {move || match mode.get() {
            ViewMode::Cards => None,
            ViewMode::Decode => Some(view! { <DecodeView state=state /> }.into_any()),
            ViewMode::Tiles => Some(view! { <TilesView state=state column=column /> }.into_any()),
        }}
        <div class="al-cards-view" hidden=move || !cards()>
            <StepHeader shown=shown selected=selected compact=compact />
            {move || {
                lines_possible()
                    .then(|| {
                        view! { <LinesToggle view_state=view_state as_lines=Signal::derive(as_lines) /> }
                    })
            }}
            {move || {
                one_head
                    .get()
                    .then(|| {
                        let heads = ids.with(|ids| ids.as_ref().map_or(0, Vec::len));
                        view! { <HeadPicker heads=heads head_shown=head_shown chosen=chosen /> }
                    })
            }}
            {move || {
                (cards() && as_lines())
                    .then(|| {
                        view! {
                            <LinesView
                                trace=trace
                                selection=selection
                                max_width=Signal::derive(move || card_width(column.get(), 1, 0))
                            />
                        }
                    })
            }}
            <div class="al-cards" hidden=as_lines>
                <For
                    each=move || if cards() { cards_shown() } else { Vec::new() }
                    key=|id| *id
                    children=move |id| {
                        view! {
                            <HeatmapCard
                                trace=trace
                                id=id
                                scale=scale_for(id)
                                max_width=width_for(id)
                                max_height=card_max_height
                            />
                        }
                    }
                />
            </div>
            {(!compact).then(|| view! { <SharedVectorNote shown=shown selected=selected /> })}
            {move || {
                compact
                    .then(|| {
                        let (name, batch) = selected.get()?;
                        shown.with(|t| t.as_ref().and_then(|t| mask_notes(t, name, batch)))
                    })
                    .flatten()
            }}
        </div>
    }
}

/// Presenting one head at a time: the head the learner picked (reset when the step or
/// the lesson's highlighted cells change), and the head shown: the picked one, else the
/// one the step's first highlighted cell is in.
fn head_choice(
    selected: Memo<Option<(StepName, usize)>>,
    highlights: Option<Signal<Vec<crate::lessons::Cell>>>,
) -> (RwSignal<Option<usize>>, Memo<usize>) {
    let chosen = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        selected.track();
        if let Some(h) = highlights {
            h.track();
        }
        chosen.set(None);
    });
    let head_shown = Memo::new(move |_| {
        chosen.get().unwrap_or_else(|| {
            let step = selected.get().map(|(s, _)| s);
            highlights
                .and_then(|h| h.with(|cells| cells.iter().find(|c| Some(c.step) == step).map(|c| c.head)))
                .unwrap_or(0)
        })
    });
    (chosen, head_shown)
}

/// The tallest a card may be: presenting, a step with notes about fully masked rows
/// under its cards leaves them room, so that cards and notes share the screen.
fn card_max_height(
    shown: Memo<Option<Arc<Trace>>>,
    selected: Memo<Option<(StepName, usize)>>,
    max_height: Signal<Option<f64>>,
    font: Option<Signal<f64>>,
    compact: bool,
) -> Signal<Option<f64>> {
    Signal::derive(move || {
        let h = max_height.get()?;
        let presenting = font.is_some_and(|f| f.get() > LABEL_FONT);
        let notes = compact
            && presenting
            && selected.get().is_some_and(|(name, batch)| {
                shown.with(|t| t.as_ref().is_some_and(|t| !noted_rows(t, name, batch).is_empty()))
            });
        Some(if notes { (h - PRESENTER_NOTE_ROOM).max(160.0) } else { h })
    })
}

/// The steps whose maps share one colour range on the open lesson step
/// ([`crate::lessons::LessonStep::shared_range`]), for every card; empty outside the
/// lessons.
#[derive(Debug, Clone, Copy)]
pub struct SharedRange(pub Signal<&'static [StepName]>);

/// The colour scale of each card: viridis for weights; otherwise blue–white–red over one
/// head's numbers, or every head's when the scale is shared, or over the numbers of every
/// step the lesson step draws in one range.
fn card_scales(
    shown: Memo<Option<Arc<Trace>>>,
    view_state: RwSignal<ViewState>,
    selected: Memo<Option<(StepName, usize)>>,
) -> impl Fn(CardId) -> Signal<Scale> + Copy {
    let ranged = use_context::<SharedRange>().map(|r| r.0);
    // One colour scale for every head of a (B, h, ·, ·) step, when the scale is shared:
    // computed once per trace and view, not once per card.
    let shared_scale = Memo::new(move |_| {
        if !view_state.with(|v| v.shared_scale) {
            return None;
        }
        let (step, batch) = selected.get()?;
        shown.with(|t| {
            let s = t.as_ref()?.step(step)?;
            if s.name == StepName::Weights || !s.has_heads() {
                return None;
            }
            let heads = s.shape.get(1).copied().unwrap_or(1);
            let values = (0..heads).filter_map(|h| s.matrix(batch, h)).flat_map(|m| m.into_iter());
            Some((s.name, batch, Scale::diverging(values)))
        })
    });
    move |id: CardId| {
        Signal::derive(move || {
            let ranged = ranged.map_or(&[][..], |r| r.get());
            if !ranged.contains(&id.step) {
                if let Some((step, batch, scale)) = shared_scale.get() {
                    if (step, batch) == (id.step, id.batch) {
                        return scale;
                    }
                }
            }
            let all_heads = view_state.with(|v| v.shared_scale);
            shown.with(|t| t.as_ref().map_or_else(Scale::weights, |t| card_scale(t, id, ranged, all_heads)))
        })
    }
}

/// Card `id`'s colour scale for `t`: viridis over [0, 1] for weights; otherwise
/// blue–white–red over the card's numbers, or, for a step in `ranged`, over the numbers
/// of every step in `ranged` (the card's sentence and head, or every head with
/// `all_heads`), so that those maps share one range.
pub fn card_scale(t: &Trace, id: CardId, ranged: &[StepName], all_heads: bool) -> Scale {
    if id.step == StepName::Weights || t.step(id.step).is_none() {
        return Scale::weights();
    }
    let own = [id.step];
    let (steps, all_heads) = if ranged.contains(&id.step) { (ranged, all_heads) } else { (&own[..], false) };
    let values = steps.iter().filter_map(|&name| t.step(name)).flat_map(|s| {
        let heads = if all_heads && s.has_heads() {
            0..s.shape.get(1).copied().unwrap_or(1)
        } else {
            id.head..id.head + 1
        };
        heads.filter_map(move |h| s.matrix(id.batch, h)).flat_map(|m| m.into_iter())
    });
    Scale::diverging(values)
}

/// The step's name and shape, and (outside a lesson) its words, PyTorch line and notes
/// about fully masked rows.
#[component]
fn StepHeader(
    /// The shown trace.
    shown: Memo<Option<Arc<Trace>>>,
    /// The step and sentence shown.
    selected: Memo<Option<(StepName, usize)>>,
    /// Leave out the step's words, PyTorch line and notes.
    compact: bool,
) -> impl IntoView {
    move || {
        let (name, batch) = selected.get()?;
        let trace = shown.get()?;
        let s = trace.step(name)?;
        // in a lesson the notes follow the picture (they would push it down, and a step may
        // explain the NaN they announce only later)
        let notes = (!compact).then(|| mask_notes(&trace, s.name, batch)).flatten();
        Some(view! {
            <div class="al-tensor-head">
                <h2>
                    <code>{trace.step_title(s.name)}</code>
                    " "
                    <span class="al-shape">{shape_text(&s.dims, &s.shape)}</span>
                </h2>
                {(!compact)
                    .then(|| {
                        view! {
                            <p class="al-step-op">{s.op.clone()}</p>
                            <code class="al-pytorch">{s.pytorch.clone()}</code>
                        }
                    })}
            </div>
            {notes}
        })
    }
}

/// Different words with one input vector, while their rows on screen are identical
/// ([`shared_vector_note`]): under the picture it explains, which then stays on a phone's
/// first screen.
#[component]
fn SharedVectorNote(
    /// The shown trace.
    shown: Memo<Option<Arc<Trace>>>,
    /// The step and sentence shown.
    selected: Memo<Option<(StepName, usize)>>,
) -> impl IntoView {
    move || {
        let (name, batch) = selected.get()?;
        let text = shown.with(|t| t.as_ref().and_then(|t| shared_vector_note(t, name, batch)))?;
        Some(view! {
            <p class="al-note al-shared-note" data-testid="shared-vector-note" role="note">
                {text}
            </p>
        })
    }
}

/// The room presenter mode leaves under the cards for the notes about fully masked rows
/// (one note of four lines), CSS px.
const PRESENTER_NOTE_ROOM: f64 = 130.0;

/// The fully masked rows of sentence `batch` that step `step`'s notes name: none for the
/// steps before the mask.
fn noted_rows(trace: &Trace, step: StepName, batch: usize) -> Vec<usize> {
    use StepName::*;
    if !matches!(step, Masked | Weights | Context | Concat | Output) {
        return Vec::new();
    }
    trace.fully_masked_rows.iter().filter(|[b, _]| *b == batch).map(|[_, i]| *i).collect()
}

/// Notes about fully masked rows for the mask-related steps, quoting the trace's numbers.
fn mask_notes(trace: &Trace, step: StepName, batch: usize) -> Option<impl IntoView> {
    let rows = noted_rows(trace, step, batch);
    if rows.is_empty() {
        return None;
    }
    let weights = trace.step(StepName::Weights)?;
    // one note per kind of row (NaN, or the same uniform weight), naming all its rows:
    // two <pad> rows make one note, not two that say the same
    let mut groups: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    for i in rows {
        let token = trace.query_tokens(batch).get(i).cloned().unwrap_or_default();
        let w = weights.matrix(batch, 0).and_then(|m| m.get((i, 0)).copied()).unwrap_or(f64::NAN);
        let kind = if w.is_nan() { String::new() } else { crate::format::exact(w) };
        match groups.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, members)) => members.push((i, token)),
            None => groups.push((kind, vec![(i, token)])),
        }
    }
    let notes = groups
        .into_iter()
        .map(|(kind, members)| {
            let (rows, verb) = row_list(&members);
            let text = if kind.is_empty() {
                format!(
                    "{rows} {verb} fully masked: every score is -inf, so softmax computes e^(-inf − (-inf)) = NaN, \
                     i.e. 0/0, and the NaN flows on into context, concat and output. That is why PyTorch code often \
                     fills with -1e9 instead, or drops those rows."
                )
            } else {
                format!(
                    "{rows} {verb} fully masked: with -1e9 every score in a row is the same, so softmax gives \
                     the uniform weight {kind} to every key."
                )
            };
            let data_rows = members.iter().map(|(i, _)| i.to_string()).collect::<Vec<_>>().join(" ");
            view! {
                <p class="al-flag" data-testid="masked-row-note" data-rows=data_rows>
                    {text}
                </p>
            }
        })
        .collect_view();
    Some(notes)
}

/// "Row 5 (“<pad>”, counting from 0)" and "is", or "Rows 5 and 6 (“<pad>”, “<pad>”,
/// counting from 0)" and "are": rows counted from 0, as the lessons and PyTorch count
/// them, and said so (the sentence tabs and heads beside them count from 1).
fn row_list(members: &[(usize, String)]) -> (String, &'static str) {
    let numbers: Vec<String> = members.iter().map(|(i, _)| i.to_string()).collect();
    let tokens: Vec<String> = members.iter().map(|(_, t)| format!("“{t}”")).collect();
    match numbers.as_slice() {
        [one] => (format!("Row {one} ({}, counting from 0)", tokens.join(", ")), "is"),
        [init @ .., last] => {
            (format!("Rows {} and {last} ({}, counting from 0)", init.join(", "), tokens.join(", ")), "are")
        }
        [] => (String::new(), "are"),
    }
}

#[cfg(test)]
mod tests {
    use super::{card_scale, row_list};
    use crate::engine::{run, StepName as S};
    use crate::ui::state::card_id::CardId;

    /// Score-range step 2 asks what the cap makes of a scaled score, then shows the capped
    /// scores: both maps in one range, the uncapped scores', on the lesson's numbers and
    /// after the learner edits the cap or the sentence; every other map keeps its own.
    #[test]
    fn a_questions_before_and_after_share_one_colour_range() {
        let lessons = crate::lessons::lessons();
        let lesson = lessons.iter().find(|l| l.id == "score-range").unwrap();
        let step = &lesson.steps[1];
        let edits: [fn(&mut crate::engine::Scenario); 3] =
            [|_| {}, |s| s.softcap = Some(2.0), |s| s.sentences = vec!["cat sat a big cat".to_string()]];
        for edit in edits {
            let mut scenario = step.scenario.clone();
            edit(&mut scenario);
            let t = run(&scenario).unwrap();
            let card = |step| CardId { step, batch: 0, head: 0 };
            let before = card_scale(&t, card(S::Scaled), step.shared_range, false);
            let after = card_scale(&t, card(S::Capped), step.shared_range, false);
            assert_eq!(before, after);
            // the uncapped scores' range: a capped score is paler than its scaled one
            let scaled = t.step(S::Scaled).unwrap().matrix(0, 0).unwrap();
            let top = scaled.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            assert_eq!((before.lo, before.hi), (-top, top));
            let capped = t.step(S::Capped).unwrap().matrix(0, 0).unwrap();
            assert!(capped.iter().fold(0.0f64, |m, v| m.max(v.abs())) < top);
            // without the shared range the capped map would have a range of its own
            assert_ne!(card_scale(&t, card(S::Capped), &[], false), after);
            // the weights keep viridis over [0, 1], another step its own range
            assert_eq!(
                card_scale(&t, card(S::Weights), step.shared_range, false),
                crate::draw::Scale::weights()
            );
            assert_eq!(
                card_scale(&t, card(S::Scores), step.shared_range, false),
                card_scale(&t, card(S::Scores), &[], false)
            );
        }
        // no other step of the lesson shares one
        for (s, other) in lesson.steps.iter().enumerate() {
            assert_eq!(other.shared_range.is_empty(), s != 1, "step {}", s + 1);
        }
    }

    #[test]
    fn masked_rows_are_named_together() {
        let pad = |i: usize| (i, "<pad>".to_string());
        assert_eq!(row_list(&[pad(5)]), ("Row 5 (“<pad>”, counting from 0)".to_string(), "is"));
        assert_eq!(
            row_list(&[pad(5), pad(6)]),
            ("Rows 5 and 6 (“<pad>”, “<pad>”, counting from 0)".to_string(), "are")
        );
        assert_eq!(
            row_list(&[pad(4), pad(5), pad(6)]).0,
            "Rows 4, 5 and 6 (“<pad>”, “<pad>”, “<pad>”, counting from 0)"
        );
    }
}
