//! The explorer's inputs: sentences and cross-attention ([`sentences`]), d_model, h,
//! projections, seed and positions ([`sizes`]), today's options h_kv, RoPE, ALiBi
//! ([`modern`]), the head size and what keeps scores in range: scale, softcap, QK-norm,
//! sinks ([`scores`]), and the mask with its sliding window ([`mask`]). Each control writes the
//! settings through [`Edits`]; the engine runs in `App`.

mod mask;
mod modern;
mod scores;
mod sentences;
mod sizes;

use leptos::prelude::*;

use crate::engine::error::Field;
use attention_worker::RunError;

use crate::ui::explorer::io::ImportExport;
use crate::ui::state::app_state::AppState;
use crate::ui::state::settings::Settings;

/// The control panel.
#[component]
pub fn Controls(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let edits = Edits::new(state);
    view! {
        <section class="al-controls" aria-label="Input and settings">
            <sentences::SentenceFields state=state />
            <sizes::SizeFields edits=edits />
            <modern::ModernFields edits=edits />
            <scores::ScoreFields edits=edits />
            <mask::MaskFields edits=edits />
            <ImportExport state=state />
        </section>
    }
}

/// How a control writes the settings: any edit clears an old import error; a number
/// field that does not parse says so next to itself instead of being ignored.
#[derive(Clone, Copy)]
pub struct Edits {
    /// Everything the controls set.
    pub settings: RwSignal<Settings>,
    import_error: RwSignal<Option<String>>,
    /// The engine's error for the current inputs, if any.
    pub error: Signal<Option<RunError>>,
    /// The number field that does not parse, and what to say about it.
    bad_number: RwSignal<Option<(&'static str, String)>>,
}

impl Edits {
    fn new(state: AppState) -> Self {
        Self {
            settings: state.settings,
            import_error: state.import_error,
            error: state.error(),
            bad_number: RwSignal::new(None),
        }
    }

    /// What a control shows: `f` of the settings, kept up to date.
    pub fn read<T: Send + Sync + 'static>(
        self,
        f: impl Fn(&Settings) -> T + Send + Sync + 'static,
    ) -> Signal<T> {
        let settings = self.settings;
        Signal::derive(move || settings.with(|s| f(s)))
    }

    /// Changes the settings.
    pub fn set(self, f: &dyn Fn(&mut Settings)) {
        self.import_error.set(None);
        self.settings.update(|s| f(s));
    }

    /// Applies a whole number of at least 1 typed into `field`, or says why it cannot.
    pub fn set_count(self, field: &'static str, raw: &str, apply: &dyn Fn(&mut Settings, usize)) {
        let message = format!("{field} must be a whole number of at least 1");
        self.set_parsed(field, raw, &message, apply);
    }

    /// An optional count: empty means none (the default), anything else must be a number.
    pub fn set_optional(self, field: &'static str, raw: &str, apply: &dyn Fn(&mut Settings, Option<usize>)) {
        if raw.trim().is_empty() {
            self.bad_number.set(None);
            self.set(&|s| apply(s, None));
        } else {
            self.set_count(field, raw, &|s, v| apply(s, Some(v)));
        }
    }

    /// An optional number where empty or 0 means off (the engine's default); anything else
    /// must parse, or `message` says what it must be.
    pub fn set_zero_off<T: std::str::FromStr + Copy + Default + PartialEq>(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        apply: &dyn Fn(&mut Settings, Option<T>),
    ) {
        if raw.trim().is_empty() {
            self.bad_number.set(None);
            self.set(&|s| apply(s, None));
        } else {
            self.set_parsed(field, raw, message, &|s, v: T| apply(s, (v != T::default()).then_some(v)));
        }
    }

    /// Real numbers separated by commas or spaces; empty means none. A word that is not a
    /// number puts `message` under `field`.
    pub fn set_numbers(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        apply: &dyn Fn(&mut Settings, Option<Vec<f64>>),
    ) {
        let words: Vec<&str> = raw.split([',', ' ']).map(str::trim).filter(|w| !w.is_empty()).collect();
        match words.iter().map(|w| w.parse::<f64>()).collect::<Result<Vec<f64>, _>>() {
            Ok(v) => {
                self.bad_number.set(None);
                self.set(&|s| apply(s, (!v.is_empty()).then(|| v.clone())));
            }
            Err(_) => self.say_bad(field, raw, message),
        }
    }

    /// Applies a real number typed into `field` with `apply`, or says (`message`) why not.
    pub fn set_real(self, field: &'static str, raw: &str, message: &str, apply: &dyn Fn(&mut Settings, f64)) {
        self.set_parsed(field, raw, message, apply);
    }

    /// Applies what `raw` parses to, or puts `message` and the text (its first 20
    /// characters) under `field`.
    fn set_parsed<T: std::str::FromStr + Copy>(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        apply: &dyn Fn(&mut Settings, T),
    ) {
        match raw.trim().parse::<T>() {
            Ok(v) => {
                self.bad_number.set(None);
                self.set(&|s| apply(s, v));
            }
            Err(_) => self.say_bad(field, raw, message),
        }
    }

    /// Puts `message` and the text (its first 20 characters) under `field`.
    fn say_bad(self, field: &'static str, raw: &str, message: &str) {
        let shown: String = raw.chars().take(20).collect();
        self.bad_number.set(Some((field, format!("{message}, not \"{shown}\""))));
    }

    /// The message under `field` while what it holds does not parse.
    pub fn number_error(self, field: &'static str) -> impl Fn() -> Option<AnyView> + Send + Sync + 'static {
        let bad_number = self.bad_number;
        move || {
            bad_number.get().filter(|(f, _)| *f == field).map(|(_, message)| {
                view! {
                    <p class="al-error" data-testid="error" role="alert">
                        {message}
                    </p>
                }
                .into_any()
            })
        }
    }
}

/// An error message for one control, shown only when the engine's error is about it.
#[component]
pub fn FieldError(
    /// The current error, if any.
    #[prop(into)]
    error: Signal<Option<RunError>>,
    /// The control this message belongs to.
    field: Field,
) -> impl IntoView {
    move || {
        error.get().filter(|e| e.field() == field).map(|e| {
            view! {
                <p class="al-error" data-testid="error" role="alert">
                    {e.to_string()}
                </p>
            }
        })
    }
}
