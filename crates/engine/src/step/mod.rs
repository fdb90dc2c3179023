//! The names of the steps and of the axes, as types.
//!
//! Every step of the trace is a [`StepName`]; every axis of a tensor is an [`Axis`]. What a
//! step's axes are is decided in one place, [`StepName::axes`], from the step and whether
//! the run is self- or cross-attention. The page asks a step what its rows and columns are
//! ([`StepName::rows`], [`StepName::cols`]) instead of matching strings.
//!
//! The JSON spellings (`"x_kv"`, `"q_heads"`, `"T_k"`, `"d_model"`, …) are the ones the
//! trace has always used; [`StepName::as_str`] and [`Axis::as_str`] give them.
//!
//! [`Axis`] is in `axis.rs`; what a step says, its PyTorch line and its words
//! ([`StepName::pytorch`], [`StepName::words`]), in `text.rs`.

/// `Display`, `Serialize` and `Deserialize` for a typed name, written as its string
/// (`as_str`) and read back by `from_name`; `$what` names it in the error for an unknown one.
macro_rules! written_by_name {
    ($t:ty, $what:literal) => {
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $t {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $t {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = <String as ::serde::Deserialize>::deserialize(d)?;
                Self::from_name(&name).ok_or_else(|| {
                    ::serde::de::Error::custom(format!(concat!("unknown ", $what, " \"{}\""), name))
                })
            }
        }
    };
}

mod axis;
mod mla_text;
mod text;

/// The pattern that matches multi-head latent attention's own steps, the ones only an MLA
/// run records: one list for every `match` that treats them apart (their words, their
/// PyTorch lines, the explanations and the export that refuse them). Exported for the
/// Python export's crate (`attention-export`), which writes them apart too.
#[macro_export]
macro_rules! mla_steps {
    () => {
        $crate::step::StepName::QA
            | $crate::step::StepName::QANorm
            | $crate::step::StepName::KvA
            | $crate::step::StepName::CKv
            | $crate::step::StepName::KPe
            | $crate::step::StepName::KvB
            | $crate::step::StepName::KNope
            | $crate::step::StepName::QCat
            | $crate::step::StepName::KCat
    };
}
pub use crate::mla_steps;

pub use axis::Axis;
pub use text::scaling_words;
pub use text::StepText;

use std::str::FromStr;

/// MLA's sizes and numbers, as the words and lines need them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MlaText {
    /// `q_lora_rank`, with query compression.
    pub q_lora_rank: Option<usize>,
    /// `kv_lora_rank`.
    pub kv_lora_rank: usize,
    /// `qk_nope_head_dim`.
    pub d_nope: usize,
    /// `qk_rope_head_dim`.
    pub d_rope: usize,
    /// `v_head_dim`.
    pub d_v: usize,
    /// YaRN's `m` when `mscale_all_dim` multiplies the scale by `m²`.
    pub mscale: Option<f64>,
    /// DeepSeek-V2's layout: the interleaved pairs turned in place, not gathered first.
    pub rope_in_place: bool,
    /// The two RMSNorms' ε.
    pub eps: f64,
}

/// One step of the pipeline, in the order the engine computes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StepName {
    /// The token embeddings, `(B, T_q, d_model)`.
    X,
    /// The sinusoidal positional encoding itself, `(1, T_q, d_model)` (with positions only).
    Pe,
    /// `x + PE` (with positions only).
    XPe,
    /// Cross-attention: the embeddings of the key/value sentences, `(B, T_k, d_model)`.
    XKv,
    /// Cross-attention with positions: `x_kv + PE`, positions counted within the key/value
    /// sentences.
    XKvPe,
    /// With more than one layer: the residual stream entering the layer shown, `resid[l]`,
    /// `(B, T, d_model)`: the embeddings (plus the positions) for the first layer, the
    /// layer before's `resid_out` for the others. The layer's projections read it.
    ResidIn,
    /// MLA with query compression: `x @ W_DQ` (`q_a_proj`), `(B, T_q, r_q)`.
    QA,
    /// MLA: the query's latent after its RMSNorm (`q_a_layernorm`), `(B, T_q, r_q)`.
    QANorm,
    /// Queries, `x @ W_Q + b_Q` (MLA: `q_proj`, or `q_b_proj` of the normalised latent).
    Q,
    /// Keys, `x @ W_K + b_K` (from `x_kv` in cross-attention).
    K,
    /// Values, `x @ W_V + b_V` (from `x_kv` in cross-attention).
    V,
    /// MLA: `kv_a_proj_with_mqa`, the latent and the shared RoPE key, `(B, T_k, r_kv + d_rope)`.
    KvA,
    /// MLA: the latent `c_KV` after its RMSNorm, `(B, T_k, r_kv)`: what a decoder caches.
    CKv,
    /// MLA: the one RoPE key every head shares, before it turns, `(B, 1, T_k, d_rope)`.
    KPe,
    /// MLA: `kv_b_proj` of the latent, every head's unrotated key and value,
    /// `(B, T_k, h·(d_nope + d_v))`.
    KvB,
    /// Queries split into heads, `(B, h, T_q, d_k)`.
    QHeads,
    /// Keys split into heads, `(B, h, T_k, d_k)`.
    KHeads,
    /// MLA: each head's unrotated key part, `(B, h, T_k, d_nope)`.
    KNope,
    /// Values split into heads, `(B, h, T_k, d_k)` (`(B, h_kv, T_k, d_k)` when grouped).
    VHeads,
    /// QK-norm: each query head RMS-normalised and weighted, `(B, h, T_q, d_k)`.
    QNorm,
    /// QK-norm: each key head RMS-normalised and weighted, `(B, h_kv, T_k, d_k)`.
    KNorm,
    /// RoPE: the query heads rotated at their positions, `(B, h, T_q, d_k)`.
    QRot,
    /// RoPE: the key heads rotated at their positions, `(B, h_kv, T_k, d_k)`.
    KRot,
    /// MLA: each query head's unrotated part and its turned part side by side again,
    /// `(B, h, T_q, d_k)` (with RoPE only).
    QCat,
    /// MLA: each head's key, its own unrotated part and the shared RoPE key,
    /// `(B, h, T_k, d_k)`.
    KCat,
    /// Grouped-query attention: each key head repeated for its group of query heads,
    /// `(B, h, T_k, d_k)`.
    KRep,
    /// Grouped-query attention: each value head repeated for its group, `(B, h, T_k, d_k)`.
    VRep,
    /// `Q Kᵀ`, `(B, h, T_q, T_k)`.
    Scores,
    /// `Q Kᵀ / √d_k` (or `Q Kᵀ · scale`).
    Scaled,
    /// Logit softcapping: `c·tanh(scaled / c)` (with a softcap only).
    Capped,
    /// ALiBi's bias `m_h·(j − i)`, `(1, h, T_q, T_k)`, the same for every sentence.
    Alibi,
    /// `Q Kᵀ / √d_k + m_h·(j − i)`: the scaled scores with ALiBi's bias added.
    Biased,
    /// Blocked scores replaced by the fill.
    Masked,
    /// Softmax over the keys.
    Weights,
    /// `weights @ V`, `(B, h, T_q, d_k)`.
    Context,
    /// The heads side by side again, `(B, T_q, d_model)`.
    Concat,
    /// `concat @ W_O + b_O`.
    Output,
    /// With more than one layer: the residual stream after the layer shown,
    /// `resid[l+1] = resid[l] + output`, what the next layer reads.
    ResidOut,
}

/// What a step's axes depend on besides its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layout {
    /// Cross-attention: the query and key token axes are `T_q` and `T_k`.
    pub cross: bool,
    /// Grouped-query attention (`h_kv < h`): the key/value heads before the repeat are
    /// `h_kv`.
    pub grouped: bool,
    /// A head size of its own with `h·d_k ≠ d_model`: the queries and the heads side by
    /// side are `h·d_k` wide (and so are the keys and values when not grouped).
    pub wide: bool,
    /// Multi-head latent attention: the latent's steps, values `d_v` wide, the RoPE parts
    /// `d_rope` wide.
    pub mla: bool,
}

/// What the rows or columns of a step's matrix stand for, so the page can label them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The query tokens (in self-attention, the tokens).
    Queries,
    /// The key/value tokens (in self-attention, the same tokens again).
    Keys,
    /// The `d_model` features of a token vector.
    Features,
    /// The `d_k` features of one head.
    HeadFeatures,
}

impl StepName {
    /// Every step, in the order the engine computes them. A trace holds a subsequence:
    /// `pe`, `x_pe` and `x_kv_pe` only with positions, `x_kv` and `x_kv_pe` only in
    /// cross-attention, `q_rot` and `k_rot` only with RoPE, `k_rep` and `v_rep` only with
    /// fewer key/value heads than query heads, `capped` only with a softcap, `alibi` and
    /// `biased` only with ALiBi, `q_norm` and `k_norm` only with QK-norm; with MLA,
    /// `q_a`, `q_a_norm` (with query compression), `kv_a`, `c_kv`, `k_pe`, `kv_b`,
    /// `k_nope`, `q_cat` (with RoPE) and `k_cat` in place of `k`, `v` and `k_heads`;
    /// `resid_in` and `resid_out` only with more than one layer.
    pub const ALL: [StepName; 38] = [
        Self::X,
        Self::Pe,
        Self::XPe,
        Self::XKv,
        Self::XKvPe,
        Self::ResidIn,
        Self::QA,
        Self::QANorm,
        Self::Q,
        Self::K,
        Self::V,
        Self::KvA,
        Self::CKv,
        Self::KPe,
        Self::KvB,
        Self::QHeads,
        Self::KHeads,
        Self::KNope,
        Self::VHeads,
        Self::QNorm,
        Self::KNorm,
        Self::QRot,
        Self::KRot,
        Self::QCat,
        Self::KCat,
        Self::KRep,
        Self::VRep,
        Self::Scores,
        Self::Scaled,
        Self::Capped,
        Self::Alibi,
        Self::Biased,
        Self::Masked,
        Self::Weights,
        Self::Context,
        Self::Concat,
        Self::Output,
        Self::ResidOut,
    ];

    /// The JSON and URL name, e.g. `"q_heads"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::X => "x",
            Self::Pe => "pe",
            Self::XPe => "x_pe",
            Self::XKv => "x_kv",
            Self::XKvPe => "x_kv_pe",
            Self::QA => "q_a",
            Self::QANorm => "q_a_norm",
            Self::Q => "q",
            Self::K => "k",
            Self::V => "v",
            Self::KvA => "kv_a",
            Self::CKv => "c_kv",
            Self::KPe => "k_pe",
            Self::KvB => "kv_b",
            Self::QHeads => "q_heads",
            Self::KHeads => "k_heads",
            Self::KNope => "k_nope",
            Self::VHeads => "v_heads",
            Self::QNorm => "q_norm",
            Self::KNorm => "k_norm",
            Self::QRot => "q_rot",
            Self::KRot => "k_rot",
            Self::QCat => "q_cat",
            Self::KCat => "k_cat",
            Self::KRep => "k_rep",
            Self::VRep => "v_rep",
            Self::Scores => "scores",
            Self::Scaled => "scaled",
            Self::Capped => "capped",
            Self::Alibi => "alibi",
            Self::Biased => "biased",
            Self::Masked => "masked",
            Self::Weights => "weights",
            Self::Context => "context",
            Self::Concat => "concat",
            Self::Output => "output",
            Self::ResidIn => "resid_in",
            Self::ResidOut => "resid_out",
        }
    }

    /// The step with this JSON name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The step's axes in self- or cross-attention (`cross`) with as many key/value heads
    /// as query heads: [`StepName::axes_in`] with that layout.
    pub fn axes(self, cross: bool) -> [Axis; 4] {
        self.axes_in(Layout { cross, grouped: false, wide: false, mla: false })
    }

    /// The step's axes: in cross-attention the query and key token axes are `T_q` and
    /// `T_k` (in self-attention both are `T`); with grouped heads the key/value heads
    /// before the repeat are `h_kv`, and the projections `k` and `v` are `h_kv·d_k` wide;
    /// with a head size of its own the queries and the concatenated heads are `h·d_k` wide.
    pub fn axes_in(self, layout: Layout) -> [Axis; 4] {
        use Axis::*;
        let (tq, tk) = if layout.cross { (TQ, TK) } else { (T, T) };
        let q_width = if layout.wide { QWidth } else { DModel };
        let (kv, kv_width) = if layout.grouped { (HKv, KvWidth) } else { (H, q_width) };
        // The fourth entry of a 3-axis step is `One` and is cut off by `dims`.
        match self {
            // MLA: the latents, the RoPE parts d_rope wide and the values d_v wide
            Self::QA | Self::QANorm => [B, tq, QRank, One],
            Self::KvA => [B, tk, KvAWidth, One],
            Self::CKv => [B, tk, KvRank, One],
            Self::KvB => [B, tk, KvBWidth, One],
            Self::KPe => [B, One, tk, DRope],
            Self::KNope => [B, H, tk, DNope],
            Self::QCat => [B, H, tq, DK],
            Self::KCat => [B, H, tk, DK],
            Self::QRot if layout.mla => [B, H, tq, DRope],
            Self::KRot if layout.mla => [B, One, tk, DRope],
            Self::VHeads if layout.mla => [B, H, tk, DV],
            Self::Context if layout.mla => [B, H, tq, DV],
            Self::Concat if layout.mla => [B, tq, VWidth, One],
            Self::X | Self::XPe | Self::Output | Self::ResidIn | Self::ResidOut => [B, tq, DModel, One],
            Self::Q | Self::Concat => [B, tq, q_width, One],
            Self::Pe => [One, tq, DModel, One],
            Self::XKv | Self::XKvPe => [B, tk, DModel, One],
            Self::K | Self::V => [B, tk, kv_width, One],
            Self::QHeads | Self::QNorm | Self::QRot | Self::Context => [B, H, tq, DK],
            Self::KHeads | Self::VHeads | Self::KNorm | Self::KRot => [B, kv, tk, DK],
            Self::KRep | Self::VRep => [B, H, tk, DK],
            Self::Scores | Self::Scaled | Self::Capped | Self::Biased | Self::Masked | Self::Weights => {
                [B, H, tq, tk]
            }
            Self::Alibi => [One, H, tq, tk],
        }
    }

    /// The step's axes as a vector of its rank, in a run of this layout.
    pub fn dims_in(self, layout: Layout) -> Vec<Axis> {
        self.axes_in(layout).into_iter().take(self.rank()).collect()
    }

    /// The number of axes: 3 for token vectors, 4 once split into heads.
    pub const fn rank(self) -> usize {
        if self.has_heads() {
            4
        } else {
            3
        }
    }

    /// The step's axes as a vector of its rank, e.g. `[B, H, TQ, TK]`.
    pub fn dims(self, cross: bool) -> Vec<Axis> {
        self.axes(cross).into_iter().take(self.rank()).collect()
    }

    /// True for steps with a head axis, `(B, h, ·, ·)`.
    pub const fn has_heads(self) -> bool {
        matches!(
            self,
            Self::QHeads
                | Self::KHeads
                | Self::KPe
                | Self::KNope
                | Self::QCat
                | Self::KCat
                | Self::VHeads
                | Self::QNorm
                | Self::KNorm
                | Self::QRot
                | Self::KRot
                | Self::KRep
                | Self::VRep
                | Self::Scores
                | Self::Scaled
                | Self::Capped
                | Self::Alibi
                | Self::Biased
                | Self::Masked
                | Self::Weights
                | Self::Context
        )
    }

    /// What the rows of the matrix shown for one sentence (and head) stand for.
    pub const fn rows(self) -> Role {
        match self {
            Self::XKv
            | Self::XKvPe
            | Self::K
            | Self::V
            | Self::KvA
            | Self::CKv
            | Self::KPe
            | Self::KvB
            | Self::KNope
            | Self::KCat
            | Self::KHeads
            | Self::VHeads
            | Self::KNorm
            | Self::KRot
            | Self::KRep
            | Self::VRep => Role::Keys,
            _ => Role::Queries,
        }
    }

    /// What the columns of that matrix stand for.
    pub const fn cols(self) -> Role {
        match self {
            Self::Scores
            | Self::Scaled
            | Self::Capped
            | Self::Alibi
            | Self::Biased
            | Self::Masked
            | Self::Weights => Role::Keys,
            // Every other per-head step holds head features (d_k wide).
            s if s.has_heads() => Role::HeadFeatures,
            _ => Role::Features,
        }
    }

    /// True for the steps that only exist with a positional encoding.
    pub const fn is_positional(self) -> bool {
        matches!(self, Self::Pe | Self::XPe | Self::XKvPe)
    }

    /// True for the steps that only exist in cross-attention.
    pub const fn is_cross_only(self) -> bool {
        matches!(self, Self::XKv | Self::XKvPe)
    }

    /// True for the steps that only exist with RoPE.
    pub const fn is_rope_only(self) -> bool {
        matches!(self, Self::QRot | Self::KRot)
    }

    /// True for the steps that only exist with fewer key/value heads than query heads.
    pub const fn is_grouped_only(self) -> bool {
        matches!(self, Self::KRep | Self::VRep)
    }

    /// True for the steps that only exist with ALiBi.
    pub const fn is_alibi_only(self) -> bool {
        matches!(self, Self::Alibi | Self::Biased)
    }

    /// True for the steps that only exist with QK-norm.
    pub const fn is_qk_norm_only(self) -> bool {
        matches!(self, Self::QNorm | Self::KNorm)
    }

    /// True for the steps that only exist with multi-head latent attention.
    pub const fn is_mla_only(self) -> bool {
        matches!(self, mla_steps!())
    }

    /// True for the steps that only exist with more than one layer.
    pub const fn is_layered_only(self) -> bool {
        matches!(self, Self::ResidIn | Self::ResidOut)
    }

    /// True for the steps that only exist with a softcap.
    pub const fn is_softcap_only(self) -> bool {
        matches!(self, Self::Capped)
    }
}

impl FromStr for StepName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s).ok_or_else(|| format!("\"{s}\" is not a step name"))
    }
}

written_by_name!(StepName, "step");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for s in StepName::ALL {
            assert_eq!(StepName::from_name(s.as_str()), Some(s));
            assert_eq!(s.as_str().parse::<StepName>(), Ok(s));
        }
        let mut names: Vec<_> = StepName::ALL.iter().map(|s| s.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), StepName::ALL.len());
        for a in Axis::ALL {
            assert_eq!(Axis::from_name(a.as_str()), Some(a));
        }
        assert!("<script>".parse::<StepName>().is_err());
    }

    #[test]
    fn key_side_steps_have_key_rows_in_cross_attention() {
        for s in [StepName::XKv, StepName::XKvPe, StepName::K, StepName::V] {
            assert_eq!(s.dims(true), vec![Axis::B, Axis::TK, Axis::DModel], "{s}");
            assert_eq!(s.rows(), Role::Keys);
        }
        for s in [StepName::KHeads, StepName::VHeads] {
            assert_eq!(s.dims(true), vec![Axis::B, Axis::H, Axis::TK, Axis::DK], "{s}");
            assert_eq!(s.rows(), Role::Keys);
        }
        assert_eq!(StepName::Scores.dims(true), vec![Axis::B, Axis::H, Axis::TQ, Axis::TK]);
        assert_eq!(StepName::Scores.cols(), Role::Keys);
        assert_eq!(StepName::Q.dims(false), vec![Axis::B, Axis::T, Axis::DModel]);
        assert_eq!(StepName::K.dims(false), vec![Axis::B, Axis::T, Axis::DModel]);
    }
}
