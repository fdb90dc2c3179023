//! The Learn view's controls: what to train (task, sizes, positions, optimizer, learning
//! rate, seed), and Play, Pause, Step and Reset with the run's step, and the loss and
//! accuracy of the model shown (the slider's, when it stepped back).
//! A changed setting starts the run again; whether the settings make a model is the
//! engine's to say (the worker sends its message, shown under the controls).

use leptos::prelude::*;

use crate::engine::train::TaskKind;
use crate::format::{fixed, reading};

use attention_worker::train::{diverged, DIVERGED_FACTOR};

use crate::ui::learn::run::{LearnRun, WATCH_MS, WATCH_SLICE};
use crate::ui::learn::scrubber::after_updates;
use crate::ui::learn::settings::{
    position_name, LearnSettings, OptKind, MAX_D_MODEL, MAX_HEADS, MAX_LAYERS, MAX_LR, MAX_T, MAX_VOCAB,
    POSITIONS, SGD_MOMENTUM, TASKS,
};
use crate::ui::widgets::fields::{NumberField, SelectField};

/// The task's name in the menu.
pub fn task_label(task: TaskKind) -> &'static str {
    match task {
        TaskKind::PreviousToken => "previous token",
        TaskKind::FirstToken => "first token",
        TaskKind::Induction => "induction (repeat a sequence)",
        TaskKind::Sentences => "sentences",
    }
}

/// One whole-number setting of the run, from `lo` to `hi`: `label` and `testid` name the
/// input, `field` is the setting in the settings.
#[derive(Clone, Copy)]
struct Count {
    label: &'static str,
    testid: &'static str,
    lo: usize,
    hi: usize,
    field: fn(&mut LearnSettings) -> &mut usize,
}

/// The sizes, in the order the controls show them.
const COUNTS: [Count; 5] = [
    Count { label: "vocab", testid: "learn-vocab", lo: 2, hi: MAX_VOCAB, field: |s| &mut s.vocab },
    Count { label: "T (tokens)", testid: "learn-T", lo: 2, hi: MAX_T, field: |s| &mut s.t },
    Count { label: "d_model", testid: "learn-d", lo: 1, hi: MAX_D_MODEL, field: |s| &mut s.d_model },
    Count { label: "heads h", testid: "learn-h", lo: 1, hi: MAX_HEADS, field: |s| &mut s.n_heads },
    Count { label: "layers", testid: "learn-layers", lo: 1, hi: MAX_LAYERS, field: |s| &mut s.n_layers },
];

/// A number input for one [`Count`]; a value outside its range says so and the run keeps
/// its last value.
#[component]
fn CountField(run: LearnRun, count: Count) -> impl IntoView {
    let Count { label, testid, lo, hi, field } = count;
    let on_commit = Callback::new(move |text: String| match text.trim().parse::<usize>() {
        Ok(v) if (lo..=hi).contains(&v) => {
            run.settings.update(|s| *field(s) = v);
            run.reset();
        }
        _ => run.error.set(Some(format!(
            "{label}: must be a whole number from {lo} to {hi}; the run keeps its last value."
        ))),
    });
    view! {
        <NumberField
            label
            testid
            min=lo.to_string()
            max=hi.to_string()
            commit=true
            value=Signal::derive(move || field(&mut run.settings.get()).to_string())
            on_input=on_commit
        />
    }
}

/// One setting chosen from a menu of `choices` (each with its value and its text), a
/// [`SelectField`]: a choice is `put` into the settings and the run starts again.
#[component]
fn MenuField<T: Copy + PartialEq + Send + Sync + 'static>(
    /// The training run.
    run: LearnRun,
    /// The caption.
    label: &'static str,
    /// The select's `data-testid`.
    testid: &'static str,
    /// The choices, in order: the setting, its value, its text.
    choices: Vec<(T, &'static str, String)>,
    /// The setting's value in the settings.
    get: fn(&LearnSettings) -> T,
    /// Sets it.
    put: fn(&mut LearnSettings, T),
) -> impl IntoView {
    let values: Vec<(T, &'static str)> = choices.iter().map(|&(c, value, _)| (c, value)).collect();
    let by_name = values.clone();
    let value = Signal::derive(move || {
        let now = run.settings.with(get);
        values.iter().find(|(c, _)| *c == now).map_or("", |&(_, value)| value)
    });
    let on_change = Callback::new(move |name: String| {
        if let Some(&(c, _)) = by_name.iter().find(|(_, value)| *value == name) {
            run.settings.update(|s| put(s, c));
            run.reset();
        }
    });
    let choices = choices.into_iter().map(|(_, value, text)| (value, text, false)).collect();
    view! { <SelectField label testid value choices on_change /> }
}

/// The positions, the optimizer, its learning rate and the seed.
#[component]
fn TrainingFields(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let s = run.settings;
    let on_lr = Callback::new(move |text: String| match crate::format::read_typed_number(&text) {
        Some(lr) if lr.is_finite() && lr > 0.0 && lr <= MAX_LR => {
            s.update(|s| s.lr = lr);
            run.reset();
        }
        _ => run.error.set(Some(format!(
            "learning rate: must be a number above 0 and at most {MAX_LR}; the run keeps its last value."
        ))),
    });
    let on_seed = Callback::new(move |text: String| match text.trim().parse::<u64>() {
        Ok(seed) => {
            s.update(|s| s.seed = seed);
            run.reset();
        }
        Err(_) => {
            run.error.set(Some("seed: must be a whole number ≥ 0; the run keeps its last value.".into()))
        }
    });
    let opt_label = |o: OptKind| match o {
        OptKind::Sgd => format!("SGD, momentum {SGD_MOMENTUM}"),
        OptKind::Adam => "Adam".to_owned(),
        OptKind::AdamW => "AdamW (weight decay 0.01)".to_owned(),
    };
    view! {
        <div class="al-row">
            <MenuField
                run
                label="Positions"
                testid="learn-positions"
                choices=POSITIONS
                    .into_iter()
                    .map(|p| (p, position_name(p), position_name(p).to_owned()))
                    .collect()
                get=|s| s.positions
                put=|s, p| s.positions = p
            />
            <MenuField
                run
                label="Optimizer"
                testid="learn-optimizer"
                choices=OptKind::ALL.into_iter().map(|o| (o, o.name(), opt_label(o))).collect()
                get=|s| s.optimizer
                put=|s, o| s.optimizer = o
            />
            <NumberField
                label="Learning rate"
                testid="learn-lr"
                min="0"
                max=MAX_LR.to_string()
                step="any"
                commit=true
                value=Signal::derive(move || s.with(|s| s.lr.to_string()))
                on_input=on_lr
            />
            <NumberField
                label="Seed"
                testid="learn-seed"
                min="0"
                commit=true
                value=Signal::derive(move || s.with(|s| s.seed.to_string()))
                on_input=on_seed
            />
        </div>
    }
}

/// The settings of the run.
#[component]
pub fn LearnControls(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let s = run.settings;
    view! {
        <section class="al-controls al-learn-controls" aria-label="What to train">
            <div class="al-row">
                <MenuField
                    run
                    label="Task"
                    testid="learn-task"
                    choices=TASKS.into_iter().map(|t| (t, t.name(), task_label(t).to_owned())).collect()
                    get=|s| s.task
                    put=|s, t| *s = LearnSettings::preset(t)
                />
                {COUNTS.into_iter().map(|c| view! { <CountField run count=c /> }).collect_view()}
            </div>
            <TrainingFields run />
            <p class="al-learn-error" role="alert" data-testid="learn-error">
                {move || run.error.get()}
            </p>
            {move || {
                s.with(|s| s.task == TaskKind::Induction && s.n_layers < 2)
                    .then(|| {
                        view! {
                            <p class="al-learn-note">
                                "An induction head needs two layers: one to copy each token's predecessor, one to look it up. With one layer, expect the loss to stay high."
                            </p>
                        }
                    })
            }}
        </section>
    }
}

/// Play, Pause, one Step, Reset, where the run is, and the loss and accuracy of the model
/// the maps show (the slider's when it stepped back, named so: the run's step alone beside
/// an older model's numbers read as the trained model's).
#[component]
pub fn PlayBar(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    // the model the maps show: the one the slider stepped back to, else the one now
    let shown = run.shown();
    let shown_step = move || run.scrubbed.with(|c| c.as_ref().map(|c| c.step));
    let probe_number =
        move |f: fn(&attention_worker::train::ProbeView) -> f64| shown.with(|p| p.as_ref().map(f));
    let loss = move || probe_number(|p| p.loss).map_or_else(|| "…".to_owned(), |v| fixed(v, 3));
    let accuracy = move || {
        probe_number(|p| p.accuracy).map_or_else(|| "…".to_owned(), |v| format!("{}%", fixed(v * 100.0, 1)))
    };
    view! {
        <div class="al-learn-bar">
            <div class="al-learn-buttons">
                <button
                    type="button"
                    data-testid="learn-play"
                    disabled=move || run.playing.get()
                    on:click=move |_| run.play()
                >
                    "▶ Play"
                </button>
                <button
                    type="button"
                    data-testid="learn-pause"
                    disabled=move || !run.playing.get()
                    on:click=move |_| run.pause()
                >
                    "Pause"
                </button>
                <button type="button" data-testid="learn-step" on:click=move |_| run.step()>
                    "One step"
                </button>
                <button type="button" data-testid="learn-reset" on:click=move |_| run.reset()>
                    "Reset"
                </button>
                <label class="al-learn-speed">
                    "Speed "
                    <select
                        data-testid="learn-speed"
                        on:change=move |ev| run.fast.set(event_target_value(&ev) == "fast")
                    >
                        <option value="watch" selected=move || !run.fast.get()>
                            {format!("watch: {} steps a second", WATCH_SLICE as f64 * 1000.0 / WATCH_MS)}
                        </option>
                        <option value="fast" selected=move || run.fast.get()>
                            "fast: as fast as the worker trains"
                        </option>
                    </select>
                </label>
            </div>
            <p
                class="al-learn-status"
                data-testid="learn-status"
                data-busy=move || run.busy.get().to_string()
            >
                "Step "
                <strong data-testid="learn-steps">{move || run.steps_done.get()}</strong>
                {move || format!(" of {}", run.settings.with(LearnSettings::budget))}
                <span class="al-learn-budget" data-testid="learn-budget">
                    {move || format!(" ({})", run.settings.with(LearnSettings::budget_and_why).1)}
                </span>
                // stepped back, the numbers are the shown model's, and the line says which
                {move || match shown_step() {
                    Some(step) => {
                        view! {
                            " · showing the model "
                            <strong data-testid="learn-shown">{after_updates(step)}</strong>
                            ": on the probe batch, loss "
                        }
                            .into_any()
                    }
                    None => " · on the probe batch: loss ".into_any(),
                }}
                <strong data-testid="learn-loss">{loss}</strong>
                ", accuracy "
                <strong data-testid="learn-accuracy">{accuracy}</strong>
                {move || {
                    run.rate
                        .get()
                        .filter(|_| run.playing.get() && run.fast.get())
                        .map(|r| {
                            view! {
                                " · "
                                <span data-testid="learn-rate">{fixed(r, 0)}</span>
                                " steps/s"
                            }
                        })
                }}
            </p>
            <RunWarnings run />
        </div>
    }
}

/// Under the status: that the settings were refused and no model is shown, or that the
/// run diverged (the worker's judgement) and why that usually happens.
#[component]
fn RunWarnings(
    /// The training run.
    run: LearnRun,
) -> impl IntoView {
    let refused =
        move || run.error.with(Option::is_some) && run.probe.with(Option::is_none) && !run.busy.get();
    let diverged_words = move || {
        run.history.with(|h| {
            let (first, last) = (h.first()?, h.last()?);
            diverged(h)?.then(|| {
                format!(
                    "Training diverged: the loss is now {}, more than {DIVERGED_FACTOR} times the first step's {}. The learning rate is likely too large: each update overshoots the minimum further than the last. Lower it (the run starts again).",
                    reading(last.loss),
                    fixed(first.loss, 3),
                )
            })
        })
    };
    view! {
        {move || {
            refused()
                .then(|| {
                    view! {
                        <p class="al-learn-note" data-testid="learn-refused">
                            "No model is trained or shown: the engine refused these settings (the message above). Change them and the run starts again."
                        </p>
                    }
                })
        }}
        {move || {
            diverged_words()
                .map(|words| {
                    view! {
                        <p class="al-learn-diverged" role="status" data-testid="learn-diverged">
                            {words}
                        </p>
                    }
                })
        }}
    }
}
