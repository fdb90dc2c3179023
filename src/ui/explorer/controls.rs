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
use crate::ui::state::field_words::page_words;
use crate::ui::state::settings::Settings;
use crate::ui::widgets::fields::{Choice, NumberField, SelectField, NOT_A_NUMBER};

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

/// What one number field of the controls shows: its caption, its `data-testid`, the name
/// its typing errors go under, its bounds, a fixed hint, and the engine field whose error
/// shows under it. Drawn by [`SettingNumber`]; what it reads and writes is the caller's.
#[derive(Clone, Copy)]
pub struct NumberSpec {
    label: &'static str,
    testid: &'static str,
    key: &'static str,
    min: usize,
    max: Option<usize>,
    step: Option<&'static str>,
    placeholder: Option<&'static str>,
    hint: Option<&'static str>,
    field: Option<Field>,
    list: bool,
}

impl NumberSpec {
    /// A whole-number field from `min`, its typing errors under `key`.
    pub const fn new(label: &'static str, testid: &'static str, key: &'static str, min: usize) -> Self {
        Self {
            label,
            testid,
            key,
            min,
            max: None,
            step: None,
            placeholder: None,
            hint: None,
            field: None,
            list: false,
        }
    }

    /// At most `max`.
    pub const fn max(self, max: usize) -> Self {
        Self { max: Some(max), ..self }
    }

    /// A real number, not a whole one.
    pub const fn real(self) -> Self {
        Self { step: Some("any"), ..self }
    }

    /// What the field shows while empty.
    pub const fn placeholder(self, placeholder: &'static str) -> Self {
        Self { placeholder: Some(placeholder), ..self }
    }

    /// The words under the field.
    pub const fn hint(self, hint: &'static str) -> Self {
        Self { hint: Some(hint), ..self }
    }

    /// The engine's error about `field` shows under it.
    pub const fn error(self, field: Field) -> Self {
        Self { field: Some(field), ..self }
    }

    /// A list of numbers in a text field, read when the edit is committed.
    pub const fn list(self) -> Self {
        Self { list: true, ..self }
    }

    /// Whether the field takes the whole number `v`: from its smallest to its largest. A
    /// number it does not take never reaches the settings, and so never the page's link,
    /// which takes the same (`ui::state::url::from_query`; a test holds the two equal).
    pub const fn takes(self, v: usize) -> bool {
        v >= self.min
            && match self.max {
                Some(max) => v <= max,
                None => true,
            }
    }

    /// What a whole number typed into the field must be, in words.
    fn count_rule(self) -> String {
        match self.max {
            Some(max) => format!("{} must be a whole number from {} to {max}", self.key, self.min),
            None => format!("{} must be a whole number of at least {}", self.key, self.min),
        }
    }
}

/// Every value a field parses to is one the settings take.
pub fn any<T>(_: T) -> bool {
    true
}

/// A real number the settings and the link take where it must be above 0 (the RoPE base,
/// the scale).
pub fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// A real number where 0 is off and any other must be above 0 (the softcap).
pub fn positive_or_off(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

/// A number field of the controls as its [`NumberSpec`] says: the caption and input, then
/// `children` and the hint; the typing error or the engine's error about it after the
/// field ([`NumberField`]'s `error`).
#[component]
pub fn SettingNumber(
    /// How the controls write the settings.
    edits: Edits,
    /// What the field shows.
    spec: NumberSpec,
    /// The field's text.
    #[prop(into)]
    value: Signal<String>,
    /// What typing does.
    on_input: Callback<String>,
    /// True while the field cannot be edited.
    #[prop(optional, into)]
    disabled: Signal<bool>,
    /// The id of a hint among `children` that describes the field.
    #[prop(optional)]
    describedby: Option<&'static str>,
    /// Words under the field that change with the settings.
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let NumberSpec { label, testid, key, min, max, step, placeholder, hint, field, list } = spec;
    // the typing error, else the engine's about the field: after the field, across its row
    let typing = edits.typing_error_in(key);
    let engine = edits.error;
    let invalid = Signal::derive(move || {
        typing.get() || field.is_some_and(|f| engine.with(|e| e.as_ref().is_some_and(|e| e.field() == f)))
    });
    let error: Children = Box::new(move || {
        view! {
            {edits.number_error(key)}
            {field.map(|field| view! { <FieldError error=engine field typing /> })}
        }
        .into_any()
    });
    view! {
        <NumberField
            label
            testid
            min=min.to_string()
            max=max.map(|m| m.to_string())
            step
            placeholder
            describedby
            value
            disabled
            on_input
            commit=list
            list
            error
            invalid
        >
            {children.map(|c| c())}
            {hint.map(|hint| view! { <span class="al-hint">{hint}</span> })}
        </NumberField>
    }
}

/// What one menu of the controls shows: its caption, its `data-testid`, its choices, and
/// the engine field whose error shows under it. Drawn by [`SettingSelect`].
#[derive(Clone, Copy)]
pub struct SelectSpec {
    label: &'static str,
    testid: &'static str,
    choices: &'static [Choice],
    field: Option<Field>,
    get: fn(&Settings) -> &'static str,
    put: fn(&mut Settings, &str),
}

impl SelectSpec {
    /// A menu of `choices`: `get` reads the chosen value from the settings, `put` writes
    /// a newly chosen one.
    pub const fn new(
        label: &'static str,
        testid: &'static str,
        choices: &'static [Choice],
        get: fn(&Settings) -> &'static str,
        put: fn(&mut Settings, &str),
    ) -> Self {
        Self { label, testid, choices, field: None, get, put }
    }

    /// The engine's error about `field` shows under it.
    pub const fn error(self, field: Field) -> Self {
        Self { field: Some(field), ..self }
    }
}

/// A menu of the controls as its [`SelectSpec`] says, then the engine's error about it
/// after the menu, as a number field's ([`SelectField`]'s `error`).
#[component]
pub fn SettingSelect(
    /// How the controls write the settings.
    edits: Edits,
    /// What the menu shows, reads and writes.
    spec: SelectSpec,
) -> impl IntoView {
    let SelectSpec { label, testid, choices, field, get, put } = spec;
    let value = edits.read(get);
    let on_change = Callback::new(move |v: String| edits.set(&|s| put(s, &v)));
    let engine = edits.error;
    let invalid = Signal::derive(move || {
        field.is_some_and(|f| engine.with(|e| e.as_ref().is_some_and(|e| e.field() == f)))
    });
    let error: Children = Box::new(move || {
        view! { {field.map(|field| view! { <FieldError error=engine field /> })} }.into_any()
    });
    view! { <SelectField label testid value choices=choices.to_vec() on_change error invalid /> }
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
    /// The controls' writer. A control's text that did not parse is dropped from the
    /// page's typing error when the settings change (a valid edit, a lesson step, an
    /// import: the fields show the settings again) or the controls close.
    fn new(state: AppState) -> Self {
        let (settings, typing_error) = (state.settings, state.typing_error);
        Effect::new(move |_| {
            settings.track();
            typing_error.set(None);
        });
        on_cleanup(move || typing_error.set(None));
        Self {
            settings: state.settings,
            import_error: state.import_error,
            error: state.error(),
            bad_number: state.typing_error,
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

    /// Changes the settings ([`crate::ui::state::settings::edit`]: an MLA with the page's
    /// heads follows d_model and h).
    pub fn set(self, f: &dyn Fn(&mut Settings)) {
        self.import_error.set(None);
        self.settings.update(|s| crate::ui::state::settings::edit(s, f));
    }

    /// A count field's text and what typing does: the count `get` reads, and a whole
    /// number the field takes ([`NumberSpec::takes`]) typed into it, `put` into the
    /// settings ([`Edits::set_count`]).
    pub fn count(
        self,
        spec: NumberSpec,
        get: fn(&Settings) -> usize,
        put: fn(&mut Settings, usize),
    ) -> (Signal<String>, Callback<String>) {
        let on_input = Callback::new(move |raw: String| {
            self.set_count(spec, &raw, &put);
            self.say_in_use(spec.key, &|s| get(s).to_string());
        });
        (self.read(move |s| get(s).to_string()), on_input)
    }

    /// After a typing error in `field`, says which value the page (and its link) keeps
    /// using: the last that parsed ("2.5" typed key by key applied "2").
    pub fn say_in_use(self, field: &'static str, in_use: &dyn Fn(&Settings) -> String) {
        if !self.bad_number.with_untracked(|b| b.as_ref().is_some_and(|(f, _)| *f == field)) {
            return;
        }
        let in_use = self.settings.with_untracked(in_use);
        self.bad_number.update(|b| {
            if let Some((_, message)) = b.as_mut() {
                message.push_str(&format!("; until then the page uses {field} = {in_use}"));
            }
        });
    }

    /// Applies a whole number the field takes, typed into it, or says why it cannot.
    pub fn set_count(self, spec: NumberSpec, raw: &str, apply: &dyn Fn(&mut Settings, usize)) {
        self.set_parsed(spec.key, raw, &spec.count_rule(), &|v| spec.takes(v), apply);
    }

    /// An optional count: empty means none (the default), anything else must be a number
    /// the field takes.
    pub fn set_optional(self, spec: NumberSpec, raw: &str, apply: &dyn Fn(&mut Settings, Option<usize>)) {
        if raw.trim().is_empty() {
            self.bad_number.set(None);
            self.set(&|s| apply(s, None));
        } else {
            self.set_count(spec, raw, &|s, v| apply(s, Some(v)));
        }
    }

    /// An optional number where empty or 0 means off (the engine's default); anything else
    /// must parse, or `message` says what it must be.
    pub fn set_zero_off<T: std::str::FromStr + Copy + Default + PartialEq>(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        valid: fn(T) -> bool,
        apply: &dyn Fn(&mut Settings, Option<T>),
    ) {
        if raw.trim().is_empty() {
            self.bad_number.set(None);
            self.set(&|s| apply(s, None));
        } else {
            self.set_parsed(field, raw, message, &valid, &|s, v: T| {
                apply(s, (v != T::default()).then_some(v))
            });
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

    /// Applies a whole number of at least 0 typed into `field`, or says (`message`) why not.
    pub fn set_whole(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        apply: &dyn Fn(&mut Settings, u64),
    ) {
        self.set_parsed(field, raw, message, &any, apply);
    }

    /// Applies a real number typed into `field` with `apply` where it is `valid`, or says
    /// (`message`) why not.
    pub fn set_real(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        valid: fn(f64) -> bool,
        apply: &dyn Fn(&mut Settings, f64),
    ) {
        self.set_parsed(field, raw, message, &valid, apply);
    }

    /// Applies what `raw` parses to where it is `valid`, or puts `message` and the text
    /// (its first 20 characters) under `field`: a value the settings do not take is not
    /// applied, so the page and its link keep the last one that was.
    fn set_parsed<T: std::str::FromStr + Copy>(
        self,
        field: &'static str,
        raw: &str,
        message: &str,
        valid: &dyn Fn(T) -> bool,
        apply: &dyn Fn(&mut Settings, T),
    ) {
        match typed::<T>(raw) {
            Some(v) if valid(v) => {
                self.bad_number.set(None);
                self.set(&|s| apply(s, v));
            }
            _ => self.say_bad(field, raw, message),
        }
    }

    /// Puts `message` and the text (its first 20 characters, or that there is none) under `field`.
    fn say_bad(self, field: &'static str, raw: &str, message: &str) {
        let shown: String = raw.chars().take(20).collect();
        // a number field reads "" both when it is empty and when its text is not a number
        let said = if shown.trim().is_empty() || raw == NOT_A_NUMBER {
            format!("{message}; the field holds no number")
        } else {
            format!("{message}, not \"{shown}\"")
        };
        self.bad_number.set(Some((field, said)));
    }

    /// True while the text of `field` does not parse.
    pub fn typing_error_in(self, field: &'static str) -> Signal<bool> {
        let bad_number = self.bad_number;
        Signal::derive(move || bad_number.with(|b| b.as_ref().is_some_and(|(f, _)| *f == field)))
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

/// A typed number read as a lesson's answer is (`read_typed_number`: "1,5" is 1.5), then as a `T`.
fn typed<T: std::str::FromStr>(raw: &str) -> Option<T> {
    crate::format::read_typed_number(raw)
        .and_then(|x| raw.trim().parse().ok().or_else(|| x.to_string().parse().ok()))
}

/// An error message for one control, shown only when the engine's error is about it and
/// the control holds no text that does not parse (that newer message replaces it).
#[component]
pub fn FieldError(
    /// The current error, if any.
    #[prop(into)]
    error: Signal<Option<RunError>>,
    /// The control this message belongs to.
    field: Field,
    /// True while the control's own text does not parse.
    #[prop(optional, into)]
    typing: Signal<bool>,
) -> impl IntoView {
    move || {
        if typing.get() {
            return None;
        }
        error.get().filter(|e| e.field() == field).map(|e| {
            view! {
                <p class="al-error" data-testid="error" role="alert">
                    {page_words(&e.to_string())}
                </p>
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::state::url::from_query;

    /// Whether the page's link takes `value` for `key` (no notice when read back).
    fn link_takes(key: &str, value: &str) -> bool {
        from_query(&[(key.to_owned(), value.to_owned())]).3.is_empty()
    }

    /// A count field takes exactly the counts its link key takes: a count the link would
    /// refuse (and replace by the default, which may clash with the other sizes, as
    /// d_model 16 with h 3) never reaches the settings, so the link keeps the last count
    /// the page uses.
    #[test]
    fn a_typed_number_reads_a_decimal_comma_and_never_another_number() {
        assert_eq!(typed::<f64>("1,5"), Some(1.5));
        assert_eq!(typed::<f64>("-1,5"), Some(-1.5));
        assert_eq!(typed::<f64>("1.5"), Some(1.5));
        assert_eq!(typed::<usize>("1,000"), Some(1000));
        assert_eq!(typed::<usize>("16"), Some(16));
        for bad in ["1 5", "1,2,3", "x", NOT_A_NUMBER] {
            assert_eq!(typed::<f64>(bad), None, "{bad}");
        }
        // 1.5 is no count
        assert_eq!(typed::<usize>("1,5"), None);
    }

    #[test]
    fn a_count_field_takes_what_the_link_takes() {
        let fields = [
            (sizes::D_MODEL, "d"),
            (sizes::HEADS, "h"),
            (sizes::LAYERS, "layers"),
            (sizes::LAYER, "layer"),
            (modern::H_KV, "hkv"),
            (mask::WINDOW, "win"),
            (mask::KEEP_FIRST, "keep"),
        ];
        for (spec, key) in fields {
            for v in 0..=600 {
                assert_eq!(spec.takes(v), link_takes(key, &v.to_string()), "{} = {v}", spec.key);
            }
            assert!(spec.count_rule().starts_with(&format!("{} must be a whole number ", spec.key)));
        }
        assert_eq!(sizes::D_MODEL.count_rule(), "d_model must be a whole number from 1 to 512");
        assert_eq!(mask::WINDOW.count_rule(), "window must be a whole number of at least 1");
    }

    /// The real numbers: the RoPE base and the scale above 0, the softcap above 0 or 0
    /// (off, which the link leaves out): what the link takes.
    #[test]
    fn a_real_field_takes_what_the_link_takes() {
        for x in [-1.0, 0.0, 1e-9, 0.5, 10_000.0, 1e30, f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            for key in ["rope_base", "scale"] {
                assert_eq!(positive(x), link_takes(key, &x.to_string()), "{key} = {x}");
            }
            let softcap = positive_or_off(x) && x != 0.0;
            assert_eq!(softcap, link_takes("softcap", &x.to_string()), "softcap = {x}");
        }
        assert!(positive_or_off(0.0) && any(f64::NAN));
    }
}
