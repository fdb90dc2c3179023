//! The NumPy pipeline: each distinct token's vector (the embedding table), and the code
//! of each step.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::values::{py_array, py_number, py_str};
use super::Section;
use attention_engine::embedding::Source;
use attention_engine::step::StepName;
use attention_engine::trace::{Step, Trace};

/// Each distinct token's vector, or (if one text had two vectors, which the engine never
/// does) `x` itself.
pub(super) fn embedding_section(trace: &Trace) -> (Section, bool) {
    let x = trace.step(StepName::X);
    let x_kv = trace.step(StepName::XKv);
    let d = trace.sizes.d_model;
    // text -> (vector, source), in order of first appearance.
    let mut order: Vec<String> = Vec::new();
    let mut table: BTreeMap<String, (Vec<f64>, Option<Source>)> = BTreeMap::new();
    let mut consistent = true;
    let mut add = |tokens: &[Vec<String>], step: Option<&Step>, sources: Option<&Vec<Vec<Source>>>| {
        let Some(step) = step else { return };
        let flat: Vec<f64> = step.data.iter().copied().collect();
        for (b, row) in tokens.iter().enumerate() {
            for (i, token) in row.iter().enumerate() {
                let start = (b * row.len() + i) * d;
                let Some(vector) = flat.get(start..start + d) else {
                    consistent = false;
                    continue;
                };
                let source = sources.and_then(|s| s.get(b)).and_then(|r| r.get(i)).copied();
                match table.get(token) {
                    Some((seen, _)) => {
                        if seen.iter().zip(vector).any(|(a, b)| a.to_bits() != b.to_bits()) {
                            consistent = false;
                        }
                    }
                    None => {
                        order.push(token.clone());
                        table.insert(token.clone(), (vector.to_vec(), source));
                    }
                }
            }
        }
    };
    add(&trace.tokens, x, Some(&trace.sources));
    if let Some(kv) = &trace.kv_tokens {
        add(kv, x_kv, None);
    }
    let prose =
        vec!["Each distinct token's vector, as the page used it (the comment says where it came from: the \
         scenario's `explicit` embeddings, the named `lexicon`, `hashed` from the word, or the zero `pad`)."
            .into()];
    let mut code = String::new();
    if consistent {
        code.push_str("embedding = {\n");
        for token in &order {
            if let Some((vector, source)) = table.get(token) {
                let parts: Vec<String> = vector.iter().map(|&v| py_number(v)).collect();
                let comment = match source {
                    Some(s) => format!(
                        "  # {}",
                        serde_json::to_value(s)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default()
                    ),
                    None => String::new(),
                };
                let _ = writeln!(code, "    {}: [{}],{comment}", py_str(token), parts.join(", "));
            }
        }
        code.push_str("}\n");
    } else {
        // Never happens with the engine's embeddings; kept so the file stays correct.
        code.push_str("# The same token text has different vectors here, so x is written out whole.\n");
        if let Some(x) = x {
            let flat: Vec<f64> = x.data.iter().copied().collect();
            let _ = writeln!(code, "X_GIVEN = {}", py_array(&flat, d, "B, T, d_model", 0));
        }
        if let Some(x_kv) = x_kv {
            let flat: Vec<f64> = x_kv.data.iter().copied().collect();
            let _ = writeln!(code, "X_KV_GIVEN = {}", py_array(&flat, d, "B, T_k, d_model", 0));
        }
    }
    (Section::new("Embeddings", prose, code), consistent)
}

/// The NumPy code of one step (without the `numpy_steps[...] = ` line).
pub(super) fn numpy_step(name: StepName, x_in: &str, kv_in: &str, table: bool, trace: &Trace) -> String {
    let has = |s: StepName| trace.step(s).is_some();
    let first = |order: &[StepName]| order.iter().copied().find(|&s| has(s)).map_or("", StepName::as_str);
    let (q_final, k_final, v_final) = (
        first(&[StepName::QRot, StepName::QNorm, StepName::QHeads]),
        first(&[StepName::KRep, StepName::KRot, StepName::KNorm, StepName::KHeads]),
        first(&[StepName::VRep, StepName::VHeads]),
    );
    let k_before_repeat = first(&[StepName::KRot, StepName::KNorm, StepName::KHeads]);
    let (q_before_rope, k_before_rope) =
        (first(&[StepName::QNorm, StepName::QHeads]), first(&[StepName::KNorm, StepName::KHeads]));
    let masked_from = first(&[StepName::Biased, StepName::Capped, StepName::Scaled]);
    let bias_to = first(&[StepName::Capped, StepName::Scaled]);
    let lookup = |var: &str, tokens: &str, given: &str| {
        if table {
            format!("{var} = np.array([[embedding[t] for t in sentence] for sentence in {tokens}])  # look every token up\n")
        } else {
            format!("{var} = {given}  # written out whole above\n")
        }
    };
    match name {
        // never reached: `sections` writes MLA's steps with `latent::numpy_step`
        attention_engine::step::mla_steps!() => format!(
            "raise NotImplementedError(\"{}: a step of multi-head latent attention, written only for an mla trace\")\n",
            name.as_str()
        ),
        // inside `attention_layer(l, resid_in)` (layers.rs): its argument, and the residual add
        StepName::ResidIn => "# resid_in is the argument: resid[l], what this layer reads\n".into(),
        StepName::ResidOut => {
            "resid_out = resid_in + output  # the residual add: resid[l + 1] = resid[l] + attn_l(resid[l])\n".into()
        }
        StepName::X => lookup("x", "tokens", "X_GIVEN"),
        StepName::XKv => lookup("x_kv", "kv_tokens", "X_KV_GIVEN"),
        StepName::Pe => "pe = sinusoidal(T, d_model)[None, :, :]  # (1, T, d_model), broadcast over B\n".into(),
        StepName::XPe => "x_pe = x + pe  # <pad> positions included\n".into(),
        StepName::XKvPe => {
            "x_kv_pe = x_kv + sinusoidal(T_k, d_model)[None, :, :]  # positions counted within the key/value sentences\n"
                .into()
        }
        StepName::Q => format!("q = {x_in} @ W_q + b_q  # (B, T, d_model)\n"),
        StepName::K => format!("k = {kv_in} @ W_k + b_k  # (B, T_k, h_kv * d_k)\n"),
        StepName::V => format!("v = {kv_in} @ W_v + b_v  # (B, T_k, h_kv * d_k)\n"),
        StepName::QHeads => "q_heads = q.reshape(B, T, h, d_k).transpose(0, 2, 1, 3)  # (B, h, T, d_k)\n".into(),
        StepName::KHeads => {
            "k_heads = k.reshape(B, T_k, h_kv, d_k).transpose(0, 2, 1, 3)  # (B, h_kv, T_k, d_k)\n".into()
        }
        StepName::VHeads => {
            "v_heads = v.reshape(B, T_k, h_kv, d_k).transpose(0, 2, 1, 3)  # (B, h_kv, T_k, d_k)\n".into()
        }
        StepName::QNorm if whole_norm(trace) => {
            "q_norm = rms_norm_whole(q_heads, q_norm_weight)  # (B, h, T, d_k), normed over h * d_k\n".into()
        }
        StepName::KNorm if whole_norm(trace) => {
            "k_norm = rms_norm_whole(k_heads, k_norm_weight)  # (B, h_kv, T_k, d_k), normed over h_kv * d_k\n".into()
        }
        StepName::QNorm => "q_norm = rms_norm(q_heads, q_norm_weight)  # (B, h, T, d_k)\n".into(),
        StepName::KNorm => "k_norm = rms_norm(k_heads, k_norm_weight)  # (B, h_kv, T_k, d_k)\n".into(),
        StepName::QRot => format!("q_rot = rope({q_before_rope})  # (B, h, T, d_k)\n"),
        StepName::KRot => format!("k_rot = rope({k_before_rope})  # (B, h_kv, T_k, d_k)\n"),
        StepName::KRep => format!(
            "k_rep = np.repeat({k_before_repeat}, h // h_kv, axis=1)  # (B, h, T_k, d_k): head i reads head i // (h // h_kv)\n"
        ),
        StepName::VRep => "v_rep = np.repeat(v_heads, h // h_kv, axis=1)  # (B, h, T_k, d_k)\n".into(),
        StepName::Scores => format!("scores = {q_final} @ {k_final}.transpose(0, 1, 3, 2)  # (B, h, T, T_k)\n"),
        StepName::Scaled if trace.scale.is_some() => "scaled = scores * scale  # in place of / math.sqrt(d_k)\n".into(),
        StepName::Scaled => "scaled = scores / math.sqrt(d_k)\n".into(),
        StepName::Capped => "capped = softcap * np.tanh(scaled / softcap)  # never beyond +-softcap\n".into(),
        StepName::Alibi => "alibi = np.array(alibi_slopes(h))[None, :, None, None] * \
                            alibi_distance(np.arange(T_k)[None, :] - np.arange(T)[:, None])[None, None]  # (1, h, T, T_k)\n"
            .into(),
        StepName::Biased => format!("biased = {bias_to} + alibi\n"),
        StepName::Masked => format!(
            "masked = np.where(mask[:, None, :, :], fill, {masked_from})  # mask[:, None] is mask.unsqueeze(1)\n"
        ),
        // the sink's logit as one more column of each row, dropped after the softmax
        StepName::Weights if !trace.sinks.is_empty() => String::from(
            "with np.errstate(invalid=\"ignore\"):\n    \
             both = with_sinks(masked)  # (B, h, T, T_k + 1): each head's sink logit as one more column\n    \
             e = np.exp(both - both.max(axis=-1, keepdims=True))\n    \
             weights = (e / e.sum(axis=-1, keepdims=True))[..., :-1]  # the sink's column dropped: rows sum to less than 1\n",
        ),
        StepName::Weights => String::from(
            "with np.errstate(invalid=\"ignore\"):  # a row of -inf only: -inf - (-inf) = NaN, as in PyTorch\n    \
             shifted = masked - masked.max(axis=-1, keepdims=True)\n    \
             e = np.exp(shifted)\n    \
             weights = e / e.sum(axis=-1, keepdims=True)  # each row sums to 1 (or is NaN)\n",
        ),
        StepName::Context => format!(
            "with np.errstate(invalid=\"ignore\"):  # NaN rows stay NaN\n    \
             context = weights @ {v_final}  # (B, h, T, d_k)\n"
        ),
        StepName::Concat => "concat = context.transpose(0, 2, 1, 3).reshape(B, T, h * d_k)  # (B, T, h * d_k)\n".into(),
        StepName::Output => "with np.errstate(invalid=\"ignore\"):\n    \
                             output = concat @ W_o + b_o  # (B, T, d_model)\n"
            .into(),
    }
}

/// QK-norm over the whole projection (OLMo 2).
fn whole_norm(trace: &Trace) -> bool {
    trace.qk_norm.as_ref().is_some_and(|n| n.whole_projection)
}
