//! [`Axis`], the axes of a tensor, with the names the tutorials and the trace JSON use.

/// An axis of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Sentences in the batch.
    B,
    /// Heads.
    H,
    /// Tokens, in self-attention (queries and keys are the same tokens).
    T,
    /// Query tokens, in cross-attention.
    TQ,
    /// Key/value tokens, in cross-attention.
    TK,
    /// Features of a token vector.
    DModel,
    /// Features of one head, `d_model / h` (or a head size of its own).
    DK,
    /// Key/value heads in grouped-query attention, `h_kv`.
    HKv,
    /// The width of the keys and values in grouped-query attention, `h_kv·d_k`.
    KvWidth,
    /// The width of the queries and of the heads side by side when the heads have a size
    /// of their own, `h·d_k` (not `d_model`).
    QWidth,
    /// A broadcast axis of size 1 (`mask.unsqueeze(1)`, `pe[:, :T]`).
    One,
    /// Grouped-query attention: the query heads that share one key/value head, `h / h_kv`
    /// (the axis `repeat_kv` expands before it merges it into `h`).
    Group,
    /// MLA: the query's latent, `q_lora_rank`.
    QRank,
    /// MLA: the keys' and values' latent `c_KV`, `kv_lora_rank`.
    KvRank,
    /// MLA: `kv_a_proj_with_mqa`'s output, the latent and the shared RoPE key side by side.
    KvAWidth,
    /// MLA: `kv_b_proj`'s output, every head's unrotated key and value side by side.
    KvBWidth,
    /// MLA: one head's part of `kv_b_proj`'s output, its unrotated key and its value.
    NopeV,
    /// MLA: a head's unrotated query/key part, `qk_nope_head_dim`.
    DNope,
    /// MLA: a head's rotated query/key part, `qk_rope_head_dim`.
    DRope,
    /// MLA: a value head, `v_head_dim`.
    DV,
    /// MLA: the value heads side by side, `h·d_v`.
    VWidth,
}

impl Axis {
    /// Every axis.
    pub const ALL: [Axis; 21] = [
        Self::B,
        Self::H,
        Self::T,
        Self::TQ,
        Self::TK,
        Self::DModel,
        Self::DK,
        Self::HKv,
        Self::KvWidth,
        Self::QWidth,
        Self::One,
        Self::Group,
        Self::QRank,
        Self::KvRank,
        Self::KvAWidth,
        Self::KvBWidth,
        Self::NopeV,
        Self::DNope,
        Self::DRope,
        Self::DV,
        Self::VWidth,
    ];

    /// The name the tutorials and the trace JSON use: `B`, `h`, `T`, `T_q`, `T_k`,
    /// `d_model`, `d_k`, `h_kv`, `h_kv·d_k`, `h·d_k`, `1`, `h/h_kv`, and MLA's `r_q`, `r_kv`,
    /// `r_kv+d_rope`, `h·(d_nope+d_v)`, `d_nope+d_v`, `d_nope`, `d_rope`, `d_v`, `h·d_v`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::B => "B",
            Self::H => "h",
            Self::T => "T",
            Self::TQ => "T_q",
            Self::TK => "T_k",
            Self::DModel => "d_model",
            Self::DK => "d_k",
            Self::HKv => "h_kv",
            Self::KvWidth => "h_kv·d_k",
            Self::QWidth => "h·d_k",
            Self::One => "1",
            Self::Group => "h/h_kv",
            Self::QRank => "r_q",
            Self::KvRank => "r_kv",
            Self::KvAWidth => "r_kv+d_rope",
            Self::KvBWidth => "h·(d_nope+d_v)",
            Self::NopeV => "d_nope+d_v",
            Self::DNope => "d_nope",
            Self::DRope => "d_rope",
            Self::DV => "d_v",
            Self::VWidth => "h·d_v",
        }
    }

    /// The axis with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

written_by_name!(Axis, "axis");
