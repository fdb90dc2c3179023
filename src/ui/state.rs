//! The page's state as plain Rust: the settings behind the controls, the text, what is
//! selected, and their URL form. No web dependency, so it is tested natively.

use std::collections::BTreeMap;

use crate::engine::tokenize::tokenize;
use crate::engine::{
    self, limits, EngineError, Fill, MaskConfig, Padding, Positional, ProjectionKind, Projections, Scenario,
    StepName, Trace,
};

/// Most sentences the page runs at once (the engine's limit).
pub const UI_MAX_BATCH: usize = limits::MAX_BATCH;
/// Most tokens per sentence the page runs: beyond this a heatmap is no longer readable,
/// and drawing it would make typing stutter. The command line accepts up to
/// [`limits::MAX_TOKENS`].
pub const UI_MAX_TOKENS: usize = 128;
/// Largest d_model the page offers.
pub const UI_MAX_D_MODEL: usize = 512;

/// Everything the controls set, apart from the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Width of a token vector.
    pub d_model: usize,
    /// Number of heads.
    pub n_heads: usize,
    /// Identity, seeded or imported weights.
    pub projections: Projections,
    /// Seed for seeded weights.
    pub seed: u64,
    /// Mask settings.
    pub mask: MaskConfig,
    /// Imported per-word vectors.
    pub embeddings: BTreeMap<String, Vec<f64>>,
    /// Cross-attention: the key/value sentences, one per line (None = self-attention).
    pub kv_text: Option<String>,
    /// The positional encoding added before the projections.
    pub positional: Positional,
    /// Grouped-query attention: the number of key/value heads (None = h).
    pub n_kv_heads: Option<usize>,
    /// Rotary position embeddings (None = off).
    pub rope: Option<engine::Rope>,
    /// ALiBi's per-head linear bias.
    pub alibi: bool,
}

/// The first page a learner sees: one word, "bat", in two contexts, in seed 003's
/// 3-dimensional sports/animal/other space with one head. The first heatmap shows "bat"
/// attending to "baseball" (sports) in sentence 1 and to "flew" (animal) in sentence 2;
/// the batch is padded, so the `<pad>` keys are blocked.
pub const DEFAULT_TEXT: &str = "I bought a baseball bat\nthe bat flew";

impl Default for Settings {
    fn default() -> Self {
        Self {
            d_model: 3,
            n_heads: 1,
            projections: Projections::Named(ProjectionKind::Identity),
            seed: 0,
            mask: MaskConfig { causal: false, padding: Padding::Keys, fill: Fill::NegInf, window: None },
            embeddings: BTreeMap::new(),
            kv_text: None,
            positional: Positional::None,
            n_kv_heads: None,
            rope: None,
            alibi: false,
        }
    }
}

/// What is shown, apart from the numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewState {
    /// The selected trace step.
    pub step: StepName,
    /// The selected sentence of the batch.
    pub batch: usize,
    /// One colour scale shared by all heads of a step.
    pub shared_scale: bool,
    /// Show a `(B, h, T_q, T_k)` step as lines between the tokens instead of heatmaps.
    pub lines: bool,
}

impl Default for ViewState {
    fn default() -> Self {
        Self { step: StepName::Weights, batch: 0, shared_scale: true, lines: false }
    }
}

/// The scenario the text and settings describe, cut to the page's limits, with a
/// notice for everything that was cut.
pub fn scenario(text: &str, settings: &Settings) -> (Scenario, Vec<String>) {
    let mut notices = Vec::new();
    let sentences = sentences_within_limits(text, "Sentence", &mut notices);
    let kv_sentences =
        settings.kv_text.as_deref().map(|kv| sentences_within_limits(kv, "Key/value sentence", &mut notices));
    let scenario = Scenario {
        sentences,
        kv_sentences,
        d_model: settings.d_model,
        n_heads: settings.n_heads,
        embeddings: settings.embeddings.clone(),
        projections: settings.projections.clone(),
        seed: settings.seed,
        mask: settings.mask,
        positional: settings.positional,
        n_kv_heads: settings.n_kv_heads,
        rope: settings.rope,
        alibi: settings.alibi,
    };
    (scenario, notices)
}

/// The non-blank lines of `text`, cut to the page's limits with a notice for each cut.
fn sentences_within_limits(text: &str, what: &str, notices: &mut Vec<String>) -> Vec<String> {
    let mut sentences: Vec<String> =
        text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect();
    if sentences.len() > UI_MAX_BATCH {
        notices.push(format!(
            "Only the first {UI_MAX_BATCH} lines are used ({} were given): B ≤ {UI_MAX_BATCH}.",
            sentences.len()
        ));
        sentences.truncate(UI_MAX_BATCH);
    }
    for (i, sentence) in sentences.iter_mut().enumerate() {
        let n = tokenize(sentence).len();
        if n > UI_MAX_TOKENS {
            *sentence = cut_to_tokens(sentence, UI_MAX_TOKENS);
            notices.push(format!(
                "{what} {} has {n} tokens; only the first {UI_MAX_TOKENS} are used (T ≤ {UI_MAX_TOKENS} in the page).",
                i + 1
            ));
        }
    }
    sentences
}

/// The sentence up to the end of its `n`-th token.
fn cut_to_tokens(sentence: &str, n: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    let mut kept = 0;
    let mut end = 0;
    for (offset, segment) in sentence.split_word_bound_indices() {
        if segment.chars().all(char::is_whitespace) {
            continue;
        }
        kept += 1;
        end = offset + segment.len();
        if kept == n {
            break;
        }
    }
    sentence[..end].to_owned()
}

/// The text and settings of an imported scenario.
pub fn from_scenario(s: &Scenario) -> (String, Settings) {
    (
        s.sentences.join("\n"),
        Settings {
            d_model: s.d_model,
            n_heads: s.n_heads,
            projections: s.projections.clone(),
            seed: s.seed,
            mask: s.mask,
            embeddings: s.embeddings.clone(),
            kv_text: s.kv_sentences.as_ref().map(|kv| kv.join("\n")),
            positional: s.positional,
            n_kv_heads: s.n_kv_heads,
            rope: s.rope,
            alibi: s.alibi,
        },
    )
}

/// The URL query pairs for a state. Imported embeddings and weights are not in the URL.
pub fn to_query(text: &str, s: &Settings, v: &ViewState) -> Vec<(&'static str, String)> {
    let projections = match &s.projections {
        Projections::Named(ProjectionKind::Identity) => "identity",
        Projections::Named(ProjectionKind::Seeded) | Projections::Explicit(_) => "seeded",
    };
    let padding = s.mask.padding.name();
    let fill = s.mask.fill.name();
    let mut pairs = vec![
        ("s", text.to_owned()),
        ("d", s.d_model.to_string()),
        ("h", s.n_heads.to_string()),
        ("p", projections.into()),
        ("seed", s.seed.to_string()),
        ("causal", u8::from(s.mask.causal).to_string()),
        ("pad", padding.into()),
        ("fill", fill.into()),
        ("step", v.step.as_str().to_owned()),
        ("b", v.batch.to_string()),
        ("share", u8::from(v.shared_scale).to_string()),
    ];
    if let Some(kv) = &s.kv_text {
        pairs.push(("kv", kv.clone()));
    }
    if s.positional != Positional::None {
        pairs.push(("pe", s.positional.name().to_owned()));
    }
    if v.lines {
        pairs.push(("view", "lines".to_owned()));
    }
    pairs
}

/// A state read back from URL query pairs. Every value that is missing keeps its default;
/// every value that is wrong keeps its default *and* adds a notice saying so.
pub fn from_query(pairs: &[(String, String)]) -> (String, Settings, ViewState, Vec<String>) {
    let mut text = DEFAULT_TEXT.to_owned();
    let mut s = Settings::default();
    let mut v = ViewState::default();
    let mut notices = Vec::new();
    let bad = |notices: &mut Vec<String>, key: &str, value: &str, want: &str| {
        let shown = shown_value(value);
        notices.push(format!("The link's {key}=\"{shown}\" is not {want}; the default is used instead."));
    };
    for (key, value) in pairs {
        let value = value.as_str();
        match key.as_str() {
            "s" => match text_problem(value, false) {
                Some(want) => bad(&mut notices, "s", value, want),
                None => text = value.to_owned(),
            },
            "kv" => match text_problem(value, true) {
                Some(want) => bad(&mut notices, "kv", value, want),
                None => s.kv_text = Some(value.to_owned()),
            },
            "d" => match value.parse::<usize>() {
                Ok(d) if (1..=UI_MAX_D_MODEL).contains(&d) => s.d_model = d,
                _ => bad(&mut notices, "d", value, &format!("a whole number from 1 to {UI_MAX_D_MODEL}")),
            },
            "h" => match value.parse::<usize>() {
                Ok(h) if (1..=limits::MAX_HEADS).contains(&h) => s.n_heads = h,
                _ => {
                    bad(&mut notices, "h", value, &format!("a whole number from 1 to {}", limits::MAX_HEADS))
                }
            },
            "p" => match value {
                "identity" => s.projections = Projections::Named(ProjectionKind::Identity),
                "seeded" => s.projections = Projections::Named(ProjectionKind::Seeded),
                _ => bad(&mut notices, "p", value, "identity or seeded"),
            },
            "seed" => match value.parse::<u64>() {
                Ok(seed) => s.seed = seed,
                _ => bad(&mut notices, "seed", value, "a whole number from 0 to 18446744073709551615"),
            },
            "causal" => match value {
                "1" | "true" => s.mask.causal = true,
                "0" | "false" => s.mask.causal = false,
                _ => bad(&mut notices, "causal", value, "0 or 1"),
            },
            "pad" => match Padding::from_name(value) {
                Some(p) => s.mask.padding = p,
                None => bad(&mut notices, "pad", value, "none, keys or keys_and_queries"),
            },
            "fill" => match Fill::from_name(value) {
                Some(f) => s.mask.fill = f,
                None => bad(&mut notices, "fill", value, "neg_inf or large_negative"),
            },
            "step" => match StepName::from_name(value) {
                Some(step) => v.step = step,
                None => bad(&mut notices, "step", value, "a step name"),
            },
            "pe" => match Positional::from_name(value) {
                Some(p) => s.positional = p,
                None => bad(&mut notices, "pe", value, "none or sinusoidal"),
            },
            "b" => match value.parse::<usize>() {
                Ok(b) if b < UI_MAX_BATCH => v.batch = b,
                _ => bad(
                    &mut notices,
                    "b",
                    value,
                    &format!("a sentence number from 0 to {}", UI_MAX_BATCH - 1),
                ),
            },
            "view" => match value {
                "lines" => v.lines = true,
                "heatmap" => v.lines = false,
                _ => bad(&mut notices, "view", value, "lines or heatmap"),
            },
            "share" => match value {
                "1" => v.shared_scale = true,
                "0" => v.shared_scale = false,
                _ => bad(&mut notices, "share", value, "0 or 1"),
            },
            other => {
                let shown = shown_value(other);
                notices.push(format!("The link's unknown setting \"{shown}\" was ignored."));
            }
        }
    }
    (text, s, v, notices)
}

/// A value from a link as a notice quotes it: at most 40 characters, control characters
/// escaped (the notice is text, never HTML, so nothing else needs escaping).
fn shown_value(value: &str) -> String {
    let mut shown = String::new();
    for (i, c) in value.chars().enumerate() {
        if i == 40 {
            shown.push('…');
            break;
        }
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Why a text value from a link is not what someone typed, if it is not: blank, a
/// replacement character (the browser's decoding of a cut or invalid `%`-escape such as
/// `%E2%82`), a `%XX` escape that survived decoding (the link was encoded twice, as in
/// `hello%2520world`), or control characters other than line breaks and tabs. `blank_ok`
/// allows an empty value.
fn text_problem(value: &str, blank_ok: bool) -> Option<&'static str> {
    if value.trim().is_empty() {
        return (!blank_ok).then_some("any text");
    }
    if value.contains('\u{FFFD}') {
        return Some("valid text (a %-escape in the link is cut off or broken)");
    }
    let b = value.as_bytes();
    let escaped =
        b.windows(3).any(|w| matches!(w, [b'%', x, y] if x.is_ascii_hexdigit() && y.is_ascii_hexdigit()));
    if escaped {
        return Some("plain text (it looks %-encoded twice)");
    }
    if value.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        return Some("plain text (it has control characters)");
    }
    None
}

/// The page's own limits on a scenario, stricter than the engine's (the command line may
/// use up to [`limits::MAX_D_MODEL`]): a `d_model` over [`UI_MAX_D_MODEL`] is an error
/// for that control, shown like the engine's own errors.
///
/// # Errors
/// [`EngineError::TooLarge`] for `d_model`.
pub fn check_page_limits(scenario: &Scenario) -> Result<(), EngineError> {
    if scenario.d_model > UI_MAX_D_MODEL {
        return Err(EngineError::TooLarge {
            what: "d_model".into(),
            value: scenario.d_model,
            max: UI_MAX_D_MODEL,
        });
    }
    Ok(())
}

/// The engine's work for a scenario, in multiply-adds: the four projections
/// (`B·(2·T_q + 2·T_k)·d_model²`) and the two attention products (`2·B·h·T_q·T_k·d_k`),
/// plus 16 per attention cell for the scale, mask, `exp` and the copies the trace keeps.
/// `None` when the sentences do not tokenize (the engine's error then comes at once).
pub fn engine_work(scenario: &Scenario) -> Option<u64> {
    let q = engine::tokenize::batch(&scenario.sentences).ok()?;
    let (b, t_q) = (q.b() as u64, q.t as u64);
    let t_k = match &scenario.kv_sentences {
        Some(kv) => engine::tokenize::batch(kv).ok()?.t as u64,
        None => t_q,
    };
    let (d, h) = (scenario.d_model as u64, scenario.n_heads.max(1) as u64);
    let cells = b * h * t_q * t_k;
    Some(b * (2 * t_q + 2 * t_k) * d * d + 2 * cells * (d / h) + 16 * cells)
}

/// The part of [`engine_work`] the engine still has to do after computing `previous`
/// (the scenario of the page's last trace): the engine copies every sentence whose inputs
/// did not change ([`engine::run_reusing`]), so typing in one sentence of four costs a
/// quarter of the work. Counted conservatively: only when nothing but the sentences'
/// texts changed and the padded length T and the number of sentences are the same, and
/// only the sentences changed in place (the engine also finds moved ones). `None` when
/// the sentences do not tokenize.
pub fn work_to_do(scenario: &Scenario, previous: Option<&Scenario>) -> Option<u64> {
    let all = engine_work(scenario)?;
    let Some(p) = previous else { return Some(all) };
    // every field named, so that a new one is a compile error here, not a missed change
    let Scenario {
        sentences,
        kv_sentences,
        d_model,
        n_heads,
        embeddings,
        projections,
        seed,
        mask,
        positional,
        n_kv_heads,
        rope,
        alibi,
    } = scenario;
    let same_setup = (&p.kv_sentences, p.d_model, p.n_heads, &p.embeddings)
        == (kv_sentences, *d_model, *n_heads, embeddings)
        && (&p.projections, p.seed, &p.mask, &p.positional) == (projections, *seed, mask, positional)
        && (p.n_kv_heads, p.rope, p.alibi) == (*n_kv_heads, *rope, *alibi)
        && p.sentences.len() == sentences.len();
    let same_t = || {
        let t = |s: &Scenario| engine::tokenize::batch(&s.sentences).ok().map(|b| b.t);
        t(p).is_some_and(|t_p| Some(t_p) == t(scenario))
    };
    if !same_setup || !same_t() {
        return Some(all);
    }
    let b = scenario.sentences.len().max(1) as u64;
    let changed = scenario.sentences.iter().zip(&p.sentences).filter(|(a, b)| a != b).count() as u64;
    Some(all * changed / b)
}

/// From this much [`work_to_do`] on, the page runs the engine in its worker (see README,
/// "Large inputs"). Measured in Chromium (`e2e/bench/crossover.mjs`, BENCHMARKS.md R3.3),
/// typing one word with the wasm SIMD engine: 44 M of work to do (one 128-token sentence
/// at d_model = 256, alone or one of four) takes 9.7–17.2 ms on the page (p95 ≤ 21),
/// while the worker's round trip is 35–55 ms; a fresh run of the whole stress page (176 M)
/// would be a main-thread task of about 40 ms of engine alone, so that goes to the worker.
pub const WORKER_MIN_WORK: u64 = 48_000_000;

/// True when the scenario's engine run belongs in the worker: its [`work_to_do`] after
/// `previous` is large enough, and it is within the page's limits (an error is shown at
/// once, without a round trip).
pub fn belongs_in_worker(scenario: &Scenario, previous: Option<&Scenario>) -> bool {
    check_page_limits(scenario).is_ok()
        && work_to_do(scenario, previous).is_some_and(|w| w >= WORKER_MIN_WORK)
}

/// [`engine::run`] within the page's limits ([`check_page_limits`]), for the page's one
/// engine memo: a typed `d_model = 100000` is then a clear error next to the field
/// rather than silently cut to the limit.
///
/// # Errors
/// As [`check_page_limits`], then as [`engine::run`].
pub fn run(scenario: &Scenario) -> Result<Trace, EngineError> {
    run_reusing(scenario, None)
}

/// [`run`], taking from the `previous` trace the projections of the sentences that did
/// not change ([`engine::run_reusing`]: the same numbers, bit for bit, sooner).
///
/// # Errors
/// As [`run`].
pub fn run_reusing(scenario: &Scenario, previous: Option<&Trace>) -> Result<Trace, EngineError> {
    check_page_limits(scenario)?;
    engine::run_reusing(scenario, previous)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &[(&str, &str)]) -> Vec<(String, String)> {
        q.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn url_round_trip() {
        let s = Settings {
            d_model: 12,
            n_heads: 3,
            projections: Projections::Named(ProjectionKind::Seeded),
            seed: 42,
            mask: MaskConfig {
                causal: true,
                padding: Padding::KeysAndQueries,
                fill: Fill::LargeNegative,
                window: None,
            },
            embeddings: BTreeMap::new(),
            kv_text: Some("x y z".into()),
            positional: Positional::Sinusoidal,
            n_kv_heads: None,
            rope: None,
            alibi: false,
        };
        let v = ViewState { step: StepName::Scores, batch: 1, shared_scale: false, lines: true };
        let q: Vec<(String, String)> =
            to_query("a b\nc", &s, &v).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let (text, s2, v2, notices) = from_query(&q);
        assert_eq!((text.as_str(), s2, v2), ("a b\nc", s, v));
        assert!(notices.is_empty());
    }

    #[test]
    fn the_lines_view_is_in_the_url() {
        let v = ViewState { lines: true, ..ViewState::default() };
        let q = to_query(DEFAULT_TEXT, &Settings::default(), &v);
        assert!(q.contains(&("view", "lines".to_owned())));
        let back: Vec<(String, String)> = q.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert!(from_query(&back).2.lines);
        // the default (heatmaps) adds nothing to the URL
        assert!(!to_query(DEFAULT_TEXT, &Settings::default(), &ViewState::default())
            .iter()
            .any(|(k, _)| *k == "view"));
        assert!(!from_query(&pairs(&[("view", "heatmap")])).2.lines);
        let (_, _, v, notices) = from_query(&pairs(&[("view", "spiral")]));
        assert!(!v.lines && notices[0].contains("view=\"spiral\" is not lines or heatmap"), "{notices:?}");
    }

    #[test]
    fn tampered_values_fall_back_with_a_notice() {
        let (text, s, v, notices) = from_query(&pairs(&[
            ("d", "abc"),
            ("h", "-2"),
            ("seed", "99999999999999999999999"),
            ("pad", "sideways"),
            ("step", "<script>"),
            ("b", "1e9"),
            ("zzz", "1"),
            ("s", "   "),
            ("causal", "maybe"),
        ]));
        assert_eq!((text.as_str(), s, v), (DEFAULT_TEXT, Settings::default(), ViewState::default()));
        assert_eq!(notices.len(), 9, "{notices:#?}");
        assert!(notices[0].contains("d=\"abc\" is not a whole number from 1 to 512"));
        assert!(notices[6].contains("unknown setting \"zzz\""));
    }

    #[test]
    fn broken_text_in_a_link_falls_back_with_a_notice() {
        // what the browser's URLSearchParams hands over for each tampered link
        let cases = [
            ("s=%E2%82 (cut UTF-8 escape)", "\u{FFFD}", "a %-escape in the link is cut off"),
            ("s=hello%2520world (encoded twice)", "hello%20world", "%-encoded twice"),
            ("s=%00 (control character)", "a\u{0}b", "control characters"),
            ("s= (empty)", "", "is not any text"),
        ];
        for (what, value, want) in cases {
            let (text, _, _, notices) = from_query(&pairs(&[("s", value)]));
            assert_eq!(text, DEFAULT_TEXT, "{what}");
            assert_eq!(notices.len(), 1, "{what}: {notices:?}");
            assert!(notices[0].contains(want), "{what}: {}", notices[0]);
        }
        // the notice quotes at most 40 characters, with control characters escaped
        let (_, _, _, notices) = from_query(&pairs(&[("s", &format!("\u{7}{}", "x".repeat(100)))]));
        assert!(notices[0].contains("s=\"\\u{7}xxx") && notices[0].contains("x…\""), "{}", notices[0]);
        // a bad key/value text keeps self-attention; an empty one is allowed
        let (_, s, _, notices) = from_query(&pairs(&[("kv", "a%20b")]));
        assert_eq!((s.kv_text, notices.len()), (None, 1));
        let (_, s, _, notices) = from_query(&pairs(&[("kv", "")]));
        assert_eq!((s.kv_text.as_deref(), notices.len()), (Some(""), 0));
        // ordinary text with a % sign, line breaks, tabs, emoji and RTL text is kept
        for ok in ["50% off", "100%", "a\nb\tc", "👨‍👩‍👧 שלום مرحبا", "%zz"] {
            let (text, _, _, notices) = from_query(&pairs(&[("s", ok)]));
            assert_eq!((text.as_str(), notices.len()), (ok, 0), "{ok:?}");
        }
    }

    #[test]
    fn the_page_limits_d_model_with_an_error_for_the_field() {
        let (mut sc, _) = scenario("a b", &Settings::default());
        assert!(run(&sc).is_ok());
        sc.d_model = 100_000;
        let e = run(&sc).unwrap_err();
        assert_eq!(e.field(), "d_model");
        assert_eq!(e.to_string(), "d_model = 100000 is over the limit of 512");
        sc.d_model = UI_MAX_D_MODEL;
        assert!(check_page_limits(&sc).is_ok());
        sc.d_model = UI_MAX_D_MODEL + 2;
        assert!(check_page_limits(&sc).is_err(), "the engine would run it; the page does not");
    }

    #[test]
    fn long_input_is_cut_with_notices() {
        let essay = "word ".repeat(10_000);
        let (sc, notices) = scenario(&essay, &Settings::default());
        assert_eq!(tokenize(&sc.sentences[0]).len(), UI_MAX_TOKENS);
        assert_eq!(notices.len(), 1);
        assert!(notices[0].contains("10000 tokens"));
        let many = "a\n".repeat(20);
        let (sc, notices) = scenario(&many, &Settings::default());
        assert_eq!((sc.sentences.len(), notices.len()), (UI_MAX_BATCH, 1));
    }

    #[test]
    fn blank_lines_are_not_sentences() {
        let (sc, notices) = scenario("\n  one  \n\n two\n", &Settings::default());
        assert_eq!(sc.sentences, ["one", "two"]);
        assert!(notices.is_empty());
        assert!(scenario(" \n ", &Settings::default()).0.sentences.is_empty());
    }

    #[test]
    fn large_runs_go_to_the_worker() {
        let mut s = Settings::default();
        // the default page: a few thousand multiply-adds
        let (small, _) = scenario(DEFAULT_TEXT, &s);
        assert!(!belongs_in_worker(&small, None));
        // the stress page: B = 4, T = 128, d_model = 256, h = 8
        let stress = stress_page(&mut s, "w0");
        // 4·512·256² + 2·524 288·32 + 16·524 288
        assert_eq!(engine_work(&stress), Some(134_217_728 + 33_554_432 + 8_388_608));
        assert!(belongs_in_worker(&stress, None));
        // over the page's d_model limit: an error at once, not a round trip
        let mut over = stress.clone();
        over.d_model = UI_MAX_D_MODEL + 8;
        assert!(!belongs_in_worker(&over, None));
        // no sentences: the engine's error at once
        let (empty, _) = scenario("", &s);
        assert!(!belongs_in_worker(&empty, None));
    }

    /// The stress page (B = 4, T = 128, d_model = 256, h = 8) with `first` as the first
    /// word of the first sentence.
    fn stress_page(s: &mut Settings, first: &str) -> Scenario {
        let words: Vec<String> = (0..128).map(|i| format!("w{i}")).collect();
        let mut text = vec![words.join(" "); 4].join("\n");
        text.replace_range(0..2, first);
        s.d_model = 256;
        s.n_heads = 8;
        scenario(&text, s).0
    }

    #[test]
    fn typing_in_one_sentence_is_a_quarter_of_the_stress_page_and_stays_here() {
        let mut s = Settings::default();
        let before = stress_page(&mut s, "w0");
        let typed = stress_page(&mut s, "w0x");
        let all = engine_work(&typed).unwrap();
        assert_eq!(work_to_do(&typed, Some(&before)), Some(all / 4));
        assert!(!belongs_in_worker(&typed, Some(&before)), "one sentence of four: on the page");
        // nothing changed: nothing to do
        assert_eq!(work_to_do(&typed, Some(&typed)), Some(0));
        // everything else changed: the whole run, in the worker
        let mut seed = typed.clone();
        seed.seed += 1;
        assert_eq!(work_to_do(&seed, Some(&typed)), Some(engine_work(&seed).unwrap()));
        assert!(belongs_in_worker(&seed, Some(&typed)));
        let mut causal = typed.clone();
        causal.mask.causal = !causal.mask.causal;
        assert!(belongs_in_worker(&causal, Some(&typed)));
        // a new word makes T longer: every sentence is padded anew, the whole run
        let mut longer = typed.clone();
        longer.sentences[0] = format!("{} more", longer.sentences[0].split_once(' ').unwrap().1);
        longer.sentences[1].push_str(" more");
        assert!(work_to_do(&longer, Some(&typed)) == engine_work(&longer));
        // another number of sentences: the whole run
        let mut fewer = typed.clone();
        fewer.sentences.pop();
        assert_eq!(work_to_do(&fewer, Some(&typed)), engine_work(&fewer));
        // two sentences of four changed: half
        let mut two = typed.clone();
        two.sentences[2] = two.sentences[2].replacen("w0", "w1", 1);
        two.sentences[3] = two.sentences[3].replacen("w0", "w2", 1);
        assert_eq!(work_to_do(&two, Some(&typed)), Some(engine_work(&two).unwrap() / 2));
        assert!(belongs_in_worker(&two, Some(&typed)));
    }
}
