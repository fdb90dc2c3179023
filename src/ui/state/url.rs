//! The page's state in its URL: the query pairs of the settings, the text and the
//! view, and the same read back, with a notice for every value that is not what a
//! link should hold. Plain Rust, tested natively.

use crate::engine::{
    limits, Fill, Padding, Positional, ProjectionKind, Projections, Rope, RopeStyle, Scenario, StepName,
};
use crate::link::{self, LinkError};

use crate::ui::state::engine::choice::EngineMode;
use crate::ui::state::settings::{
    Settings, ViewMode, ViewState, DEFAULT_BLOCK, DEFAULT_TEXT, UI_MAX_BATCH, UI_MAX_D_MODEL, UI_MAX_TOKENS,
};

/// The link's settings of the page itself rather than of the explorer: the open lesson,
/// presenter and embed mode, and where the engine runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageParams {
    /// The open lesson's id (`lesson=`) and step (`ls=`, 0 when missing or not a number).
    pub lesson: Option<(String, usize)>,
    /// Presenter mode (`present=1`): one lesson step per screen.
    pub present: bool,
    /// Embed mode (`embed=1`): only the selected figure.
    pub embed: bool,
    /// Where the engine runs (`engine=sync` or `engine=worker`).
    pub engine: EngineMode,
    /// Challenges mode (`challenge=ID`): the open challenge's id (empty: the list).
    pub challenge: Option<String>,
    /// The Learn view (`learn=TASK`, then its settings `learn_…`): the pairs in the link's
    /// order, read by `crate::ui::learn::settings`; `None` when the link has no `learn`.
    pub learn: Option<Vec<(&'static str, String)>>,
}

/// The page's own keys ([`PageParams`]); every other key is the explorer's
/// ([`from_query`]).
const PAGE_KEYS: [&str; 6] = ["lesson", "ls", "present", "embed", "engine", "challenge"];

/// The Learn view's keys: its task, the training challenge, then its model and optimizer
/// settings.
pub const LEARN_KEYS: [&str; 11] = [
    "learn",
    "learn_challenge",
    "learn_vocab",
    "learn_T",
    "learn_d",
    "learn_h",
    "learn_layers",
    "learn_pos",
    "learn_opt",
    "learn_lr",
    "learn_seed",
];

impl PageParams {
    /// The link's query pairs, split into the page's own settings and the explorer's
    /// pairs (for [`from_query`]).
    pub fn split(pairs: Vec<(String, String)>) -> (Self, Vec<(String, String)>) {
        // with a lesson, `step=N` is the lesson's step N as the page counts it ("step 2 of
        // 6", from 1); the explorer's `step` is a trace step's name, never a number
        let has_lesson = pairs.iter().any(|(k, _)| k == "lesson");
        let lesson_step = |k: &str, v: &str| has_lesson && k == "step" && v.parse::<usize>().is_ok();
        let (page, explorer): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(k, v)| {
            PAGE_KEYS.contains(&k.as_str()) || LEARN_KEYS.contains(&k.as_str()) || lesson_step(k, v)
        });
        let first = |key: &str| page.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let flag = |key: &str| page.iter().any(|(k, v)| k == key && (v == "1" || v == "true"));
        let from_one = first("step").and_then(|v| v.parse::<usize>().ok()).map(|n| n.saturating_sub(1));
        let step = first("ls").and_then(|v| v.parse::<usize>().ok()).or(from_one).unwrap_or(0);
        let params = Self {
            lesson: first("lesson").map(|id| (id.to_owned(), step)),
            present: flag("present"),
            embed: flag("embed"),
            engine: EngineMode::from_query(first("engine")),
            challenge: first("challenge").map(str::to_owned),
            learn: first("learn").map(|_| {
                page.iter()
                    .filter_map(|(k, v)| {
                        LEARN_KEYS.iter().find(|key| **key == k).map(|key| (*key, v.clone()))
                    })
                    .collect()
            }),
        };
        (params, explorer)
    }

    /// Appends the page's own settings to the explorer's query pairs ([`to_query`]).
    pub fn push_to(&self, q: &mut Vec<(&'static str, String)>) {
        if let Some((id, step)) = &self.lesson {
            q.push(("lesson", id.clone()));
            q.push(("ls", step.to_string()));
        }
        if let Some(id) = &self.challenge {
            q.push(("challenge", id.clone()));
        }
        if let Some(learn) = &self.learn {
            q.extend(learn.iter().cloned());
        }
        if self.present {
            q.push(("present", "1".into()));
        }
        if let Some(mode) = self.engine.query_value() {
            q.push(("engine", mode.into()));
        }
        if self.embed {
            q.push(("embed", "1".into()));
        }
    }
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
    pairs.extend(view_mode_query(v));
    if let Some(h_kv) = s.n_kv_heads {
        pairs.push(("hkv", h_kv.to_string()));
    }
    if let Some(rope) = s.rope {
        pairs.push(("rope", rope.style.name().to_owned()));
        if rope.base != Rope::DEFAULT_BASE {
            pairs.push(("rope_base", rope.base.to_string()));
        }
        if let Some(f) = rope.fraction {
            pairs.push(("rope_frac", f.to_string()));
        }
    }
    if s.alibi {
        pairs.push(("alibi", "1".to_owned()));
    }
    if let Some(w) = s.mask.window {
        pairs.push(("win", w.to_string()));
    }
    if let Some(n) = s.mask.keep_first {
        pairs.push(("keep", n.to_string()));
    }
    if let Some(scale) = s.scale {
        pairs.push(("scale", scale.to_string()));
    }
    if let Some(c) = s.softcap {
        pairs.push(("softcap", c.to_string()));
    }
    if let Some(n) = s.n_layers.filter(|&n| n != 1) {
        pairs.push(("layers", n.to_string()));
    }
    if let Some(l) = s.layer {
        pairs.push(("layer", l.to_string()));
    }
    pairs
}

/// The view's own pairs that opening a lesson step or a challenge does not set: lines,
/// the decode or tiles view and its block, and a colour scale per head (`share=0`). A
/// lesson or challenge link carries these and its own keys only ([`PageParams`]): opening
/// the step sets the sentences, the settings, the step and the sentence, so the link stays
/// `?lesson=masks&ls=2`, which index.html paints before the app loads.
pub fn view_only_query(v: &ViewState) -> Vec<(&'static str, String)> {
    let mut pairs = view_mode_query(v);
    if !v.shared_scale {
        pairs.push(("share", "0".to_owned()));
    }
    pairs
}

/// `view` (lines, decode, tiles) and the tiles' `block`, when not the defaults.
fn view_mode_query(v: &ViewState) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    match v.mode {
        ViewMode::Decode => pairs.push(("view", "decode".to_owned())),
        ViewMode::Tiles => pairs.push(("view", "tiles".to_owned())),
        ViewMode::Cards if v.lines => pairs.push(("view", "lines".to_owned())),
        ViewMode::Cards => {}
    }
    if v.mode == ViewMode::Tiles && v.block != DEFAULT_BLOCK {
        pairs.push(("block", v.block.to_string()));
    }
    pairs
}

/// `href` with `flag` (e.g. `embed=1`) added to its query, before any fragment.
pub fn with_flag(href: &str, flag: &str) -> String {
    let (base, fragment) = href.split_once('#').map_or((href, ""), |(b, f)| (b, f));
    let sep = if base.contains('?') { '&' } else { '?' };
    let hash = if fragment.is_empty() { String::new() } else { format!("#{fragment}") };
    format!("{base}{sep}{flag}{hash}")
}

/// `href` (a whole address, or only `?query#fragment`) without any `key=…` pair in its
/// query, the other pairs as written: an embed's "Open in Attention Lens" link is its own
/// address without `embed` (`embed=1` or `embed=true`, anywhere in the query).
pub fn without_key(href: &str, key: &str) -> String {
    let (base, hash) = href.find('#').map_or((href, ""), |at| href.split_at(at));
    let Some((page, query)) = base.split_once('?') else { return href.to_owned() };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split_once('=').map_or(*pair, |(k, _)| k) != key)
        .collect();
    let sep = if kept.is_empty() { "" } else { "?" };
    format!("{page}{sep}{}{hash}", kept.join("&"))
}

/// True when the short keys of [`to_query`] cannot say everything: imported or edited
/// embeddings, explicit weights, QK-norm's weights, attention sinks, a head size of its
/// own, RoPE's scaling or multi-head latent attention. Such a state also goes into the
/// link's fragment, whole ([`fragment`]).
pub fn needs_fragment(s: &Settings) -> bool {
    !s.embeddings.is_empty()
        || s.mla.is_some()
        || matches!(s.projections, Projections::Explicit(_))
        || s.qk_norm.is_some()
        || s.sinks.is_some()
        || s.d_head.is_some()
        || s.rope.is_some_and(|r| r.scaling.is_some())
}

/// The URL fragment for a state: `#s=…` with the whole scenario when [`needs_fragment`],
/// else empty.
///
/// # Errors
/// [`LinkError::TooLarge`] for a scenario too large for a link.
pub fn fragment(text: &str, s: &Settings) -> Result<String, LinkError> {
    if !needs_fragment(s) {
        return Ok(String::new());
    }
    let (scenario, _) = crate::ui::state::settings::scenario(text, s);
    link::encode(&scenario).map(|data| link::fragment(&data))
}

/// The text and settings a link's fragment carries, if it has one: they replace what its
/// query says (the query still gives the view).
///
/// # Errors
/// A [`LinkError`] for a fragment that is not a readable scenario.
pub fn from_fragment(fragment: &str) -> Option<Result<(String, Settings), LinkError>> {
    let data = link::from_fragment(fragment)?;
    Some(link::decode(data).map(|scenario| crate::ui::state::settings::from_scenario(&scenario)))
}

/// The explorer's text, settings and view from a link: its query pairs (the explorer's,
/// after [`PageParams::split`]) and its fragment (with its `#`, or empty), with the
/// notices. A whole scenario in the fragment (imported numbers) replaces the text and the
/// settings the query gives; the query still gives the view.
pub fn explorer_from(
    pairs: &[(String, String)],
    fragment: &str,
) -> (String, Settings, ViewState, Vec<String>) {
    let (mut text, mut settings, view, mut notices) = from_query(pairs);
    match from_fragment(fragment) {
        Some(Ok((t, s))) => (text, settings) = (t, s),
        Some(Err(e)) => notices.push(format!("{e}; the link's other settings are shown instead.")),
        None => {}
    }
    (text, settings, view, notices)
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
                "decode" => v.mode = ViewMode::Decode,
                "tiles" => v.mode = ViewMode::Tiles,
                _ => bad(&mut notices, "view", value, "lines, heatmap, decode or tiles"),
            },
            "block" => match value.parse::<usize>() {
                Ok(n) if (1..=UI_MAX_TOKENS).contains(&n) => v.block = n,
                _ => bad(&mut notices, "block", value, &format!("a whole number from 1 to {UI_MAX_TOKENS}")),
            },
            "share" => match value {
                "1" => v.shared_scale = true,
                "0" => v.shared_scale = false,
                _ => bad(&mut notices, "share", value, "0 or 1"),
            },
            "layers" => match value.parse::<usize>() {
                Ok(n) if (1..=Scenario::MAX_LAYERS).contains(&n) => s.n_layers = (n > 1).then_some(n),
                _ => bad(
                    &mut notices,
                    "layers",
                    value,
                    &format!("a whole number from 1 to {}", Scenario::MAX_LAYERS),
                ),
            },
            "layer" => match value.parse::<usize>() {
                Ok(l) if (1..=Scenario::MAX_LAYERS).contains(&l) => s.layer = Some(l),
                _ => {
                    bad(&mut notices, "layer", value, &format!("a layer from 1 to {}", Scenario::MAX_LAYERS))
                }
            },
            "hkv" => match value.parse::<usize>() {
                Ok(h) if (1..=limits::MAX_HEADS).contains(&h) => s.n_kv_heads = Some(h),
                _ => bad(
                    &mut notices,
                    "hkv",
                    value,
                    &format!("a whole number from 1 to {}", limits::MAX_HEADS),
                ),
            },
            "rope" => match RopeStyle::from_name(value) {
                Some(style) => {
                    s.rope = Some(Rope {
                        style,
                        base: s.rope.map_or(Rope::DEFAULT_BASE, |r| r.base),
                        fraction: s.rope.and_then(|r| r.fraction),
                        scaling: s.rope.and_then(|r| r.scaling),
                    })
                }
                None => bad(&mut notices, "rope", value, "half or interleaved"),
            },
            "rope_base" => match value.parse::<f64>() {
                Ok(base) if base.is_finite() && base > 0.0 => {
                    s.rope = Some(Rope {
                        style: s.rope.map_or(RopeStyle::Half, |r| r.style),
                        base,
                        fraction: s.rope.and_then(|r| r.fraction),
                        scaling: s.rope.and_then(|r| r.scaling),
                    })
                }
                _ => bad(&mut notices, "rope_base", value, "a number greater than 0"),
            },
            "rope_frac" => match value.parse::<f64>() {
                Ok(f) if f > 0.0 && f <= 1.0 => {
                    let base = s.rope.unwrap_or_else(|| Rope::new(RopeStyle::Half));
                    s.rope = Some(Rope { fraction: Some(f), ..base })
                }
                _ => bad(&mut notices, "rope_frac", value, "a number in (0, 1]"),
            },
            "alibi" => match value {
                "1" | "true" => s.alibi = true,
                "0" | "false" => s.alibi = false,
                _ => bad(&mut notices, "alibi", value, "0 or 1"),
            },
            "scale" | "softcap" => match value.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => {
                    *if key == "scale" { &mut s.scale } else { &mut s.softcap } = Some(x);
                }
                _ => bad(&mut notices, key.as_str(), value, "a number greater than 0"),
            },
            "win" => match value.parse::<usize>() {
                Ok(w) if w >= 1 => s.mask.window = Some(w),
                _ => bad(&mut notices, "win", value, "a whole number of at least 1"),
            },
            "keep" => match value.parse::<usize>() {
                Ok(n) => s.mask.keep_first = (n > 0).then_some(n),
                _ => bad(&mut notices, "keep", value, "a whole number"),
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::engine::rope_scaling::RopeScaling;
    use crate::engine::MaskConfig;

    fn pairs(q: &[(&str, &str)]) -> Vec<(String, String)> {
        q.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn url_round_trip_of_every_option_and_the_fragment() {
        let mut s = Settings {
            n_kv_heads: Some(2),
            alibi: true,
            scale: Some(0.125),
            softcap: Some(50.0),
            ..Settings::default()
        };
        s.n_heads = 4;
        s.d_model = 8;
        s.rope = Some(Rope::new(RopeStyle::Half));
        s.mask.window = Some(3);
        s.mask.keep_first = Some(2);
        let q: Vec<(String, String)> =
            to_query("a b", &s, &ViewState::default()).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert!(!q.iter().any(|(k, _)| k == "rope_base"), "the default base is not written");
        let (_, back, _, notices) = from_query(&q);
        assert_eq!((back, notices), (s.clone(), vec![]));
        // nothing imported: no fragment; an edited embedding: the whole scenario
        assert_eq!(fragment("a b", &s).unwrap(), "");
        s.embeddings.insert("bat".into(), vec![0.1 + 0.2; 8]);
        let f = fragment("a b", &s).unwrap();
        assert!(f.starts_with("#s=1."));
        let (text, from_link) = from_fragment(&f).unwrap().unwrap();
        assert_eq!((text.as_str(), &from_link), ("a b", &s));
        assert!(from_fragment("#s=1.garbage").unwrap().is_err());
        assert!(from_fragment("").is_none());
        // RoPE's scaling has no short key: an imported Llama 3.1 scaling travels whole
        let mut scaled = Settings { rope: Some(Rope::new(RopeStyle::Half)), ..Settings::default() };
        assert_eq!(fragment("a b", &scaled).unwrap(), "");
        scaled.rope = scaled.rope.map(|r| Rope { scaling: Some(RopeScaling::Linear { factor: 4.0 }), ..r });
        let (_, from_link) = from_fragment(&fragment("a b", &scaled).unwrap()).unwrap().unwrap();
        assert_eq!(from_link.rope, scaled.rope);
        // nor has multi-head latent attention: an imported DeepSeek layer travels whole
        let latent = Settings { mla: Some(crate::engine::Mla::sized(3, 2, 2, 3)), ..Settings::default() };
        let (_, from_link) = from_fragment(&fragment("a b", &latent).unwrap()).unwrap().unwrap();
        assert_eq!(from_link.mla, latent.mla);
        for (key, value) in
            [("hkv", "0"), ("rope", "sideways"), ("rope_base", "-1"), ("alibi", "2"), ("win", "0")]
        {
            let (_, d, _, notices) = from_query(&pairs(&[(key, value)]));
            assert_eq!(d, Settings::default(), "{key}");
            assert_eq!(notices.len(), 1, "{key}");
        }
    }

    /// The explorer's head size, softcap, QK-norm and sinks controls: softcap and scale
    /// have short keys; d_head, QK-norm and sinks send the whole scenario in the fragment,
    /// and a link read back gives the very settings.
    #[test]
    fn the_head_size_and_score_controls_survive_a_link() {
        let base = Settings { d_model: 8, n_heads: 2, ..Settings::default() };
        let softcap = Settings { softcap: Some(2.5), scale: Some(0.1 + 0.2), ..base.clone() };
        let q: Vec<(String, String)> = to_query("a b", &softcap, &ViewState::default())
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert!(q.contains(&("softcap".into(), "2.5".into())), "{q:?}");
        assert_eq!(fragment("a b", &softcap).unwrap(), "", "a softcap needs no fragment");
        assert_eq!(from_query(&q).1, softcap);
        let unit = crate::engine::QkNorm::per_head();
        let each = [
            Settings { d_head: Some(3), ..base.clone() },
            Settings { qk_norm: Some(unit), ..base.clone() },
            Settings { sinks: Some(vec![0.0, -1.5]), ..base.clone() },
            Settings { d_head: Some(5), sinks: Some(vec![2.0, 2.0]), softcap: Some(30.0), ..base },
        ];
        for s in each {
            let f = fragment("a b\nc", &s).unwrap();
            assert!(f.starts_with("#s=1."), "{s:?}");
            let (text, back) = from_fragment(&f).unwrap().unwrap();
            assert_eq!((text.as_str(), back), ("a b\nc", s));
        }
    }

    /// Every bound of the short keys: the last good value is taken, the first bad one is a
    /// notice; every spelling of a flag is read both ways.
    #[test]
    fn bounds_and_flags_of_the_short_keys() {
        let read = |k: &str, v: &str| from_query(&pairs(&[(k, v)]));
        let max_d = UI_MAX_D_MODEL.to_string();
        assert_eq!(read("d", &max_d).1.d_model, UI_MAX_D_MODEL);
        for bad in ["0".to_string(), (UI_MAX_D_MODEL + 1).to_string()] {
            assert_eq!(read("d", &bad).3.len(), 1, "d={bad}");
        }
        assert_eq!(read("h", "64").1.n_heads, 64);
        assert_eq!(read("h", "0").3.len(), 1);
        assert_eq!(read("h", "65").3.len(), 1);
        assert_eq!(read("b", &(UI_MAX_BATCH - 1).to_string()).2.batch, UI_MAX_BATCH - 1);
        assert_eq!(read("b", &UI_MAX_BATCH.to_string()).3.len(), 1);
        assert_eq!(read("rope_base", "0").3.len(), 1);
        assert_eq!(read("rope_base", "0.5").1.rope.map(|r| r.base), Some(0.5));
        // the later pair wins, so each flag's "off" spelling is read
        let (_, s, v, notices) = from_query(&pairs(&[
            ("view", "lines"),
            ("view", "heatmap"),
            ("causal", "1"),
            ("causal", "false"),
            ("alibi", "1"),
            ("alibi", "0"),
        ]));
        assert!(!v.lines && !s.mask.causal && !s.alibi && notices.is_empty());
        let (_, s, ..) = from_query(&pairs(&[("causal", "true"), ("causal", "0")]));
        assert!(!s.mask.causal);
    }

    #[test]
    fn a_flag_goes_before_the_fragment() {
        assert_eq!(with_flag("https://x/?s=a#s=1.abc", "embed=1"), "https://x/?s=a&embed=1#s=1.abc");
        assert_eq!(with_flag("https://x/", "embed=1"), "https://x/?embed=1");
    }

    #[test]
    fn a_lesson_or_challenge_link_carries_only_the_views_own_choices() {
        assert!(view_only_query(&ViewState::default()).is_empty());
        let lines = ViewState { lines: true, shared_scale: false, ..ViewState::default() };
        assert_eq!(view_only_query(&lines), vec![("view", "lines".to_owned()), ("share", "0".to_owned())]);
        let tiles = ViewState { mode: ViewMode::Tiles, block: 3, ..ViewState::default() };
        assert_eq!(view_only_query(&tiles), vec![("view", "tiles".to_owned()), ("block", "3".to_owned())]);
        // and the explorer's link still says them, read back the same
        let (_, _, back, notices) = from_query(
            &to_query("a b", &Settings::default(), &tiles)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect::<Vec<_>>(),
        );
        assert!(notices.is_empty());
        assert_eq!((back.mode, back.block), (ViewMode::Tiles, 3));
    }

    #[test]
    fn the_full_page_link_is_the_embed_without_embed() {
        for (embed, full) in [
            ("https://x/?s=a&embed=1&step=scores#s=1.abc", "https://x/?s=a&step=scores#s=1.abc"),
            ("https://x/app/?embed=true&s=the%20cat", "https://x/app/?s=the%20cat"),
            ("https://x/?s=a&embed=1", "https://x/?s=a"),
            ("https://x/?embed=1", "https://x/"),
            ("https://x/?embed=1#s=1.abc", "https://x/#s=1.abc"),
            // a key that only starts with `embed`, and an `embed` inside a value or the fragment, stay
            ("https://x/?embedded=1&s=embed=1#embed=1", "https://x/?embedded=1&s=embed=1#embed=1"),
            ("?s=a&embed=1", "?s=a"),
            ("https://x/", "https://x/"),
        ] {
            assert_eq!(without_key(embed, "embed"), full, "{embed}");
        }
        // and what is left opens the full page: no embed, the same scenario
        let (page, rest) =
            PageParams::split(vec![("s".into(), "a".into()), ("step".into(), "scores".into())]);
        assert!(!page.embed && rest.len() == 2);
    }

    #[test]
    fn the_pages_own_settings_round_trip_apart_from_the_explorers() {
        let page = PageParams {
            lesson: Some(("masks".into(), 2)),
            present: true,
            embed: true,
            engine: EngineMode::Worker,
            challenge: Some("uniform".into()),
            learn: Some(vec![("learn", "induction".into()), ("learn_lr", "0.02".into())]),
        };
        let mut q = to_query("a b", &Settings::default(), &ViewState::default());
        let n_explorer = q.len();
        page.push_to(&mut q);
        let back: Vec<(String, String)> = q.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let (read, explorer) = PageParams::split(back);
        assert_eq!(read, page);
        assert_eq!(explorer.len(), n_explorer);
        assert!(from_query(&explorer).3.is_empty(), "the page's keys are not the explorer's unknown keys");
        // the defaults add nothing; a flag is "1" or "true"; a bad step is step 0
        let mut none = Vec::new();
        PageParams::default().push_to(&mut none);
        assert!(none.is_empty());
        let (read, _) = PageParams::split(pairs(&[
            ("lesson", "x"),
            ("ls", "two"),
            ("present", "true"),
            ("embed", "yes"),
        ]));
        assert_eq!(
            read,
            PageParams { lesson: Some(("x".into(), 0)), present: true, ..PageParams::default() }
        );
        // `?lesson=X&step=N` opens step N, counted from 1 as the page counts; `ls` (from 0)
        // wins when both are given; without a lesson `step` stays the explorer's
        let (read, explorer) = PageParams::split(pairs(&[("lesson", "x"), ("step", "3")]));
        assert_eq!(read.lesson, Some(("x".into(), 2)));
        assert!(explorer.is_empty());
        let (read, _) = PageParams::split(pairs(&[("lesson", "x"), ("step", "3"), ("ls", "0")]));
        assert_eq!(read.lesson, Some(("x".into(), 0)));
        let (read, explorer) = PageParams::split(pairs(&[("step", "weights")]));
        assert_eq!((read.lesson, explorer.len()), (None, 1));
    }

    #[test]
    fn url_round_trip() {
        let s = Settings {
            d_model: 12,
            n_heads: 3,
            projections: Projections::Named(ProjectionKind::Seeded),
            seed: 42,
            mask: MaskConfig::new(true, Padding::KeysAndQueries, Fill::LargeNegative),
            embeddings: BTreeMap::new(),
            kv_text: Some("x y z".into()),
            positional: Positional::Sinusoidal,
            n_kv_heads: Some(1),
            rope: Some(Rope {
                style: RopeStyle::Interleaved,
                base: 500.0,
                fraction: Some(0.5),
                scaling: None,
            }),
            alibi: true,
            scale: Some(0.3),
            softcap: None,
            qk_norm: None,
            sinks: None,
            mla: None,
            d_head: None,
            n_layers: Some(3),
            layer: Some(2),
        };
        let v = ViewState {
            step: StepName::Scores,
            batch: 1,
            shared_scale: false,
            lines: true,
            ..ViewState::default()
        };
        let q: Vec<(String, String)> =
            to_query("a b\nc", &s, &v).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let (text, s2, v2, notices) = from_query(&q);
        assert_eq!((text.as_str(), s2, v2), ("a b\nc", s, v));
        assert!(notices.is_empty());
    }

    #[test]
    fn the_decode_and_tiles_views_are_in_the_url() {
        for (mode, name) in [(ViewMode::Decode, "decode"), (ViewMode::Tiles, "tiles")] {
            let v = ViewState { mode, block: 3, ..ViewState::default() };
            let q = to_query(DEFAULT_TEXT, &Settings::default(), &v);
            assert!(q.contains(&("view", name.to_owned())), "{q:?}");
            // the block goes with the tiles view only
            assert_eq!(q.iter().any(|(k, _)| *k == "block"), mode == ViewMode::Tiles);
            let back: Vec<(String, String)> = q.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            let (_, _, v2, notices) = from_query(&back);
            assert_eq!(v2.mode, mode);
            assert!(notices.is_empty(), "{notices:?}");
        }
        let (_, _, v, notices) = from_query(&pairs(&[("view", "tiles"), ("block", "4")]));
        assert_eq!((v.mode, v.block), (ViewMode::Tiles, 4));
        assert!(notices.is_empty());
        for bad in ["0", "x", "100000"] {
            let (_, _, v, notices) = from_query(&pairs(&[("block", bad)]));
            assert_eq!(v.block, DEFAULT_BLOCK);
            assert!(notices[0].contains("block="), "{notices:?}");
        }
    }

    #[test]
    fn the_layers_are_in_the_url() {
        // one layer writes nothing; more write `layers`, a layer picked writes `layer`
        let q = to_query(DEFAULT_TEXT, &Settings::default(), &ViewState::default());
        assert!(!q.iter().any(|(k, _)| *k == "layers" || *k == "layer"));
        let s = Settings { n_layers: Some(2), layer: Some(1), ..Settings::default() };
        let q = to_query(DEFAULT_TEXT, &s, &ViewState::default());
        assert!(q.contains(&("layers", "2".into())) && q.contains(&("layer", "1".into())), "{q:?}");
        let (_, read, _, notices) = from_query(&pairs(&[("layers", "4"), ("layer", "3")]));
        assert_eq!((read.n_layers, read.layer, notices.len()), (Some(4), Some(3), 0));
        let (_, read, _, notices) = from_query(&pairs(&[("layers", "1")]));
        assert_eq!((read.n_layers, notices.len()), (None, 0));
        for (key, bad) in
            [("layers", "5"), ("layers", "0"), ("layers", "two"), ("layer", "0"), ("layer", "9")]
        {
            let (_, read, _, notices) = from_query(&pairs(&[(key, bad)]));
            assert_eq!((read.n_layers, read.layer), (None, None));
            assert!(notices[0].contains(&format!("{key}=\"{bad}\"")), "{notices:?}");
        }
        // and the scenario carries them to the engine
        let (scenario, _) = crate::ui::state::settings::scenario(DEFAULT_TEXT, &s);
        let trace = crate::engine::run(&scenario).unwrap();
        assert_eq!((trace.n_layers, trace.layer), (2, 1));
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
        assert!(
            !v.lines && notices[0].contains("view=\"spiral\" is not lines, heatmap, decode or tiles"),
            "{notices:?}"
        );
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
}
