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
            mask: MaskConfig::new(false, Padding::Keys, Fill::NegInf),
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
/// (`None`: off). A new MLA takes the page's heads ([`page_mla`]); an MLA already set keeps
/// its head sizes (its weights, sized for the old rank, are dropped and drawn from the
/// seed): the page's, which follow d_model and h ([`edit`]), or an import's own. MLA's
/// projections are rectangular, so identity projections become seeded ones.
pub fn set_mla_rank(s: &mut Settings, rank: Option<usize>) {
    let Some(rank) = rank else {
        s.mla = None;
        return;
    };
    s.mla = Some(match s.mla.take() {
        Some(m) => crate::engine::Mla { kv_lora_rank: rank, weights: None, ..m },
        None => page_mla(s.d_model, s.n_heads, rank),
    });
    if s.projections == Projections::Named(ProjectionKind::Identity) {
        s.projections = Projections::Named(ProjectionKind::Seeded);
    }
}

/// The MLA a rank turns on, a function of d_model, h and the rank alone: DeepSeek-V3's head
/// proportions, d_nope : d_rope : d_v = 128 : 64 : 128 = 2 : 1 : 2, at the page's scale:
/// d_nope = d_v, the multiple of 4 nearest d_model / h (halves up, at least 4), and d_rope
/// half of that (so even: RoPE turns pairs).
pub fn page_mla(d_model: usize, n_heads: usize, rank: usize) -> crate::engine::Mla {
    let h = n_heads.max(1);
    // round(d_model / (4·h)) in whole numbers, halves up
    let d_rope = 2 * ((d_model + 2 * h) / (4 * h)).max(1);
    crate::engine::Mla::sized(rank, 2 * d_rope, d_rope, 2 * d_rope)
}

/// Whether the MLA's heads are the page's ([`page_mla`] for these d_model and h), rather
/// than an import's or a lesson's own.
pub fn mla_follows_page(s: &Settings) -> bool {
    s.mla.as_ref().is_some_and(|m| *m == page_mla(s.d_model, s.n_heads, m.kv_lora_rank))
}

/// Applies a control's edit `f`. An MLA with the page's heads before the edit still has
/// them after it, for the new d_model and h, so the scenario is a function of the settings
/// shown, whatever order they were typed in (a link, which carries the sizes, opens the
/// same); an import's or a lesson's own heads are left as they are.
pub fn edit(s: &mut Settings, f: &dyn Fn(&mut Settings)) {
    let (d_model, n_heads) = (s.d_model, s.n_heads);
    f(s);
    if let Some(m) = &s.mla {
        if *m == page_mla(d_model, n_heads, m.kv_lora_rank) {
            s.mla = Some(page_mla(s.d_model, s.n_heads, m.kv_lora_rank));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mla_rank_sets_deepseeks_proportions_and_runs() {
        let mut s = Settings::default(); // d_model 3, h 1, identity
        set_mla_rank(&mut s, Some(2));
        // d_model / h = 3: d_nope = d_v = 4, the multiple of 4 nearest it, d_rope = 2
        assert_eq!(s.mla, Some(crate::engine::Mla::sized(2, 4, 2, 4)));
        assert_eq!(s.projections, Projections::Named(ProjectionKind::Seeded));
        let (sc, _) = scenario(DEFAULT_TEXT, &s);
        let t = crate::engine::run(&sc).unwrap();
        assert_eq!(t.step(StepName::CKv).unwrap().shape, vec![2, 5, 2]);
        // a new rank keeps the other sizes
        set_mla_rank(&mut s, Some(5));
        assert_eq!(s.mla, Some(crate::engine::Mla::sized(5, 4, 2, 4)));
        set_mla_rank(&mut s, None);
        assert_eq!(s.mla, None);
        // 128-wide heads get V3's own 128, 64, 128
        let mut wide = Settings { d_model: 256, n_heads: 2, ..Settings::default() };
        set_mla_rank(&mut wide, Some(64));
        assert_eq!(wide.mla, Some(crate::engine::Mla::sized(64, 128, 64, 128)));
    }

    /// V3's 2 : 1 : 2, whatever d_model and h: the hint's "DeepSeek-V3's proportions" holds.
    #[test]
    fn the_page_mla_has_deepseek_v3s_proportions() {
        // DeepSeek-V3's config: qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128
        let (nope, rope, v) = (128, 64, 128);
        for d_model in 1..=96 {
            for h in 1..=8 {
                let m = page_mla(d_model, h, 3);
                assert_eq!(m.qk_nope_head_dim * rope, m.qk_rope_head_dim * nope, "{d_model}, {h}");
                assert_eq!(m.v_head_dim * rope, m.qk_rope_head_dim * v, "{d_model}, {h}");
                assert!(m.qk_rope_head_dim >= 2 && m.qk_rope_head_dim.is_multiple_of(2));
                // d_nope is the multiple of 4 nearest d_model / h (halves up), at least 4
                let nearest = ((d_model as f64 / (4.0 * h as f64)) + 0.5).floor().max(1.0) as usize;
                assert_eq!(m.qk_nope_head_dim, 4 * nearest, "{d_model}, {h}");
            }
        }
    }

    /// The same d_model, h and rank give the same MLA, whatever order they were typed in;
    /// an imported MLA's own heads stay.
    #[test]
    fn mla_sizes_do_not_depend_on_the_order_of_edits() {
        let rank = |r| move |s: &mut Settings| set_mla_rank(s, Some(r));
        let apply = |edits: &[&dyn Fn(&mut Settings)]| {
            let mut s = Settings::default();
            for f in edits {
                edit(&mut s, *f);
            }
            s
        };
        let (d8, h2, h1) = (
            |s: &mut Settings| s.d_model = 8,
            |s: &mut Settings| s.n_heads = 2,
            |s: &mut Settings| s.n_heads = 1,
        );
        let paths: [Settings; 4] = [
            apply(&[&d8, &h2, &rank(3)]),
            apply(&[&rank(3), &d8, &h2]),
            apply(&[&d8, &rank(3), &h2]),
            apply(&[&h2, &rank(5), &h1, &d8, &h2, &rank(3)]),
        ];
        for s in &paths {
            assert_eq!(s.mla, Some(crate::engine::Mla::sized(3, 4, 2, 4)));
            assert_eq!(s, &paths[0]);
            assert!(mla_follows_page(s));
        }
        // a lesson's or an import's own heads: d_model and h leave them
        let own = crate::engine::Mla::sized(4, 3, 2, 3);
        let mut s = Settings { d_model: 8, n_heads: 2, mla: Some(own.clone()), ..Settings::default() };
        assert!(!mla_follows_page(&s));
        edit(&mut s, &|s| s.n_heads = 4);
        assert_eq!(s.mla, Some(own));
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
