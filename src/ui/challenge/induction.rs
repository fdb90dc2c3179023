//! The constructing challenge "Build an induction head by hand": four selects (W_Q and
//! W_K of two layers, each a [`Map`]), a strength, the engine's verdict on the test
//! sequences ([`judge`]), both heads' maps on the first one (drawn as the Learn view draws
//! a head), hints one at a time and the worked solution.

use leptos::prelude::*;
use ndarray::Array2;

use crate::challenges::induction::{
    judge, legend, read_strength, strength_words, verdict_words, Attempt, Map, Outcome, HINTS, SEQUENCES,
    STORY, T, WHY,
};
use crate::format::exact;
use crate::ui::challenge::text::by_hand_title;

use crate::ui::learn::head_maps::{HeadMapData, HeadMapFigure, MapFit};
use crate::ui::widgets::fields::{NumberField, SelectField};
use crate::ui::widgets::hints::{HintList, NextHintButton};

/// One layer's two selects.
fn layer_selects(layer: usize, attempt: RwSignal<Attempt>) -> impl IntoView {
    let get = move |a: &Attempt| if layer == 0 { a.layer1 } else { a.layer2 };
    let set = move |which: usize, key: String| {
        if let Some(m) = Map::from_key(&key) {
            attempt.update(|a| {
                let pair = if layer == 0 { &mut a.layer1 } else { &mut a.layer2 };
                if which == 0 {
                    pair.0 = m;
                } else {
                    pair.1 = m;
                }
            });
        }
    };
    let choices = || Map::ALL.iter().map(|m| (m.key(), m.label(), false)).collect::<Vec<_>>();
    let labels: [[&'static str; 2]; 4] = [
        ["Layer 1 W_Q reads", "induction-q1"],
        ["Layer 1 W_K reads", "induction-k1"],
        ["Layer 2 W_Q reads", "induction-q2"],
        ["Layer 2 W_K reads", "induction-k2"],
    ];
    (0..2)
        .map(|which| {
            let [label, testid] = labels[2 * layer.min(1) + which];
            let value = Signal::derive(move || {
                attempt.with(|a| if which == 0 { get(a).0.key() } else { get(a).1.key() })
            });
            view! {
                <SelectField
                    label=label
                    testid=testid
                    value=value
                    choices=choices()
                    on_change=Callback::new(move |v| set(which, v))
                />
            }
        })
        .collect_view()
}

/// The challenge.
#[component]
pub fn InductionChallenge() -> impl IntoView {
    let attempt = RwSignal::new(Attempt::START);
    let hints = RwSignal::new(0usize);
    let solution = RwSignal::new(false);
    let outcome = Memo::new(move |_| judge(&attempt.get()));
    let met = move || outcome.with(|o| o.as_ref().is_some_and(Outcome::met));
    let strength = Signal::derive(move || attempt.with(|a| a.strength.to_string()));
    // a typed strength that is not one: its message, until a good one is typed
    let strength_error = RwSignal::new(None::<String>);
    view! {
        <section
            class="al-challenge"
            data-testid="induction-challenge"
            aria-labelledby="induction-challenge-title"
        >
            <h2 id="induction-challenge-title">{by_hand_title(crate::challenges::builtin::all().len())}</h2>
            <p>{STORY}</p>
            <div class="al-learn-settings">
                {layer_selects(0, attempt)} {layer_selects(1, attempt)}
                <NumberField
                    label="Strength of every set entry"
                    testid="induction-strength"
                    min="0"
                    max=Some("20".to_owned())
                    step="any"
                    value=strength
                    commit=true
                    on_input=Callback::new(move |v: String| {
                        match read_strength(&v) {
                            Ok(s) => {
                                strength_error.set(None);
                                attempt.update(|a| a.strength = s);
                            }
                            Err(e) => strength_error.set(Some(e)),
                        }
                    })
                >
                    {move || {
                        strength_error
                            .get()
                            .map(|e| {
                                let kept = exact(attempt.with_untracked(|a| a.strength));
                                view! {
                                    <p class="al-error" data-testid="induction-strength-error" role="alert">
                                        {format!("{e} The maps keep strength {kept}.")}
                                    </p>
                                }
                            })
                    }}
                </NumberField>
            </div>
            <p class="al-learn-note" data-testid="induction-strength-note">
                {move || strength_words(attempt.with(|a| a.strength))}
            </p>
            <dl class="al-induction-legend" data-testid="induction-legend">
                {legend()
                    .into_iter()
                    .map(|(term, meaning)| {
                        view! {
                            <dt>{format!("\u{201c}{term}\u{201d}")}</dt>
                            <dd>{meaning}</dd>
                        }
                    })
                    .collect_view()}
            </dl>
            <p class="al-goal" class:al-met=met data-testid="induction-verdict" aria-live="polite">
                {move || {
                    let a = attempt.get();
                    outcome.with(|o| o.as_ref().map(|o| verdict_words(&a, o)).unwrap_or_default())
                }}
            </p>
            {move || (met() || solution.get()).then(|| view! { <p data-testid="induction-why">{WHY}</p> })}
            <p>{format!("The maps: both heads on {}.", SEQUENCES[0])}</p>
            <div class="al-induction-heads">
                <ChallengeMap outcome=outcome layer=0 />
                <ChallengeMap outcome=outcome layer=1 />
            </div>
            <HintList hints=HINTS.map(str::to_owned).to_vec() shown=hints testid="induction-hint-text" />
            <NextHintButton n=HINTS.len() shown=hints testid="induction-hint" />
            <button
                type="button"
                data-testid="induction-solution"
                on:click=move |_| {
                    attempt.set(Attempt::SOLUTION);
                    solution.set(true);
                }
            >
                "Show the worked solution"
            </button>
        </section>
    }
}

/// One head's map on the first test sequence.
#[component]
fn ChallengeMap(outcome: Memo<Option<Outcome>>, layer: usize) -> impl IntoView {
    let labels: Vec<String> = SEQUENCES[0].split_whitespace().map(String::from).collect();
    let data = Signal::derive(move || {
        outcome.with(|o| {
            let o = o.as_ref()?;
            Some(HeadMapData {
                values: Array2::from_shape_vec((T, T), o.attention[layer].clone()).ok()?,
                labels: labels.clone(),
                blocked: (0..T * T).map(|k| k % T > k / T).collect(),
                scores: None,
                probe_loss: o.loss,
            })
        })
    });
    let name = format!("Layer {}'s head", layer + 1);
    view! {
        <HeadMapFigure
            data=data
            fit=MapFit::LEARN
            name=name.clone()
            aria=format!("{name}: attention weights on the test sequence")
            caption=|| ": rows the query, columns the key."
        />
    }
}
