//! One weight's gradient cell, explained: the learner picks a weight and a cell; the
//! worker answers with the engine's `explain_gradient` on the probe batch at the run's
//! current parameters; this shows dL/dW[i, j] as the sum of its chain-rule terms and says
//! why its sign is what it is. The numbers are the engine's; the words compare their signs.

use leptos::prelude::*;

use attention_worker::train::GradientView;

use crate::format::reading;

use crate::ui::learn::run::LearnRun;
use crate::ui::widgets::fields::NumberField;
use crate::ui::widgets::section::TitledSection;

/// The weights whose cells can be explained, for a model of `n_layers` layers.
pub fn weight_names(n_layers: usize) -> Vec<String> {
    (0..n_layers)
        .flat_map(|l| ["W_Q", "W_K", "W_V", "W_O"].map(|w| format!("layers[{l}].{w}")))
        .chain(std::iter::once("W_U".to_owned()))
        .collect()
}

/// "positive", "negative" or "zero".
fn sign_word(v: f64) -> &'static str {
    if v > 0.0 {
        "positive"
    } else if v < 0.0 {
        "negative"
    } else {
        "zero"
    }
}

/// Why the cell's gradient has its sign, in two sentences built from the engine's numbers.
pub fn why_words(v: &GradientView) -> String {
    let cell = &v.cell;
    let value = cell.value;
    let listed = cell.terms.len();
    let mut words = format!(
        "dL/d{}[{}, {}] = {} is {}: its {listed} largest terms add up to {} ({}), and the other {} terms to {}.",
        cell.name,
        v.i,
        v.j,
        reading(value),
        sign_word(value),
        reading(v.listed_sum),
        sign_word(v.listed_sum),
        v.n_terms - listed,
        reading(v.rest),
    );
    if let Some(top) = cell.terms.first() {
        let agree = (top.input > 0.0) == (top.upstream > 0.0);
        words.push_str(&format!(
            " The largest term, sequence {} position {}, is {} because its input and its upstream have {} signs.",
            top.b + 1,
            top.t + 1,
            sign_word(top.product),
            if agree { "the same" } else { "opposite" },
        ));
    }
    let direction = if value > 0.0 {
        " Raising this weight would raise the probe's loss, so plain gradient descent lowers it."
    } else if value < 0.0 {
        " Raising this weight would lower the probe's loss, so plain gradient descent raises it."
    } else {
        " The loss does not change with this weight here, so gradient descent leaves it."
    };
    words.push_str(direction);
    words
}

/// Picks a weight cell and asks the worker to explain its gradient.
#[component]
pub fn GradientCellPanel(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let name = RwSignal::new("layers[0].W_Q".to_owned());
    let (row, col) = (RwSignal::new(0usize), RwSignal::new(0usize));
    let names = move || run.settings.with(|s| weight_names(s.n_layers));
    let index = move |target: RwSignal<usize>| {
        Callback::new(move |text: String| match text.trim().parse::<usize>() {
            Ok(v) => target.set(v),
            Err(_) => run.gradient.set(Some(Err("row and column: whole numbers from 0".to_owned()))),
        })
    };
    let index_field = move |label: &'static str, testid: &'static str, target: RwSignal<usize>| {
        view! {
            <NumberField
                label
                testid
                min="0"
                commit=true
                value=Signal::derive(move || target.get().to_string())
                on_input=index(target)
            />
        }
    };
    view! {
        <TitledSection
            class="al-learn-gradient"
            testid="learn-gradient"
            title_id="learn-gradient-title"
            title="One gradient cell, explained"
        >
            <p>
                "Pick a weight and a cell. Its gradient on the probe batch, at the model's current step, is a sum over every sequence and position of the weight's input there (row i) times the gradient flowing into its output (column j)."
            </p>
            <div class="al-row">
                <label class="al-field">
                    <span>"Weight"</span>
                    <select
                        data-testid="learn-gradient-name"
                        on:change=move |ev| name.set(event_target_value(&ev))
                    >
                        {move || {
                            names()
                                .into_iter()
                                .map(|n| {
                                    let selected = name.get_untracked() == n;
                                    let label = n.clone();
                                    view! {
                                        <option value=n selected=selected>
                                            {label}
                                        </option>
                                    }
                                })
                                .collect_view()
                        }}
                    </select>
                </label>
                {index_field("row i", "learn-gradient-i", row)}
                {index_field("column j", "learn-gradient-j", col)}
                <button
                    type="button"
                    data-testid="learn-gradient-explain"
                    on:click=move |_| {
                        run.explain_gradient(name.get_untracked(), row.get_untracked(), col.get_untracked())
                    }
                >
                    "Explain"
                </button>
            </div>
            {move || {
                run.gradient
                    .get()
                    .map(|answer| match answer {
                        Ok(v) => view! { <GradientTerms v /> }.into_any(),
                        Err(e) => {
                            view! {
                                <p class="al-learn-error" role="alert" data-testid="learn-gradient-error">
                                    {e}
                                </p>
                            }
                                .into_any()
                        }
                    })
            }}
        </TitledSection>
    }
}

/// The cell's largest chain-rule terms, the rest, their sum, and why its sign is what it is.
#[component]
fn GradientTerms(
    /// The worker's answer.
    v: GradientView,
) -> impl IntoView {
    let cell = &v.cell;
    let left_out = v.n_terms - cell.terms.len();
    let rows = cell
        .terms
        .iter()
        .map(|t| {
            view! {
                <tr>
                    <td>{t.b + 1}</td>
                    <td>{t.t + 1}</td>
                    <td>{reading(t.input)}</td>
                    <td>{reading(t.upstream)}</td>
                    <td>{reading(t.product)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="al-table-wrap" data-testid="learn-gradient-result">
            <table class="al-table" data-testid="learn-gradient-table">
                <caption>
                    {format!(
                        "dL/d{}[{}, {}] on the probe batch after step {}: Σ over sequences and positions of {}[i] × {}[j], largest terms first",
                        cell.name,
                        v.i,
                        v.j,
                        v.step,
                        cell.input,
                        cell.upstream,
                    )}
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"sequence"</th>
                        <th scope="col">"position"</th>
                        <th scope="col">{format!("input {}", cell.input)}</th>
                        <th scope="col">{format!("upstream {}", cell.upstream)}</th>
                        <th scope="col">"product"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
                <tfoot>
                    <tr>
                        <th scope="row" colspan="4">
                            {format!("the other {left_out} terms")}
                        </th>
                        <td>{reading(v.rest)}</td>
                    </tr>
                    <tr>
                        <th scope="row" colspan="4">
                            "the sum: dL/dW[i, j]"
                        </th>
                        <td data-testid="learn-gradient-value">{reading(cell.value)}</td>
                    </tr>
                </tfoot>
            </table>
        </div>
        <p data-testid="learn-gradient-why">{why_words(&v)}</p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use attention_worker::train::Session;

    #[test]
    fn the_words_follow_the_engines_signs() {
        assert_eq!(
            weight_names(1),
            ["layers[0].W_Q", "layers[0].W_K", "layers[0].W_V", "layers[0].W_O", "W_U"]
        );
        assert_eq!(weight_names(2).len(), 9);
        let config = r#"{"task": "previous-token", "vocab": 8, "T": 6, "batch": 8, "seed": 3, "steps": 50,
            "d_model": 8, "n_heads": 2, "positions": "learned", "causal": true,
            "optimizer": {"kind": "adam", "lr": 0.02}}"#;
        let mut session = Session::start(config).unwrap();
        session.advance(5);
        let v = session.gradient("layers[0].W_Q", 0, 1).unwrap();
        let words = why_words(&v);
        assert!(
            words.starts_with(&format!(
                "dL/dlayers[0].W_Q[0, 1] = {} is {}",
                reading(v.cell.value),
                sign_word(v.cell.value)
            )),
            "{words}"
        );
        let lowers = words.ends_with("so plain gradient descent lowers it.");
        assert_eq!(lowers, v.cell.value > 0.0, "{words}");
        let top = v.cell.terms[0];
        assert_eq!(words.contains("the same signs"), top.input * top.upstream > 0.0, "{words}");
    }
}
