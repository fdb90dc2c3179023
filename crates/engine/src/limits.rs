//! The documented size limits. They keep one run under about 200 MB and a second even in
//! the browser; the page truncates input to them with a notice.

/// Most sentences in one batch (B).
pub const MAX_BATCH: usize = 16;
/// Most tokens in one sentence (T).
pub const MAX_TOKENS: usize = 512;
/// Widest token vector (d_model).
pub const MAX_D_MODEL: usize = 1024;
/// Most heads (h).
pub const MAX_HEADS: usize = 64;
/// Most attention cells, B·h·T², in one `(B, h, T, T)` tensor (2²²: e.g. B=1, h=16,
/// T=512, or B=4, h=8, T=256).
pub const MAX_ATTENTION_CELLS: usize = 1 << 22;
/// Largest magnitude of an input number (embedding, weight or bias). With |x|, |W| ≤
/// 1e30 and d_model ≤ 1024, no product or sum in the pipeline can exceed ~1e130, so
/// nothing overflows to infinity and the only possible NaN is a fully masked `-inf`
/// row.
pub const MAX_ABS_INPUT: f64 = 1e30;
