//! Challenges mode: the list of challenges and the open one's panel (story, goal line
//! checked live on the engine's trace, editors for the editable parts, hints one at a
//! time, the worked solution, progress kept in `localStorage`, import and share).
//!
//! The numbers come from the engine's trace ([`crate::engine::run`] on the challenge's own
//! small scenario); whether the goal is met is [`Goal::check`]'s answer.

use leptos::prelude::*;

use crate::challenges::{self, builtin, Challenge, Edit, Goal};
use crate::engine::{explain, top_terms, Padding, Positional, Scenario, StepName, Trace};
use crate::format::exact;

/// The `localStorage` key of the solved challenges' ids, one line each.
const STORAGE_KEY: &str = "attention-lens-solved";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The solved ids on this device (none when storage is unavailable).
fn load_solved() -> Vec<String> {
    storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .map(|t| t.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn save_solved(ids: &[String]) {
    if let Some(s) = storage() {
        let _ = if ids.is_empty() {
            s.remove_item(STORAGE_KEY)
        } else {
            s.set_item(STORAGE_KEY, &ids.join("\n"))
        };
    }
}

/// The query word, key word, head and sentence a goal is about, for "which numbers made
/// it work".
fn pair(goal: &Goal) -> Option<(&str, &str, usize, usize)> {
    match goal {
        Goal::AttendMost { query, key, head, sentence }
        | Goal::WeightAtLeast { query, key, head, sentence, .. } => Some((query, key, *head, *sentence)),
        _ => None,
    }
}

/// One sentence naming the products that made the winning score, in the explain panel's
/// terms (`q[…] · k[…]`), or `None` when the goal has no single winning pair.
fn why_it_works(goal: &Goal, trace: &Trace) -> Option<String> {
    let (q, k, head, b) = pair(goal)?;
    let toks = trace.query_tokens(b);
    let i = toks.iter().position(|t| t.eq_ignore_ascii_case(q))?;
    let j = trace.key_tokens(b).iter().position(|t| t.eq_ignore_ascii_case(k))?;
    let e = explain(trace, StepName::Scores, &[b, head, i, j]).ok()?;
    let (terms, rest) = top_terms(&e, 3);
    let list: Vec<String> = terms.iter().map(|t| format!("{} = {}", t.label, exact(t.value))).collect();
    let rest =
        if rest.abs() > 0.0 { format!(" (the other terms add {})", exact(rest)) } else { String::new() };
    Some(format!(
        "Which numbers made it work: the score {q} → {k} is q · k = {} (before ÷ √d_k), the sum of {q}'s query times {k}'s key, number by number: {}{rest}.",
        exact(e.result),
        list.join(", ")
    ))
}

fn edit_words(edit: &Edit) -> String {
    let nums = |v: &[f64]| v.iter().map(|x| exact(*x)).collect::<Vec<_>>().join(", ");
    match edit {
        Edit::Embedding { word, vector } => format!("{word} = [{}]", nums(vector)),
        Edit::Matrix { matrix, rows } => format!(
            "{} = [{}]",
            matrix.label(),
            rows.iter().map(|r| format!("[{}]", nums(r))).collect::<Vec<_>>().join(", ")
        ),
        Edit::Positions { positional } => {
            format!("positions: {}", if positional.is_none() { "off" } else { "on (sinusoidal)" })
        }
        Edit::Mask { mask } => format!("mask: causal {}, padding {}", mask.causal, mask.padding.name()),
    }
}

fn parse(ev: &leptos::ev::Event) -> Option<f64> {
    event_target_value(ev).trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Challenges mode. `open` is the open challenge's id (`?challenge=ID`); `imported` an
/// imported challenge (from JSON or a `#c=` link).
#[component]
pub fn ChallengeMode(
    /// The open challenge's id (`Some("")`: the list only).
    open: RwSignal<Option<String>>,
    /// A challenge imported as JSON or from a `#c=` link.
    imported: RwSignal<Option<Challenge>>,
) -> impl IntoView {
    let list = builtin::all();
    let solved = RwSignal::new(load_solved());
    let challenge = Memo::new(move |_| {
        let id = open.get()?;
        imported.with(|c| c.clone().filter(|c| c.id == id)).or_else(|| builtin::by_id(&id))
    });
    let scenario = RwSignal::new(None::<Scenario>);
    let hints_shown = RwSignal::new(0usize);
    let show_solution = RwSignal::new(false);
    // Bumped when the editors must show the scenario afresh (a new challenge, "start
    // again"); an edit does not redraw them, so the focus stays where the learner is.
    let generation = RwSignal::new(0u32);
    Effect::new(move |_| {
        scenario.set(challenge.get().map(|c| c.scenario));
        hints_shown.set(0);
        show_solution.set(false);
        generation.update(|g| *g += 1);
    });
    let trace = Memo::new(move |_| scenario.get().map(|s| crate::engine::run(&s).map_err(|e| e.to_string())));
    let progress = Memo::new(move |_| {
        let c = challenge.get()?;
        trace.with(|t| match t {
            Some(Ok(t)) => Some(c.goal.check(t)),
            Some(Err(e)) => Some(challenges::Progress {
                met: false,
                measured: f64::NAN,
                asked: f64::NAN,
                words: e.clone(),
            }),
            None => None,
        })
    });
    let met = move || progress.with(|p| p.as_ref().is_some_and(|p| p.met));
    Effect::new(move |_| {
        if met() {
            if let Some(id) = open.get_untracked() {
                if !solved.with_untracked(|s| s.contains(&id)) {
                    solved.update(|s| s.push(id));
                    solved.with_untracked(|s| save_solved(s));
                }
            }
        }
    });
    let import_text = RwSignal::new(String::new());
    let import_error = RwSignal::new(None::<String>);

    let items = list
        .into_iter()
        .map(|c| {
            let id = c.id.clone();
            let id2 = id.clone();
            let id3 = id.clone();
            view! {
                <li>
                    <button
                        type="button"
                        class="al-tab"
                        data-testid="challenge-item"
                        data-id=id.clone()
                        class:al-selected=move || open.get().as_deref() == Some(id2.as_str())
                        on:click=move |_| open.set(Some(id.clone()))
                    >
                        {c.title.clone()}
                        {move || {
                            solved
                                .with(|s| s.contains(&id3))
                                .then(|| view! { <span class="al-solved">" ✓ solved"</span> })
                        }}
                    </button>
                </li>
            }
        })
        .collect_view();

    let panel = move || {
        let c = challenge.get()?;
        let editors = {
            let c = c.clone();
            move || {
                generation.track();
                let s = scenario.get_untracked()?;
                let emb = c
                    .editable
                    .embeddings
                    .iter()
                    .map(|word| {
                        let vector = s.embeddings.get(word).cloned().unwrap_or_else(|| {
                            trace
                                .with_untracked(|t| {
                                    let t = t.as_ref()?.as_ref().ok()?;
                                    let b = t
                                        .tokens
                                        .iter()
                                        .position(|r| r.iter().any(|x| x.eq_ignore_ascii_case(word)))?;
                                    let i = t.tokens[b].iter().position(|x| x.eq_ignore_ascii_case(word))?;
                                    let x = t.step(StepName::X)?.matrix(b, 0)?;
                                    Some(x.row(i).to_vec())
                                })
                                .unwrap_or_else(|| vec![0.0; s.d_model])
                        });
                        let cells = vector
                            .iter()
                            .enumerate()
                            .map(|(d, v)| {
                                let word = word.clone();
                                let full = vector.clone();
                                let dim = crate::engine::embedding::lexicon(s.d_model)
                                    .and_then(|l| l.dims.get(d).map(|n| n.to_string()))
                                    .unwrap_or_else(|| format!("d{}", d + 1));
                                view! {
                                    <label class="al-emb-cell">
                                        <span>{dim.clone()}</span>
                                        <input
                                            type="number"
                                            step="0.1"
                                            class="al-num"
                                            data-testid="challenge-embedding"
                                            data-word=word.clone()
                                            data-dim=d
                                            aria-label=format!("{word}, {dim}")
                                            prop:value=exact(*v)
                                            on:change=move |ev| {
                                                if let Some(x) = parse(&ev) {
                                                    scenario
                                                        .update(|s| {
                                                            if let Some(s) = s {
                                                                let mut v = s
                                                                    .embeddings
                                                                    .get(&word)
                                                                    .cloned()
                                                                    .unwrap_or_else(|| full.clone());
                                                                if let Some(slot) = v.get_mut(d) {
                                                                    *slot = x;
                                                                }
                                                                *s = challenges::apply(
                                                                    s,
                                                                    &Edit::Embedding {
                                                                        word: word.clone(),
                                                                        vector: v,
                                                                    },
                                                                );
                                                            }
                                                        });
                                                }
                                            }
                                        />
                                    </label>
                                }
                            })
                            .collect_view();
                        view! {
                            <div class="al-emb-row">
                                <code>{word.clone()}</code>
                                " = [ "
                                {cells}
                                " ]"
                            </div>
                        }
                    })
                    .collect_view();
                let mats = c
                    .editable
                    .matrices
                    .iter()
                    .map(|&m| {
                        let rows = challenges::matrix_rows(&s, m);
                        let name = format!("{m:?}").to_lowercase().replace("w", "w_");
                        let body = rows
                            .iter()
                            .enumerate()
                            .map(|(i, r)| {
                                let cells = r
                                    .iter()
                                    .enumerate()
                                    .map(|(j, v)| view! {
                                        <td>
                                            <input
                                                type="number"
                                                step="0.1"
                                                class="al-num"
                                                data-testid="challenge-matrix-input"
                                                data-matrix=name.clone()
                                                data-row=i
                                                data-col=j
                                                aria-label=format!(
                                                    "{} row {} column {}",
                                                    m.label(),
                                                    i + 1,
                                                    j + 1,
                                                )
                                                prop:value=exact(*v)
                                                on:change=move |ev| {
                                                    if let Some(x) = parse(&ev) {
                                                        scenario
                                                            .update(|s| {
                                                                if let Some(s) = s {
                                                                    *s = challenges::set_matrix_entry(s, m, i, j, x);
                                                                }
                                                            });
                                                    }
                                                }
                                            />
                                        </td>
                                    })
                                    .collect_view();
                                view! { <tr>{cells}</tr> }
                            })
                            .collect_view();
                        view! {
                            <figure
                                class="al-matrix-editor"
                                data-testid="challenge-matrix"
                                data-matrix=name.clone()
                            >
                                <figcaption>
                                    <code>{m.label()}</code>
                                    {format!(" ({} × {})", rows.len(), rows.first().map_or(0, Vec::len))}
                                </figcaption>
                                <table>
                                    <tbody>{body}</tbody>
                                </table>
                            </figure>
                        }
                    })
                    .collect_view();
                let positions = c.editable.positions.then(|| {
                    view! {
                        <label>
                            <input
                                type="checkbox"
                                data-testid="challenge-positions"
                                prop:checked=!s.positional.is_none()
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    let p = if on { Positional::Sinusoidal } else { Positional::None };
                                    scenario
                                        .update(|s| {
                                            if let Some(s) = s {
                                                s.positional = p;
                                            }
                                        });
                                }
                            />
                            " add positions (sinusoidal)"
                        </label>
                    }
                });
                let mask = c.editable.mask.then(|| view! {
                    <label>
                        <input
                            type="checkbox"
                            data-testid="challenge-padding"
                            prop:checked=s.mask.padding != Padding::None
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                scenario
                                    .update(|s| {
                                        if let Some(s) = s {
                                            s.mask.padding = if on { Padding::Keys } else { Padding::None };
                                        }
                                    });
                            }
                        />
                        " padding mask"
                    </label>
                });
                Some(view! {
                    <div class="al-challenge-editors" data-testid="challenge-editors">
                        {positions}
                        {mask}
                        {emb}
                        {mats}
                    </div>
                })
            }
        };
        // The goal's weights, read from the trace, so the learner sees what moves.
        let weights = {
            let goal = c.goal.clone();
            move || {
                trace.with(|t| {
                    let t = t.as_ref()?.as_ref().ok()?;
                    let (b, heads): (usize, Vec<usize>) = match &goal {
                        Goal::HeadsDiffer { heads, sentence, .. } => (*sentence, heads.to_vec()),
                        Goal::AttendMost { head, sentence, .. }
                        | Goal::WeightAtLeast { head, sentence, .. }
                        | Goal::WeightAtMost { head, sentence, .. }
                        | Goal::PreviousToken { head, sentence, .. } => (*sentence, vec![*head]),
                        Goal::UniformRows { sentence, .. } | Goal::OutputEquals { sentence, .. } => {
                            (*sentence, vec![0])
                        }
                    };
                    let keys = t.key_tokens(b).to_vec();
                    let tables = heads
                        .into_iter()
                        .filter_map(|h| {
                            let m = t.step(StepName::Weights)?.matrix(b, h)?;
                            let head_row = keys
                                .iter()
                                .map(|k| view! { <th scope="col">{k.clone()}</th> })
                                .collect_view();
                            let rows = m
                                .outer_iter()
                                .enumerate()
                                .map(|(i, r)| {
                                    let q = t.query_tokens(b).get(i).cloned().unwrap_or_default();
                                    let cells = r
                                        .iter()
                                        .map(|w| view! { <td>{challenges::goal::num(*w)}</td> })
                                        .collect_view();
                                    view! {
                                        <tr>
                                            <th scope="row">{q}</th>
                                            {cells}
                                        </tr>
                                    }
                                })
                                .collect_view();
                            Some(view! {
                                <table class="al-challenge-weights" data-testid="challenge-weights">
                                    <caption>
                                        {format!("weights, head {} (rows: queries, columns: keys)", h + 1)}
                                    </caption>
                                    <thead>
                                        <tr>
                                            <th></th>
                                            {head_row}
                                        </tr>
                                    </thead>
                                    <tbody>{rows}</tbody>
                                </table>
                            })
                        })
                        .collect_view();
                    // may scroll sideways on a phone: focusable and named, so a keyboard reaches it
                    Some(view! {
                        <div
                            class="al-challenge-tables"
                            tabindex="0"
                            role="region"
                            aria-label="the weights the goal reads, as tables"
                        >
                            {tables}
                        </div>
                    })
                })
            }
        };
        let hints = c.hints.clone();
        let n_hints = hints.len();
        let solution = c.solution.iter().map(edit_words).collect::<Vec<_>>();
        let why = c.why.clone();
        let goal_text = c.goal.describe();
        let goal_for_why = c.goal.clone();
        let share = challenges::link_fragment(&c);
        let builtin_id = builtin::by_id(&c.id).is_some();
        Some(view! {
            <section class="al-challenge" data-testid="challenge" aria-labelledby="al-challenge-title">
                <h2 id="al-challenge-title">{c.title.clone()}</h2>
                <p class="al-challenge-story">{c.story.clone()}</p>
                <p
                    class="al-challenge-goal"
                    data-testid="challenge-goal"
                    aria-live="polite"
                    data-met=move || if met() { "true" } else { "false" }
                >
                    <strong>{move || if met() { "Goal met: " } else { "Goal: " }}</strong>
                    {goal_text}
                    <br />
                    <span data-testid="challenge-progress">
                        {move || progress.with(|p| p.as_ref().map(|p| p.words.clone()))}
                    </span>
                </p>
                {editors}
                {weights}
                {move || {
                    met()
                        .then(|| {
                            trace
                                .with(|t| {
                                    t.as_ref()
                                        .and_then(|t| t.as_ref().ok())
                                        .and_then(|t| why_it_works(&goal_for_why, t))
                                })
                                .map(|w| {
                                    view! {
                                        <p class="al-challenge-why" data-testid="challenge-why">
                                            {w}
                                        </p>
                                    }
                                })
                        })
                }}
                <div class="al-challenge-help">
                    <ol class="al-challenge-hints">
                        {move || {
                            hints
                                .iter()
                                .take(hints_shown.get())
                                .map(|h| view! { <li data-testid="challenge-hint">{h.clone()}</li> })
                                .collect_view()
                        }}
                    </ol>
                    <button
                        type="button"
                        data-testid="challenge-next-hint"
                        disabled=move || { hints_shown.get() >= n_hints }
                        on:click=move |_| hints_shown.update(|n| *n = (*n + 1).min(n_hints))
                    >
                        {move || format!("Show a hint ({} of {n_hints} shown)", hints_shown.get())}
                    </button>
                    <button
                        type="button"
                        data-testid="challenge-show-solution"
                        on:click=move |_| show_solution.set(true)
                    >
                        "Show the solution"
                    </button>
                    <button
                        type="button"
                        data-testid="challenge-reset"
                        on:click={
                            let s0 = c.scenario.clone();
                            move |_| {
                                scenario.set(Some(s0.clone()));
                                generation.update(|g| *g += 1);
                            }
                        }
                    >
                        "Start again"
                    </button>
                    {move || {
                        (show_solution.get() || met())
                            .then(|| {
                                view! {
                                    <div class="al-challenge-solution" data-testid="challenge-solution">
                                        <p>
                                            <strong>"A worked solution: "</strong>
                                            {solution.join("; ")}
                                        </p>
                                        <p>{why.clone()}</p>
                                    </div>
                                }
                            })
                    }}
                    {(!builtin_id)
                        .then(|| {
                            view! {
                                <p class="al-note">
                                    "Share this challenge: "
                                    <a data-testid="challenge-share" href=share.clone()>
                                        "link"
                                    </a>
                                </p>
                            }
                        })}
                </div>
            </section>
        })
    };

    view! {
        <div class="al-challenges" data-testid="challenges">
            <nav class="al-challenge-list" aria-label="Challenges">
                <h2>"Challenges: build the head yourself"</h2>
                <ol>{items}</ol>
                <button
                    type="button"
                    data-testid="challenge-clear"
                    on:click=move |_| {
                        solved.set(Vec::new());
                        save_solved(&[]);
                    }
                >
                    "Clear my progress"
                </button>
                <details class="al-fold">
                    <summary>"Import a challenge (JSON)"</summary>
                    <label for="al-challenge-json">"Challenge JSON (see the README)"</label>
                    <textarea
                        id="al-challenge-json"
                        data-testid="challenge-import"
                        rows="6"
                        prop:value=move || import_text.get()
                        on:input=move |ev| import_text.set(event_target_value(&ev))
                    ></textarea>
                    <button
                        type="button"
                        data-testid="challenge-import-go"
                        on:click=move |_| {
                            match Challenge::from_json(&import_text.get_untracked()) {
                                Ok(c) => {
                                    import_error.set(None);
                                    let id = c.id.clone();
                                    imported.set(Some(c));
                                    open.set(Some(id));
                                }
                                Err(e) => import_error.set(Some(e)),
                            }
                        }
                    >
                        "Import"
                    </button>
                    {move || {
                        import_error
                            .get()
                            .map(|e| {
                                view! {
                                    <p class="al-error" role="alert" data-testid="challenge-import-error">
                                        {e}
                                    </p>
                                }
                            })
                    }}
                </details>
            </nav>
            {panel}
            {move || {
                open.get()
                    .is_some_and(|id| challenge.get().is_none() && !id.is_empty())
                    .then(|| {
                        view! {
                            <p class="al-notice" data-testid="notice">
                                "This challenge does not exist; pick one from the list."
                            </p>
                        }
                    })
            }}
        </div>
    }
}
