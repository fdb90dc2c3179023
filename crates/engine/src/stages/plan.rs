//! What a run is, once its input is checked: [`Plan::of`] makes every check that needs
//! no numbers (sizes, limits, heads, RoPE, window, sentences) and tokenizes.

use crate::attention;
use crate::error::{check_number, number_text, EngineError, Field};
use crate::limits;
use crate::scenario::{Fill, Positional, RopeScaling, Scenario};
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
}

impl<'a> Plan<'a> {
    /// Checks the scenario's sizes and options and tokenizes its sentences.
    ///
    /// # Errors
    /// Every [`EngineError`] that can be told before any numbers are computed: sizes,
    /// heads that do not divide, an odd `d_k` under RoPE, a window of 0, empty or too
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
            if !d_k.is_multiple_of(2) {
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
            for (which, w) in [("q_weight", &norm.q_weight), ("k_weight", &norm.k_weight)] {
                if !w.is_empty() && w.len() != d_k {
                    return Err(EngineError::QkNormWeight { which, len: w.len(), d_k });
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
        if scenario.mask.window == Some(0) {
            return Err(EngineError::ZeroSize { what: "window", field: Field::Window });
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
        Ok(Self { scenario, batch, kv_batch, b, t_q, t_k, d_model, n_heads, n_kv_heads, d_k })
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
        Layout { cross: self.cross(), grouped: self.grouped(), wide: self.q_width() != self.d_model }
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
            scale: self.scenario.scale,
            softcap: self.scenario.softcap,
            qk_norm_eps: self.scenario.qk_norm.as_ref().map(|n| n.eps),
            rotary_dims: self.scenario.rope.map(|r| r.rotary_dims(self.d_k)).filter(|&r| r < self.d_k),
            rope_scaling: self.scenario.rope.and_then(|r| r.scaling),
            sinks: self.scenario.sinks.is_some(),
            d_model: self.d_model,
            n_heads: self.n_heads,
            d_k: self.d_k,
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
    if d_model > limits::MAX_D_MODEL {
        return Err(EngineError::TooLarge {
            what: "d_model".into(),
            value: d_model,
            max: limits::MAX_D_MODEL,
            field: Field::DModel,
        });
    }
    if n_heads > limits::MAX_HEADS {
        return Err(EngineError::TooLarge {
            what: "h (n_heads)".into(),
            value: n_heads,
            max: limits::MAX_HEADS,
            field: Field::NHeads,
        });
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
