//! The page's settings as plain Rust: what the controls set, what is selected, the
//! default text, the page's input limits, and the scenario they describe. No web
//! dependency, so it is tested natively. Their URL form is [`crate::ui::state::url`]; where the
//! engine runs is [`crate::ui::state::engine::choice`].

use std::collections::BTreeMap;

use crate::engine::tokenize::tokenize;
use crate::engine::{
    limits, Fill, MaskConfig, Padding, Positional, ProjectionKind, Projections, Scenario, StepName,
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
    pub rope: Option<crate::engine::Rope>,
    /// ALiBi's per-head linear bias.
    pub alibi: bool,
    /// The scores' factor in place of 1/√d_k (None = 1/√d_k).
    pub scale: Option<f64>,
    /// Logit softcapping's c (None = off).
    pub softcap: Option<f64>,
    /// QK-norm (None = off).
    pub qk_norm: Option<crate::engine::QkNorm>,
    /// Attention sinks, one logit per head (None = off).
    pub sinks: Option<Vec<f64>>,
    /// Multi-head latent attention, from the `mla-rank` control ([`set_mla_rank`]), an
    /// imported scenario, a link or a lesson (None = off).
    pub mla: Option<crate::engine::Mla>,
    /// A head size of its own (None = d_model / h).
    pub d_head: Option<usize>,
    /// The number of attention layers (None = 1).
    pub n_layers: Option<usize>,
    /// The layer whose steps the views show, from 1 (None = the last).
    pub layer: Option<usize>,
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
            mask: MaskConfig {
                causal: false,
                padding: Padding::Keys,
                fill: Fill::NegInf,
                ..MaskConfig::default()
            },
            embeddings: BTreeMap::new(),
            kv_text: None,
            positional: Positional::None,
            n_kv_heads: None,
            rope: None,
            alibi: false,
            scale: None,
            softcap: None,
            qk_norm: None,
            sinks: None,
            mla: None,
            d_head: None,
            n_layers: None,
            layer: None,
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
    /// The step's cards, or one of the views of how a model runs attention.
    pub mode: ViewMode,
    /// The tiles view's block size (the side of a tile).
    pub block: usize,
}

/// What the tensors' column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewMode {
    /// The selected step's cards (heatmaps, or lines).
    #[default]
    Cards,
    /// KV-cache decoding, position by position (`view=decode`).
    Decode,
    /// The online softmax, tile by tile (`view=tiles`).
    Tiles,
}

/// The tiles view's block size when the link gives none.
pub const DEFAULT_BLOCK: usize = 2;

impl Default for ViewState {
    fn default() -> Self {
        Self {
            step: StepName::Weights,
            batch: 0,
            shared_scale: true,
            lines: false,
            mode: ViewMode::Cards,
            block: DEFAULT_BLOCK,
        }
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
        d_head: settings.d_head,
        embeddings: settings.embeddings.clone(),
        projections: settings.projections.clone(),
        seed: settings.seed,
        mask: settings.mask,
        positional: settings.positional,
        n_kv_heads: settings.n_kv_heads,
        rope: settings.rope,
        alibi: settings.alibi,
        scale: settings.scale,
        softcap: settings.softcap,
        qk_norm: settings.qk_norm.clone(),
        sinks: settings.sinks.clone(),
        mla: settings.mla.clone(),
        n_layers: settings.n_layers,
        layer: settings.layer,
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
            scale: s.scale,
            softcap: s.softcap,
            qk_norm: s.qk_norm.clone(),
            sinks: s.sinks.clone(),
            mla: s.mla.clone(),
            d_head: s.d_head,
            n_layers: s.n_layers,
            layer: s.layer,
        },
    )
}

/// The `mla-rank` control: multi-head latent attention with a latent of `rank` numbers
/// (`None`: off). An MLA already set keeps its other sizes (its weights, sized for the old
/// rank, are dropped and drawn from the seed); a new one takes DeepSeek-V3's proportions
/// for this page's head width w = d_model / h: d_nope = d_v = w, d_rope = about w / 2,
/// even and at least 2 (V3: 128, 128, 64). MLA's projections are rectangular, so identity
/// projections become seeded ones.
pub fn set_mla_rank(s: &mut Settings, rank: Option<usize>) {
    let Some(rank) = rank else {
        s.mla = None;
        return;
    };
    s.mla = Some(match s.mla.take() {
        Some(m) => crate::engine::Mla { kv_lora_rank: rank, weights: None, ..m },
        None => new_mla(s, rank),
    });
    if s.projections == Projections::Named(ProjectionKind::Identity) {
        s.projections = Projections::Named(ProjectionKind::Seeded);
    }
}

/// The MLA a rank turns on when none is set: DeepSeek-V3's proportions for this page's
/// head width w = d_model / h (d_nope = d_v = w, d_rope = about w / 2, even and at least 2).
pub fn new_mla(s: &Settings, rank: usize) -> crate::engine::Mla {
    let w = (s.d_model / s.n_heads.max(1)).max(1);
    let d_rope = 2 * (w / 4).max(1);
    crate::engine::Mla::sized(rank, w, d_rope, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mla_rank_sets_deepseeks_proportions_and_runs() {
        let mut s = Settings::default(); // d_model 3, h 1, identity
        set_mla_rank(&mut s, Some(2));
        assert_eq!(s.mla, Some(crate::engine::Mla::sized(2, 3, 2, 3)));
        assert_eq!(s.projections, Projections::Named(ProjectionKind::Seeded));
        let (sc, _) = scenario(DEFAULT_TEXT, &s);
        let t = crate::engine::run(&sc).unwrap();
        assert_eq!(t.step(StepName::CKv).unwrap().shape, vec![2, 5, 2]);
        // a new rank keeps the other sizes; 128-wide heads get V3's 128, 64, 128
        set_mla_rank(&mut s, Some(5));
        assert_eq!(s.mla, Some(crate::engine::Mla::sized(5, 3, 2, 3)));
        set_mla_rank(&mut s, None);
        assert_eq!(s.mla, None);
        let mut wide = Settings { d_model: 256, n_heads: 2, ..Settings::default() };
        set_mla_rank(&mut wide, Some(64));
        assert_eq!(wide.mla, Some(crate::engine::Mla::sized(64, 128, 64, 128)));
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
}
