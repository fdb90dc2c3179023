//! What a run is, once its input is checked: [`Plan::of`] makes every check that needs
//! no numbers (sizes, limits, heads, RoPE, window, sentences) and tokenizes.

use crate::attention;
use crate::error::{check_number, number_text, EngineError, Field};
use crate::limits;
use crate::mla::Mla;
use crate::scenario::{Fill, Positional, ProjectionKind, Projections, RopeScaling, RopeStyle, Scenario};
use crate::step::{Axis as A, Layout, StepText};
use crate::tokenize::{self, Batch};

/// What a run is, once its input is checked: the tokens, the sizes and the options.
pub struct Plan<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) batch: Batch,
    pub(super) kv_batch: Option<Batch>,
    /// Sentences.
    pub(super) b: usize,
    /// Query tokens per sentence.
    pub(super) t_q: usize,
    /// Key/value tokens per sentence (`t_q` in self-attention).
    pub(super) t_k: usize,
    pub(super) d_model: usize,
    pub(super) n_heads: usize,
    pub(super) n_kv_heads: usize,
    pub(super) d_k: usize,
    /// The number of attention layers, 1 to [`Scenario::MAX_LAYERS`].
    pub(super) n_layers: usize,
    /// The layer whose steps the trace records, counted from 0.
    pub(super) shown: usize,
}

impl<'a> Plan<'a> {
    /// Checks the scenario's sizes and options and tokenizes its sentences.
    ///
    /// # Errors
    /// Every [`EngineError`] that can be told before any numbers are computed: sizes,
    /// heads that do not divide, an odd `d_k` under RoPE, a window of 0 (or kept first keys of 0 or without a window), empty or too
    /// many sentences.
    pub fn of(scenario: &'a Scenario) -> Result<Self, EngineError> {
        let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);
        let d_k = check_sizes(scenario)?;
        let n_kv_heads = scenario.kv_heads();
        if n_kv_heads == 0 {
            return Err(EngineError::ZeroSize { what: "n_kv_heads", field: Field::NKvHeads });
        }
        if !n_heads.is_multiple_of(n_kv_heads) {
            return Err(EngineError::KvHeadsDoNotDivide { n_heads, n_kv_heads });
        }
        if let Some(rope) = scenario.rope {
            // MLA turns its d_rope numbers only, checked with its sizes
            if !d_k.is_multiple_of(2) && scenario.mla.is_none() {
                return Err(EngineError::RopeOddWidth { d_k });
            }
            if !(rope.base.is_finite() && rope.base > 0.0 && rope.base <= limits::MAX_ABS_INPUT) {
                return Err(EngineError::RopeBase { base: number_text(rope.base) });
            }
            if let Some(f) = rope.fraction {
                let dims = rope.rotary_dims(d_k);
                if !(f > 0.0 && f <= 1.0) || dims < 2 || !dims.is_multiple_of(2) {
                    return Err(EngineError::RopeFraction { fraction: number_text(f), d_k, dims });
                }
            }
            if let Some(scaling) = rope.scaling {
                check_rope_scaling(scaling, rope.base)?;
            }
        }
        let options = [
            (scenario.scale, "scale", "1/√d_k when absent", Field::Scale),
            (scenario.softcap, "softcap", "Gemma 2 caps at 50", Field::Softcap),
        ];
        for (value, what, usual, field) in options {
            if let Some(v) = value.filter(|v| !(v.is_finite() && *v > 0.0 && *v <= limits::MAX_ABS_INPUT)) {
                return Err(EngineError::ScoreOption { what, value: number_text(v), usual, field });
            }
        }
        if let Some(norm) = &scenario.qk_norm {
            let kv_heads = scenario.n_kv_heads.unwrap_or(n_heads);
            for (which, w, heads) in
                [("q_weight", &norm.q_weight, n_heads), ("k_weight", &norm.k_weight, kv_heads)]
            {
                let want = norm.weight_len(heads, d_k);
                if !w.is_empty() && w.len() != want {
                    let whole = norm.whole_projection;
                    return Err(EngineError::QkNormWeight { which, len: w.len(), d_k: want, whole });
                }
                for (i, &v) in w.iter().enumerate() {
                    check_number(v, Field::QkNorm, || format!("qk_norm.{which}[{i}]"))?;
                }
            }
            let eps = norm.eps;
            if !(eps.is_finite() && eps > 0.0 && eps <= limits::MAX_ABS_INPUT) {
                let (what, usual, field) = ("QK-norm eps", "1e-6 is usual", Field::QkNorm);
                return Err(EngineError::ScoreOption { what, value: number_text(eps), usual, field });
            }
        }
        if let Some(sinks) = &scenario.sinks {
            if sinks.len() != n_heads {
                return Err(EngineError::SinksLength { len: sinks.len(), n_heads });
            }
            for (i, &v) in sinks.iter().enumerate() {
                check_number(v, Field::Sinks, || format!("sinks[{i}]"))?;
            }
        }
        let (n_layers, shown) = check_layers(scenario)?;
        if scenario.mask.window == Some(0) {
            return Err(EngineError::ZeroSize { what: "window", field: Field::Window });
        }
        match (scenario.mask.keep_first, scenario.mask.window) {
            (Some(0), _) => {
                return Err(EngineError::ZeroSize { what: "keep_first", field: Field::KeepFirst })
            }
            (Some(keep_first), None) => return Err(EngineError::KeepFirstWithoutWindow { keep_first }),
            _ => {}
        }

        // Tokens, padded to the longest sentence (and, for cross-attention, the key/value
        // sentences padded to theirs).
        let batch = tokenize::batch(&scenario.sentences)?;
        let kv_batch = match &scenario.kv_sentences {
            None => None,
            Some(kv) if kv.len() != scenario.sentences.len() => {
                return Err(EngineError::BatchMismatch { queries: scenario.sentences.len(), keys: kv.len() })
            }
            Some(kv) => Some(tokenize::batch(kv)?),
        };
        let (b, t_q) = (batch.b(), batch.t);
        let t_k = kv_batch.as_ref().map_or(t_q, |kv| kv.t);
        let cells = b * n_heads * t_q * t_k;
        if cells > limits::MAX_ATTENTION_CELLS {
            return Err(EngineError::TooLarge {
                what: format!("B·h·T_q·T_k (attention cells, B={b}, h={n_heads}, T_q={t_q}, T_k={t_k})"),
                value: cells,
                max: limits::MAX_ATTENTION_CELLS,
                field: Field::Sentences,
            });
        }
        Ok(Self {
            scenario,
            batch,
            kv_batch,
            b,
            t_q,
            t_k,
            d_model,
            n_heads,
            n_kv_heads,
            d_k,
            n_layers,
            shown,
        })
    }

    pub(super) fn cross(&self) -> bool {
        self.kv_batch.is_some()
    }

    pub(super) fn grouped(&self) -> bool {
        self.n_kv_heads != self.n_heads
    }

    pub(super) fn positions(&self) -> bool {
        self.scenario.positional == Positional::Sinusoidal
    }

    pub(super) fn fill(&self) -> Fill {
        self.scenario.mask.fill
    }

    pub(super) fn layout(&self) -> Layout {
        Layout {
            cross: self.cross(),
            grouped: self.grouped(),
            wide: self.q_width() != self.d_model,
            mla: self.scenario.mla.is_some(),
        }
    }

    /// The width of the queries and of the heads side by side, `h·d_k` (`d_model` unless
    /// the heads have a size of their own).
    pub(super) fn q_width(&self) -> usize {
        self.n_heads * self.d_k
    }

    /// What the steps' PyTorch lines and words depend on besides their names.
    pub(super) fn step_text(&self) -> StepText {
        StepText {
            layout: self.layout(),
            fill: self.fill(),
            rope: self.scenario.rope.map(|r| r.style),
            causal: self.scenario.mask.causal,
            scale: self.score_scale(),
            softcap: self.scenario.softcap,
            qk_norm_eps: self.scenario.qk_norm.as_ref().map(|n| n.eps),
            qk_norm_whole: self.scenario.qk_norm.as_ref().is_some_and(|n| n.whole_projection),
            rotary_dims: self.scenario.rope.map(|r| r.rotary_dims(self.d_k)).filter(|&r| r < self.d_k),
            rope_scaling: self.scenario.rope.and_then(|r| r.scaling),
            sinks: self.scenario.sinks.is_some(),
            d_model: self.d_model,
            n_heads: self.n_heads,
            d_k: self.d_k,
            mla: self.scenario.mla.as_ref().map(|m| crate::step::MlaText {
                q_lora_rank: m.q_lora_rank,
                kv_lora_rank: m.kv_lora_rank,
                d_nope: m.qk_nope_head_dim,
                d_rope: m.qk_rope_head_dim,
                d_v: m.v_head_dim,
                mscale: self.mla_mscale(),
                rope_in_place: m.rope_in_place,
                eps: m.eps,
            }),
            layer: self.shown + 1,
        }
    }

    /// YaRN's `m` when MLA's `mscale_all_dim` multiplies the scale by `m²`.
    pub(super) fn mla_mscale(&self) -> Option<f64> {
        let all_dim = self.scenario.mla.as_ref()?.mscale_all_dim?;
        let factor = self.scenario.rope?.scaling?.factor();
        Some(crate::mla::yarn_mscale(factor, all_dim))
    }

    /// The factor the scores are multiplied by in place of `1/√d_k`, if any: the
    /// scenario's scale, times MLA's `m²` with `mscale_all_dim`.
    pub(super) fn score_scale(&self) -> Option<f64> {
        match self.mla_mscale() {
            Some(m) => Some(self.scenario.scale.unwrap_or(1.0 / (self.d_k as f64).sqrt()) * m * m),
            None => self.scenario.scale,
        }
    }

    /// The query and key token axes: `T` twice in self-attention, `T_q` and `T_k` in
    /// cross-attention.
    pub(super) fn token_axes(&self) -> (A, A) {
        if self.cross() {
            (A::TQ, A::TK)
        } else {
            (A::T, A::T)
        }
    }

    pub(super) fn kv_lengths(&self) -> &[usize] {
        self.kv_batch.as_ref().map_or(&self.batch.lengths, |kv| &kv.lengths)
    }
}

/// Checks the sizes against the limits and returns `d_k`: `d_model / h`, or the head size
/// of its own.
fn check_sizes(scenario: &Scenario) -> Result<usize, EngineError> {
    let (d_model, n_heads) = (scenario.d_model, scenario.n_heads);
    if d_model == 0 {
        return Err(EngineError::ZeroSize { what: "d_model", field: Field::DModel });
    }
    if n_heads == 0 {
        return Err(EngineError::ZeroSize { what: "n_heads", field: Field::NHeads });
    }
    let sizes = [
        ("d_model", d_model, limits::MAX_D_MODEL, Field::DModel),
        ("h (n_heads)", n_heads, limits::MAX_HEADS, Field::NHeads),
    ];
    for (what, value, max, field) in sizes {
        if value > max {
            return Err(EngineError::TooLarge { what: what.into(), value, max, field });
        }
    }
    if let Some(mla) = &scenario.mla {
        return check_mla(scenario, mla);
    }
    match scenario.d_head {
        None => attention::head_width(d_model, n_heads),
        Some(0) => Err(EngineError::ZeroSize { what: "d_head", field: Field::DHead }),
        // d_head ≤ MAX_D_MODEL first, so that h·d_head cannot overflow
        Some(d_head) if d_head > limits::MAX_D_MODEL || n_heads * d_head > limits::MAX_D_MODEL => {
            Err(EngineError::TooLarge {
                what: format!("h·d_head (the width of the heads side by side, h = {n_heads})"),
                value: n_heads.saturating_mul(d_head),
                max: limits::MAX_D_MODEL,
                field: Field::DHead,
            })
        }
        Some(d_head) => Ok(d_head),
    }
}

/// Each number of RoPE's scaling finite and positive (a factor of 0 would divide by it), and
/// Llama 3's blend between two distinct wavelengths (`high_freq_factor − low_freq_factor`
/// is its denominator), and YaRN's ramp, which divides by `ln(base)`, with a base other than 1.
fn check_rope_scaling(scaling: RopeScaling, base: f64) -> Result<(), EngineError> {
    for (name, value) in scaling.fields() {
        if !(value.is_finite() && value > 0.0 && value <= limits::MAX_ABS_INPUT) {
            let rule = "it must be a finite number greater than 0 and at most 1e30";
            return Err(EngineError::RopeScaling { name, value: number_text(value), rule });
        }
    }
    if let RopeScaling::Llama3 { low_freq_factor, high_freq_factor, .. } = scaling {
        if high_freq_factor <= low_freq_factor {
            return Err(EngineError::RopeScaling {
                name: "high_freq_factor",
                value: number_text(high_freq_factor),
                rule: "it must be greater than low_freq_factor, whose wavelengths it blends towards (Llama 3.1: 4 and 1)",
            });
        }
    }
    if matches!(scaling, RopeScaling::Yarn { .. }) && base == 1.0 {
        return Err(EngineError::RopeScaling {
            name: "type",
            value: "\"yarn\"".to_owned(),
            rule: "YaRN's ramp divides by ln(base), so rope.base must not be 1",
        });
    }
    Ok(())
}

/// Checks multi-head latent attention's sizes and the options it cannot go with, and
/// returns its query/key head size `d_k = d_nope + d_rope`.
fn check_mla(scenario: &Scenario, mla: &Mla) -> Result<usize, EngineError> {
    let n_heads = scenario.n_heads;
    let sizes = [
        ("mla.kv_lora_rank", mla.kv_lora_rank),
        ("mla.qk_nope_head_dim", mla.qk_nope_head_dim),
        ("mla.qk_rope_head_dim", mla.qk_rope_head_dim),
        ("mla.v_head_dim", mla.v_head_dim),
        ("mla.q_lora_rank", mla.q_lora_rank.unwrap_or(1)),
    ];
    for (what, size) in sizes {
        if size == 0 {
            return Err(EngineError::ZeroSize { what, field: Field::Mla });
        }
        if size > limits::MAX_D_MODEL {
            let (value, max) = (size, limits::MAX_D_MODEL);
            return Err(EngineError::TooLarge { what: what.into(), value, max, field: Field::Mla });
        }
    }
    let widths = [
        ("h·(qk_nope_head_dim + qk_rope_head_dim) (the queries)", n_heads * mla.d_k()),
        (
            "h·(qk_nope_head_dim + v_head_dim) (kv_b_proj's output)",
            n_heads * (mla.qk_nope_head_dim + mla.v_head_dim),
        ),
        (
            "kv_lora_rank + qk_rope_head_dim (kv_a_proj_with_mqa's output)",
            mla.kv_lora_rank + mla.qk_rope_head_dim,
        ),
    ];
    for (what, value) in widths {
        if value > limits::MAX_D_MODEL {
            let max = limits::MAX_D_MODEL;
            return Err(EngineError::TooLarge { what: what.into(), value, max, field: Field::Mla });
        }
    }
    if scenario.kv_heads() != n_heads {
        return Err(EngineError::MlaKvHeads { n_heads, n_kv_heads: scenario.kv_heads() });
    }
    let conflicts: [(bool, &'static str, &'static str); 5] = [
        (
            scenario.d_head.is_some(),
            "d_head",
            "MLA's head sizes are its own (qk_nope_head_dim + qk_rope_head_dim, v_head_dim): remove d_head",
        ),
        (
            scenario.qk_norm.is_some(),
            "qk_norm",
            "DeepSeek's attention normalises the latents, not the heads: remove qk_norm",
        ),
        (
            scenario.rope.is_some_and(|r| r.fraction.is_some()),
            "rope.fraction",
            "MLA turns the last qk_rope_head_dim numbers of each head, not a fraction: remove rope.fraction",
        ),
        (
            matches!(scenario.projections, Projections::Named(ProjectionKind::Identity)),
            "projections",
            "identity projections cannot be MLA's rectangular ones: use \"seeded\" or mla.weights",
        ),
        (
            matches!(scenario.projections, Projections::Explicit(_)),
            "projections",
            "MLA has no W_K and W_V: give its weights as mla.weights, with projections \"seeded\"",
        ),
    ];
    if let Some((_, what, why)) = conflicts.into_iter().find(|c| c.0) {
        return Err(EngineError::Mla { what, why });
    }
    if mla.rope_in_place && scenario.rope.is_none_or(|r| r.style != RopeStyle::Interleaved) {
        let why =
            "it says how the interleaved style turns its pairs (in place, as DeepSeek-V2), so it needs \
                   rope with the \"interleaved\" style";
        return Err(EngineError::Mla { what: "rope_in_place", why });
    }
    if scenario.rope.is_some() && !mla.qk_rope_head_dim.is_multiple_of(2) {
        let why = "RoPE turns pairs of dimensions, so qk_rope_head_dim must be even";
        return Err(EngineError::Mla { what: "qk_rope_head_dim", why });
    }
    if !(mla.eps.is_finite() && mla.eps > 0.0 && mla.eps <= limits::MAX_ABS_INPUT) {
        let (what, usual, field) = ("MLA RMSNorm eps", "1e-6 is usual", Field::Mla);
        return Err(EngineError::ScoreOption { what, value: number_text(mla.eps), usual, field });
    }
    if let Some(m) = mla.mscale_all_dim {
        if !(m.is_finite() && m > 0.0 && m <= limits::MAX_ABS_INPUT) {
            let (what, usual, field) = ("MLA mscale_all_dim", "DeepSeek-V3 uses 1", Field::Mla);
            return Err(EngineError::ScoreOption { what, value: number_text(m), usual, field });
        }
        if scenario.rope.and_then(|r| r.scaling).is_none() {
            let why = "it multiplies the scale by YaRN's m² for the RoPE scaling's factor, so it needs rope.scaling";
            return Err(EngineError::Mla { what: "mscale_all_dim", why });
        }
    }
    Ok(mla.d_k())
}

/// The number of layers and the layer to show (counted from 0), checked: 1 to
/// [`Scenario::MAX_LAYERS`] layers, no cross-attention with more than one, and a shown
/// layer the run has (the last when absent).
fn check_layers(scenario: &Scenario) -> Result<(usize, usize), EngineError> {
    let n_layers = scenario.layers();
    if n_layers == 0 {
        return Err(EngineError::ZeroSize { what: "n_layers", field: Field::NLayers });
    }
    if n_layers > Scenario::MAX_LAYERS {
        let why = format!("the explorer runs 1 to {} attention layers", Scenario::MAX_LAYERS);
        return Err(EngineError::Layers { n_layers, why });
    }
    if n_layers > 1 && scenario.kv_sentences.is_some() {
        let why = "cross-attention runs one layer only: a decoder's stack of self- and cross-attention \
                   layers is not modelled here; set n_layers to 1 or remove kv_sentences"
            .to_owned();
        return Err(EngineError::Layers { n_layers, why });
    }
    let layer = scenario.layer.unwrap_or(n_layers);
    if layer == 0 || layer > n_layers {
        return Err(EngineError::NoSuchLayer { layer, n_layers });
    }
    Ok((n_layers, layer - 1))
}
