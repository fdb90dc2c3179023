//! Taking the trained model apart on the probe batch: a toggle per head that switches it
//! off (its output zeroed) and shows the loss and the predictions with it off, and the
//! composition panel: what a later layer's keys read from an earlier head, and which heads
//! the prediction depends on. Every number is the engine's `train::circuit`, sent by the
//! worker with the probe view; this file only picks and words them.

use leptos::prelude::*;

use attention_worker::train::ProbeView;

use crate::engine::train::{CircuitReport, HeadEffect, HeadId, KComposition};
use crate::format::fixed;

use crate::ui::learn::head_maps::token_name;
use crate::ui::learn::loss_curve::percent;
use crate::ui::learn::run::LearnRun;
use crate::ui::widgets::scroll_region::scroll_region;
use crate::ui::widgets::section::TitledSection;

/// "layer 1, head 1" (both from 1, as the maps are titled).
pub fn head_name(h: HeadId) -> String {
    format!("layer {}, head {}", h.layer + 1, h.head + 1)
}

/// A loss change with its sign: "+0.412", "−0.003", "0.000".
pub fn signed(change: f64) -> String {
    let text = fixed(change.abs(), 3);
    if text == fixed(0.0, 3) {
        text
    } else if change > 0.0 {
        format!("+{text}")
    } else {
        format!("−{text}")
    }
}

/// The effect of switching `head` off, if the report has it.
pub fn effect(report: &CircuitReport, head: HeadId) -> Option<&HeadEffect> {
    report.ablations.iter().find(|a| a.head == head)
}

/// What switching `e.head` off does on the probe batch, in a sentence.
pub fn ablation_sentence(report: &CircuitReport, e: &HeadEffect) -> String {
    format!(
        "With {} switched off (its output zeroed), the probe batch's loss is {} instead of {} ({}), its accuracy {} instead of {}, and {} of its scored predictions change.",
        head_name(e.head),
        fixed(e.loss, 3),
        fixed(report.loss, 3),
        signed(e.loss_change),
        percent(e.accuracy),
        percent(report.accuracy),
        e.predictions_changed
    )
}

/// The first probe sequence, position by position: its token, its target (`None` when
/// not scored), the prediction with every head on, and with `e.head` off.
pub type PredictionRow = (usize, Option<i64>, usize, usize);

/// [`PredictionRow`]s of the first probe sequence with `e.head` off.
pub fn prediction_rows(probe: &ProbeView, e: &HeadEffect) -> Vec<PredictionRow> {
    (0..probe.tokens.len())
        .filter_map(|i| {
            let target = probe.targets.get(i).copied().filter(|&t| t >= 0);
            Some((probe.tokens[i], target, *probe.predictions.get(i)?, *e.predictions.get(i)?))
        })
        .collect()
}

/// What removing `k.source` from `k.layer`'s keys does, in a sentence (its first head's
/// attention and induction score; the table has every head).
pub fn composition_sentence(report: &CircuitReport, k: &KComposition) -> String {
    let reader = head_name(HeadId { layer: k.layer, head: 0 });
    format!(
        "Take {}'s output out of layer {}'s keys only (its queries, its values and every other layer unchanged): the probe batch's loss is {} instead of {} ({}); {reader}'s attention moves {} of its weight elsewhere, and its weight on the token after the current token's earlier occurrence goes from {} to {}.",
        head_name(k.source),
        k.layer + 1,
        fixed(k.loss, 3),
        fixed(report.loss, 3),
        signed(k.loss_change),
        k.attention_moved.first().map_or_else(String::new, |x| percent(*x)),
        k.induction_before.first().map_or_else(String::new, |x| percent(*x)),
        k.induction_after.first().map_or_else(String::new, |x| percent(*x)),
    )
}

/// Which heads the prediction depends on, in a sentence: those whose ablation raises the
/// loss, the largest rise first.
pub fn depends_sentence(report: &CircuitReport) -> String {
    let named: Vec<String> = report
        .depends_on
        .iter()
        .filter_map(|&h| effect(report, h))
        .map(|e| format!("{} (off, the loss rises by {})", head_name(e.head), fixed(e.loss_change, 3)))
        .collect();
    if named.is_empty() {
        "The prediction depends on no single head yet: switching any one off leaves the loss equal or lower."
            .into()
    } else {
        format!("The prediction depends on {}.", named.join(", then on "))
    }
}

/// A toggle per head; with one off, the loss and the first probe sequence's predictions.
#[component]
pub fn AblationPanel(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let shown = run.shown();
    let off = RwSignal::new(None::<HeadId>);
    let heads = Memo::new(move |_| {
        shown.with(|p| p.as_ref().map(|p| p.circuit.ablations.iter().map(|a| a.head).collect::<Vec<_>>()))
    });
    // a head that no longer exists (fewer layers or heads) is on again
    Effect::new(move |_| {
        if let (Some(h), Some(list)) = (off.get_untracked(), heads.get()) {
            if !list.contains(&h) {
                off.set(None);
            }
        }
    });
    let result = move || {
        let head = off.get()?;
        let task = run.settings.with(|s| s.task);
        shown.with(|p| {
            let p = p.as_ref()?;
            let e = effect(&p.circuit, head)?;
            Some(view! {
                <p data-testid="learn-ablation-words">{ablation_sentence(&p.circuit, e)}</p>
                {scroll_region(
                    format!("Predictions with {} off", head_name(head)),
                    predictions_table(&prediction_rows(p, e), head, &|id| token_name(&p.tokens, task, id)),
                )}
            })
        })
    };
    view! {
        <TitledSection
            class="al-learn-circuit"
            testid="learn-ablation"
            title_id="learn-ablation-title"
            title="Switch a head off"
        >
            <p class="al-learn-caption">
                "One head at a time: its output is zeroed on the probe batch and everything after it is computed again by the engine. Press again to switch it back on."
            </p>
            <div class="al-learn-buttons" role="group" aria-label="Heads">
                {move || {
                    heads
                        .get()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|h| {
                            view! {
                                <button
                                    type="button"
                                    data-testid="learn-ablate"
                                    data-layer=h.layer
                                    data-head=h.head
                                    aria-pressed=move || (off.get() == Some(h)).to_string()
                                    on:click=move |_| {
                                        off.update(|o| *o = if *o == Some(h) { None } else { Some(h) })
                                    }
                                >
                                    {format!("Switch off {}", head_name(h))}
                                </button>
                            }
                        })
                        .collect_view()
                }}
            </div>
            <div aria-live="polite" data-testid="learn-ablation-result">
                {result}
            </div>
        </TitledSection>
    }
}

/// The predictions table, each token named by `name` (a letter on the induction task).
fn predictions_table(rows: &[PredictionRow], head: HeadId, name: &dyn Fn(usize) -> String) -> impl IntoView {
    let cells =
        |f: &dyn Fn(&PredictionRow) -> String| rows.iter().map(|r| view! { <td>{f(r)}</td> }).collect_view();
    let changed = rows
        .iter()
        .map(|&(_, _, on, off)| {
            if on == off {
                view! { <td>{name(off)}</td> }.into_any()
            } else {
                view! {
                    <td class="al-learn-changed">
                        <strong>{name(off)}</strong>
                    </td>
                }
                .into_any()
            }
        })
        .collect_view();
    view! {
        <table data-testid="learn-ablation-table">
            <caption>
                {format!(
                    "The first probe sequence, position by position: the most likely next token with every head on and with {} off (bold: changed; targets only where scored).",
                    head_name(head),
                )}
            </caption>
            <tbody>
                <tr>
                    <th scope="row">"token"</th>
                    {cells(&|r| name(r.0))}
                </tr>
                <tr>
                    <th scope="row">"target"</th>
                    {cells(&|r| r.1.map_or_else(|| "–".to_owned(), |t| name(t as usize)))}
                </tr>
                <tr>
                    <th scope="row">"every head on"</th>
                    {cells(&|r| name(r.2))}
                </tr>
                <tr>
                    <th scope="row">{format!("{} off", head_name(head))}</th>
                    {changed}
                </tr>
            </tbody>
        </table>
    }
}

/// What each later layer's keys read from each earlier head, and the heads the
/// prediction depends on (two layers or more).
#[component]
pub fn CompositionPanel(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let shown = run.shown();
    let report = Memo::new(move |_| shown.with(|p| p.as_ref().map(|p| p.circuit.clone())));
    let body = move || {
        report.with(|r| {
            let r = r.as_ref()?;
            let first = r.k_composition.first()?;
            Some(view! {
                <p data-testid="learn-composition-words">{composition_sentence(r, first)}</p>
                <p data-testid="learn-depends">{depends_sentence(r)}</p>
                {scroll_region("K-composition, every pair".to_owned(), composition_table(r))}
            })
        })
    };
    view! {
        <TitledSection
            class="al-learn-circuit"
            testid="learn-composition"
            title_id="learn-composition-title"
            title="What layer 2's keys read from layer 1"
        >
            {move || {
                match body() {
                    Some(v) => v.into_any(),
                    None => {
                        view! {
                            <p class="al-learn-note">
                                "With one layer there is no later layer to read an earlier head: train two layers (the induction task) to see the heads compose."
                            </p>
                        }
                            .into_any()
                    }
                }
            }}
        </TitledSection>
    }
}

fn composition_table(r: &CircuitReport) -> impl IntoView {
    let rows = r
        .k_composition
        .iter()
        .flat_map(|k| {
            (0..k.attention_moved.len()).map(move |h| {
                let reader = HeadId { layer: k.layer, head: h };
                let at = |v: &[f64]| v.get(h).map_or_else(String::new, |x| percent(*x));
                view! {
                    <tr>
                        <th scope="row">{format!("{} → {}", head_name(k.source), head_name(reader))}</th>
                        <td>{fixed(k.loss, 3)}</td>
                        <td>{signed(k.loss_change)}</td>
                        <td>{at(&k.attention_moved)}</td>
                        <td>{format!("{} → {}", at(&k.induction_before), at(&k.induction_after))}</td>
                        <td>{k.predictions_changed}</td>
                    </tr>
                }
            })
        })
        .collect_view();
    view! {
        <table data-testid="learn-composition-table">
            <caption>
                {format!(
                    "Each earlier head taken out of each later head's keys, on the probe batch (loss with every head: {}).",
                    fixed(r.loss, 3),
                )}
            </caption>
            <thead>
                <tr>
                    <th scope="col">"keys without → reader"</th>
                    <th scope="col">"loss"</th>
                    <th scope="col">"change"</th>
                    <th scope="col">"attention moved"</th>
                    <th scope="col">"induction score"</th>
                    <th scope="col">"predictions changed"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::train::TaskKind;
    use crate::ui::learn::settings::LearnSettings;
    use attention_worker::train::Session;

    /// The words and rows are the worker's circuit, picked, not computed: on the induction
    /// preset after some steps, every number written is one of the report's.
    #[test]
    fn the_panels_word_the_engines_circuit() {
        let mut session = Session::start(&LearnSettings::preset(TaskKind::Induction).config_json()).unwrap();
        let probe = session.advance(20).probe;
        let r = &probe.circuit;
        let layer2 = HeadId { layer: 1, head: 0 };
        let e = effect(r, layer2).unwrap();
        let words = ablation_sentence(r, e);
        assert!(words.starts_with(
            "With layer 2, head 1 switched off (its output zeroed), the probe batch's loss is "
        ));
        assert!(words.contains(&format!(
            "is {} instead of {} ({})",
            fixed(e.loss, 3),
            fixed(r.loss, 3),
            signed(e.loss_change)
        )));
        assert!(words.ends_with(&format!("and {} of its scored predictions change.", e.predictions_changed)));
        let rows = prediction_rows(&probe, e);
        assert_eq!(rows.len(), probe.tokens.len());
        assert_eq!(
            rows[3],
            (
                probe.tokens[3],
                Some(probe.targets[3]).filter(|&t| t >= 0),
                probe.predictions[3],
                e.predictions[3]
            )
        );
        let k = &r.k_composition[0];
        let words = composition_sentence(r, k);
        assert!(words.starts_with("Take layer 1, head 1's output out of layer 2's keys only"), "{words}");
        assert!(words.contains(&format!(
            "from {} to {}.",
            percent(k.induction_before[0]),
            percent(k.induction_after[0])
        )));
        let depends = depends_sentence(r);
        match r.depends_on.first() {
            Some(&h) => assert!(depends.starts_with(&format!(
                "The prediction depends on {} (off, the loss rises by ",
                head_name(h)
            ))),
            None => assert!(depends.starts_with("The prediction depends on no single head")),
        }
    }

    #[test]
    fn a_change_carries_its_sign_unless_it_prints_as_zero() {
        assert_eq!(signed(0.4123), "+0.412");
        assert_eq!(signed(-0.0031), "−0.003");
        assert_eq!(signed(-0.0004), "0.000");
        assert_eq!(signed(0.0), "0.000");
    }

    #[test]
    fn nothing_depended_on_is_said() {
        let r = CircuitReport {
            loss: 1.0,
            accuracy: 0.5,
            ablations: vec![],
            k_composition: vec![],
            depends_on: vec![],
        };
        assert!(depends_sentence(&r).contains("no single head"));
    }
}
