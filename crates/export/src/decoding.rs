//! How a model runs it, in NumPy: decoding with a KV cache (`export_py/decode.py`) and the
//! online softmax tile by tile (`export_py/tiled.py`).

use super::Section;
use attention_engine::step::StepName;
use attention_engine::trace::Trace;

/// The page's decode view in NumPy: one query at a time against a cache of keys and
/// values (a rolling buffer under a window; a fixed cache of the key/value sentences in
/// cross-attention), RoPE at the absolute position, ALiBi and the mask at the cached
/// positions. Self-attention without a causal mask is not decoded (a model that generates
/// cannot see tokens it has not written), as on the page.
pub(super) fn decode_section(x_in: &str, kv_in: &str) -> Section {
    let code = include_str!("../export_py/decode.py").replace("KV_IN", kv_in).replace("X_IN", x_in);
    Section::new(
        "Decoding with a KV cache",
        vec![
            "How a model that generates text runs the same attention: at each position t one new query, key and \
             value (RoPE at position t), the key and value appended to a cache (a rolling buffer of `window` rows \
             under a sliding window), and the one query scored against the cache. Every row equals row t of the \
             output above, except a fully blocked row under -1e9 (uniform over the cached keys, not over all T_k)."
                .into(),
        ],
        code,
    )
}

/// The page's tiles view in NumPy: the context computed block by block with an online
/// softmax (a running maximum, sum and output per query row, rescaled by e^(m − m′)).
pub(super) fn tiled_section(trace: &Trace) -> Section {
    // the heads as the scores read them: after QK-norm and RoPE, repeated when grouped; under
    // multi-head latent attention each head's query and key put together again, and values
    // d_v wide
    let first = |order: &[StepName]| {
        order.iter().copied().find(|&s| trace.step(s).is_some()).map_or("", StepName::as_str)
    };
    let (q_final, k_final, v_final, v_width) = if trace.mla.is_some() {
        (first(&[StepName::QCat, StepName::QHeads]), "k_cat", "v_heads", "d_v")
    } else {
        (
            first(&[StepName::QRot, StepName::QNorm, StepName::QHeads]),
            first(&[StepName::KRep, StepName::KRot, StepName::KNorm, StepName::KHeads]),
            first(&[StepName::VRep, StepName::VHeads]),
            "d_k",
        )
    };
    let code = include_str!("../export_py/tiled.py")
        .replace("Q_FINAL", q_final)
        .replace("K_FINAL", k_final)
        .replace("V_FINAL", v_final)
        .replace("V_WIDTH", v_width);
    Section::new(
        "The online softmax, tile by tile",
        vec![
            "The context as FlashAttention computes it: for each block of queries, the blocks of keys one at a \
             time, keeping per row a running maximum m, sum ℓ and output O; when a tile raises the maximum, ℓ and \
             O are multiplied by e^(m − m′). At the end O / ℓ is softmax(S)·V, and no more than block × block \
             scores were held at once."
                .into(),
        ],
        code,
    )
}
