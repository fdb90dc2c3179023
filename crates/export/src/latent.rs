//! Multi-head latent attention (DeepSeek-V2/V3) in the Python file: its sizes and weights,
//! RoPE on the rotated parts only, and the NumPy line of each step MLA records or changes
//! (`q_a` … `k_cat`, and `q`, `v_heads`, `q_rot`, `k_rot`, `scores`, `context`, `concat`
//! read MLA's tensors), its PyTorch model of the whole run (DeepseekV3Attention's forward),
//! and its KV-cache decoding with a cache of latents, in NumPy and in PyTorch (W_UK and W_UV
//! absorbed). The online softmax tile by tile is the other scenarios' (`decoding.rs`), on
//! MLA's heads.

use super::values::{py_linear, py_number};
use super::Section;
use attention_engine::mla::{MlaParams, QueryPath};
use attention_engine::scenario::{Rope, RopeStyle};
use attention_engine::step::StepName;
use attention_engine::trace::Trace;

/// MLA's sizes, its RMSNorm, the de-interleaving of DeepSeek's RoPE layout, and its
/// weights (seeded ones drawn out).
pub(super) fn weights_section(trace: &Trace, p: &MlaParams) -> Section {
    let Some(m) = trace.mla.as_ref() else { return Section::new("Weights", vec![], String::new()) };
    let mut code = format!(
        "r_kv, d_nope, d_rope, d_v = {}, {}, {}, {}  # kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim\n\
         mla_eps = {}  # the two RMSNorms' epsilon\n\n\n\
         def rms_norm_rows(x, w):\n    \
         \"\"\"DeepseekV3RMSNorm over the last axis: w * x / sqrt(mean(x^2) + eps).\"\"\"\n    \
         return w * (x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + mla_eps))\n\n\n\
         def deinterleave(x):\n    \
         \"\"\"DeepSeek's interleaved RoPE pairs gathered into rotate_half's layout: evens, then odds.\"\"\"\n    \
         return np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)\n\n\n",
        m.kv_lora_rank,
        m.qk_nope_head_dim,
        m.qk_rope_head_dim,
        m.v_head_dim,
        py_number(m.eps),
    );
    let vector = |name: &str, v: &[f64], len: &str| {
        let parts: Vec<String> = v.iter().map(|&x| py_number(x)).collect();
        format!("{name} = np.array([{}])  # ({len},)\n", parts.join(", "))
    };
    match &p.q {
        QueryPath::Direct(q) => code.push_str(&py_linear("q", q, "d_model", "h * (d_nope + d_rope)")),
        QueryPath::Compressed { down, norm, up } => {
            code.push_str(&py_linear("q_a", down, "d_model", "r_q"));
            code.push_str(&vector("q_a_norm_weight", norm, "r_q"));
            code.push_str(&py_linear("q_b", up, "r_q", "h * (d_nope + d_rope)"));
        }
    }
    code.push_str(&py_linear("kv_a", &p.kv_a, "d_model", "r_kv + d_rope"));
    code.push_str(&vector("kv_a_norm_weight", &p.kv_a_norm, "r_kv"));
    code.push_str(&py_linear("kv_b", &p.kv_b, "r_kv", "h * (d_nope + d_v)"));
    code.push_str(&py_linear("o", &p.o, "h * d_v", "d_model"));
    if let Some(r_q) = m.q_lora_rank {
        code.insert_str(0, &format!("r_q = {r_q}  # q_lora_rank\n"));
    }
    Section::new(
        "Weights (multi-head latent attention)",
        vec![
            "DeepSeek-V2/V3's multi-head latent attention: each token goes down to a latent c_KV (`W_kv_a`, \
             then RMSNorm) and a RoPE key k_pe shared by every head; `W_kv_b` projects the latent up to each \
             head's k_nope and value; `W_o` reads the heads' values, h * d_v wide."
                .into(),
            "Convention: `y = x @ W + b`; PyTorch's `nn.Linear.weight` is `W.T` (`q_proj`, `q_a_proj`, \
             `q_b_proj`, `kv_a_proj_with_mqa`, `kv_b_proj`, `o_proj`)."
                .into(),
        ],
        code,
    )
}

/// RoPE as MLA turns it: the `half` pairing on `d_rope` dimensions (DeepSeek-V3's
/// interleaved layout is gathered first by the steps' `deinterleave`), or with
/// `rope_in_place` (DeepSeek-V2) the interleaved pairs turned where they are.
pub(super) fn rope_for_mla(rope: Rope, in_place: bool) -> Rope {
    if in_place && rope.style == RopeStyle::Interleaved {
        rope
    } else {
        Rope { style: RopeStyle::Half, ..rope }
    }
}

/// The NumPy code of a step under MLA, or `None` for a step MLA leaves as it is.
pub(super) fn numpy_step(name: StepName, x_in: &str, kv_in: &str, trace: &Trace) -> Option<String> {
    let in_place = trace.mla.as_ref().is_some_and(|m| m.rope_in_place);
    let gathered = trace.rope.is_some_and(|r| r.style == RopeStyle::Interleaved) && !in_place;
    let gather = |x: &str| if gathered { format!("deinterleave({x})") } else { x.to_owned() };
    let has = |s: StepName| trace.step(s).is_some();
    let (q_final, k_rope) = if has(StepName::QCat) { ("q_cat", "k_rot") } else { ("q_heads", "k_pe") };
    Some(match name {
        StepName::QA => format!("q_a = {x_in} @ W_q_a + b_q_a  # (B, T, r_q)\n"),
        StepName::QANorm => "q_a_norm = rms_norm_rows(q_a, q_a_norm_weight)  # (B, T, r_q)\n".into(),
        StepName::Q if has(StepName::QANorm) => {
            "q = q_a_norm @ W_q_b + b_q_b  # (B, T, h * (d_nope + d_rope))\n".into()
        }
        StepName::Q => format!("q = {x_in} @ W_q + b_q  # (B, T, h * (d_nope + d_rope))\n"),
        StepName::KvA => format!("kv_a = {kv_in} @ W_kv_a + b_kv_a  # (B, T_k, r_kv + d_rope)\n"),
        StepName::CKv => "c_kv = rms_norm_rows(kv_a[..., :r_kv], kv_a_norm_weight)  # (B, T_k, r_kv): what a decoder caches\n".into(),
        StepName::KPe => "k_pe = kv_a[..., r_kv:].reshape(B, 1, T_k, d_rope)  # one RoPE key, shared by every head\n".into(),
        StepName::KvB => "kv_b = c_kv @ W_kv_b + b_kv_b  # (B, T_k, h * (d_nope + d_v))\n".into(),
        StepName::QHeads => {
            "q_heads = q.reshape(B, T, h, d_nope + d_rope).transpose(0, 2, 1, 3)  # (B, h, T, d_nope + d_rope)\n"
                .into()
        }
        StepName::KNope => {
            "k_nope = kv_b.reshape(B, T_k, h, d_nope + d_v).transpose(0, 2, 1, 3)[..., :d_nope]  # (B, h, T_k, d_nope)\n"
                .into()
        }
        StepName::VHeads => {
            "v_heads = kv_b.reshape(B, T_k, h, d_nope + d_v).transpose(0, 2, 1, 3)[..., d_nope:]  # (B, h, T_k, d_v)\n"
                .into()
        }
        StepName::QRot => format!("q_rot = rope({})  # (B, h, T, d_rope)\n", gather("q_heads[..., d_nope:]")),
        StepName::KRot => format!("k_rot = rope({})  # (B, 1, T_k, d_rope)\n", gather("k_pe")),
        StepName::QCat => "q_cat = np.concatenate([q_heads[..., :d_nope], q_rot], axis=-1)  # (B, h, T, d_nope + d_rope)\n".into(),
        StepName::KCat => format!(
            "k_cat = np.concatenate([k_nope, np.broadcast_to({k_rope}, (B, h, T_k, d_rope))], axis=-1)  # every head's key ends with the shared one\n"
        ),
        StepName::Scores => format!("scores = {q_final} @ k_cat.transpose(0, 1, 3, 2)  # (B, h, T, T_k)\n"),
        StepName::Context => String::from(
            "with np.errstate(invalid=\"ignore\"):  # NaN rows stay NaN\n    \
             context = weights @ v_heads  # (B, h, T, d_v)\n",
        ),
        StepName::Concat => "concat = context.transpose(0, 2, 1, 3).reshape(B, T, h * d_v)  # (B, T, h * d_v)\n".into(),
        _ => return None,
    })
}

/// True when DeepSeek-V3's interleaved RoPE pairs are gathered before they turn (not in
/// place, as DeepSeek-V2 turns them).
fn gathered(trace: &Trace) -> bool {
    let in_place = trace.mla.as_ref().is_some_and(|m| m.rope_in_place);
    trace.rope.is_some_and(|r| r.style == RopeStyle::Interleaved) && !in_place
}

/// The NumPy of MLA's rope part `x` turned at position `start` as the steps turn it, or `x`
/// itself without RoPE.
fn turned(trace: &Trace, x: &str, start: &str) -> String {
    match (trace.rope, gathered(trace)) {
        (None, _) => x.to_owned(),
        (Some(_), true) => format!("rope(deinterleave({x}), start={start})"),
        (Some(_), false) => format!("rope({x}, start={start})"),
    }
}

/// The page's decode view under MLA in NumPy: one token at a time, a cache of its latent c_KV
/// and shared RoPE key k_rot growing by one row per token (a rolling buffer under a window, a
/// fixed cache in cross-attention), every head's key and value projected up from the cache,
/// and the same scores with W_UK absorbed into the query.
pub(super) fn decode_section(trace: &Trace, x_in: &str, kv_in: &str) -> Section {
    let compressed = trace.step(StepName::QANorm).is_some();
    let q_proj = if compressed {
        "rms_norm_rows(x_t @ W_q_a + b_q_a, q_a_norm_weight) @ W_q_b + b_q_b"
    } else {
        "x_t @ W_q + b_q"
    };
    let code = include_str!("../export_py/decode_mla.py")
        .replace("Q_PROJ", q_proj)
        .replace("TURN(k_pe_t, start)", &turned(trace, "k_pe_t", "start"))
        .replace("TURN(q_t[..., d_nope:], t)", &turned(trace, "q_t[..., d_nope:]", "t"));
    let code = code.replace("KV_IN", kv_in).replace("X_IN", x_in);
    Section::new(
        "Decoding with a cache of latents (multi-head latent attention)",
        vec![
            "How DeepSeek-V2/V3 generate with the same attention: at each position t one new query, and for the \
             cache only the new token's latent c_KV (r_kv numbers, after its RMSNorm) and its shared RoPE key \
             k_rot (d_rope numbers, turned at position t), not every head's key and value. Each step projects \
             the keys' unrotated parts and the values up from the cached latents with `W_kv_b`, puts each key \
             together with the shared RoPE key, and scores the one query against them. Every row equals row t \
             of the output above (except a fully blocked row under -1e9), and the cache equals c_kv and the \
             RoPE keys of the cached tokens."
                .into(),
            "The same scores absorbed: q_nope · (c_KV W_UK + b_UK) = (q_nope W_UKᵀ) · c_KV + q_nope · b_UK, so a \
             query r_kv wide reads the cached latents themselves and no key is formed (DeepSeek's inference \
             code folds W_UK into the query this way)."
                .into(),
        ],
        code,
    )
}

/// MLA's PyTorch model of the whole run (`export_py/mla_torch_model.py`, after the shared
/// `torch_model.py`): `MultiHeadLatentAttention`, DeepseekV3Attention's forward with
/// DeepSeek's module names, recording every step; its query direct or compressed
/// (`q_a_proj`, `q_a_layernorm`, `q_b_proj`), and DeepSeek-V3's interleaved RoPE pairs
/// gathered before they turn.
pub(super) fn torch_model(trace: &Trace) -> String {
    let compressed = trace.step(StepName::QANorm).is_some();
    let (init, forward) = if compressed {
        (
            "self.q_a_proj, self.q_a_layernorm = linear(W_q_a, b_q_a), rms_norm_layer(q_a_norm_weight)\n            \
             self.q_b_proj = linear(W_q_b, b_q_b)  # r_q -> h * (d_nope + d_rope)",
            "q_a = self.q_a_proj(x)  # (B, T, r_q)\n            \
             q_a_norm = self.q_a_layernorm(q_a)\n            \
             steps.update(q_a=q_a, q_a_norm=q_a_norm)\n            \
             q = self.q_b_proj(q_a_norm)  # (B, T, h * (d_nope + d_rope))",
        )
    } else {
        (
            "self.q_proj = linear(W_q, b_q)  # d_model -> h * (d_nope + d_rope)",
            "q = self.q_proj(x)  # (B, T, h * (d_nope + d_rope))",
        )
    };
    let gather = if gathered(trace) {
        "        x = torch.cat([x[..., 0::2], x[..., 1::2]], dim=-1)  # DeepSeek-V3's interleaved pairs gathered\n"
    } else {
        ""
    };
    include_str!("../export_py/mla_torch_model.py")
        .replace("        GATHER_TORCH\n", gather)
        .replace("TORCH_Q_INIT", init)
        .replace("TORCH_Q_FORWARD", forward)
}

/// The MLA decoding again in PyTorch, the way DeepSeek-V3's inference code runs it with
/// `attn_impl="absorb"`: the whole run's modules ([`torch_model`]), W_UK folded into the
/// query and W_UV applied after the weighted sum of the cached latents.
pub(super) fn torch_decode_section(trace: &Trace, x_in: &str, kv_in: &str) -> Section {
    let compressed = trace.step(StepName::QANorm).is_some();
    let (modules, q) = if compressed {
        (
            "q_a_proj, q_a_layernorm, q_b_proj = mla_attn.q_a_proj, mla_attn.q_a_layernorm, mla_attn.q_b_proj",
            "q_b_proj(q_a_layernorm(q_a_proj(x_t)))",
        )
    } else {
        ("q_proj = mla_attn.q_proj", "q_proj(x_t)")
    };
    let code = include_str!("../export_py/decode_mla_torch.py")
        .replace("TORCH_Q_MODULES", modules)
        .replace("TORCH_Q", q)
        .replace("KV_IN", kv_in)
        .replace("X_IN", x_in);
    Section::new(
        "The decoding in PyTorch, absorbed",
        vec!["The same decoding in PyTorch as DeepSeek-V3's inference code writes it (`attn_impl=\"absorb\"`): \
              the modules of the model above, a cache of latents and RoPE keys, W_UK folded into the query, \
              W_UV applied to the weighted sum of latents. It runs only when PyTorch is installed."
            .into()],
        code,
    )
}

#[cfg(test)]
mod tests {
    use attention_engine::scenario::{Mla, ProjectionKind, Projections, Rope, RopeStyle, Scenario};

    /// An MLA scenario as the engine's own tests make it (`attention_engine::mla`).
    fn mla_scenario(q_lora_rank: Option<usize>, style: RopeStyle) -> Scenario {
        let mut s = Scenario::identity(&["the cat sat on the mat", "a dog"], 8, 3);
        s.projections = Projections::Named(ProjectionKind::Seeded);
        s.seed = 5;
        s.mask.causal = true;
        s.rope = Some(Rope::new(style));
        s.mla = Some(Mla { q_lora_rank, ..Mla::sized(4, 3, 4, 2) });
        s
    }

    #[test]
    fn the_python_export_writes_mla_its_tiles_its_pytorch_model_and_its_decoding() {
        for rank in [None, Some(5)] {
            let s = mla_scenario(rank, RopeStyle::Interleaved);
            let trace = attention_engine::run(&s).unwrap();
            for text in [crate::python_script(&s, &trace), crate::notebook(&s, &trace)] {
                // its weights drawn out and every step of its own
                for line in
                    ["W_kv_a = ", "W_kv_b = ", "c_kv = rms_norm_rows(kv_a[..., :r_kv], kv_a_norm_weight)"]
                {
                    assert!(text.contains(line), "{line}");
                }
                assert!(text.contains("rope(deinterleave(q_heads[..., d_nope:]))"));
                // the decoding: a cache of latents and RoPE keys, turned at each token's position
                for line in [
                    "c_cache = np.concatenate([c_cache, c_t], axis=1)",
                    "k_rot_cache = np.concatenate([k_rot_cache, k_rot_t], axis=2)",
                    "return c_t, rope(deinterleave(k_pe_t), start=start)",
                    "rope(deinterleave(q_t[..., d_nope:]), start=t)",
                    "x = torch.cat([x[..., 0::2], x[..., 1::2]], dim=-1)",
                    "report(*compare(np.concatenate(absorbed_scores), np.concatenate(raw_scores))",
                ] {
                    assert!(text.contains(line), "{line}");
                }
                // the online softmax on MLA's heads, and the PyTorch model of the whole run, checked
                for line in [
                    "tiled_context = np.zeros((B, h, T, d_v))",
                    "s = scale_scores(q_cat[:, :, q0:q1] @ k_cat[:, :, k0:k1].transpose(0, 1, 3, 2))",
                    "o = c * o + p @ v_heads[:, :, k0:k1]",
                    "report(*compare(tiled_context, EXPECTED[",
                    "class MultiHeadLatentAttention(nn.Module):",
                    "c_kv = self.kv_a_layernorm(c_kv)",
                    "context = attend(q, k, v, mask, steps, (q, k, v))  # (B, h, T, d_v)",
                    "mla_attn = MultiHeadLatentAttention()",
                    "output = mla_attn(x, x_kv, mask_t, torch_steps)",
                    "report(*compare(torch_steps[name].detach().numpy(), EXPECTED[name])",
                ] {
                    assert!(text.contains(line), "{line}");
                }
                // neither the tutorials' module nor their decoding, and nothing said to be missing
                assert!(!text.contains("not written") && !text.contains("class MultiHeadAttention"));
                assert!(!text.contains("import causal_lower_right") && !text.contains("raise SystemExit"));
                assert_eq!(text.contains("W_q_a = "), rank.is_some());
                assert_eq!(text.contains("q_a = self.q_a_proj(x)"), rank.is_some());
            }
        }
    }

    /// The header says what MLA turns: the last d_rope numbers of each query and the
    /// shared RoPE key, not every head's whole query and key.
    #[test]
    fn the_header_says_what_mla_rotates() {
        let s = mla_scenario(None, RopeStyle::Interleaved);
        let script = crate::python_script(&s, &attention_engine::run(&s).unwrap());
        assert!(!script.contains("queries and keys rotated per head"));
        assert!(script.contains("MLA (multi-head latent attention"), "{}", &script[..2000]);
        assert!(script.contains(
            "RoPE: only the last d_rope = 4 numbers of each head's query and the shared key k_rot rotated"
        ));
    }

    /// DeepSeek-V2's layout (the pairs turned in place): the script turns them in place too.
    #[test]
    fn deepseek_v2_is_written_turning_the_pairs_in_place() {
        for rank in [None, Some(5)] {
            let mut v2 = mla_scenario(rank, RopeStyle::Interleaved);
            v2.mla.as_mut().unwrap().rope_in_place = true;
            let script = crate::python_script(&v2, &attention_engine::run(&v2).unwrap());
            assert!(
                script.contains("q_rot = rope(q_heads[..., d_nope:])")
                    && !script.contains("deinterleave(q_heads")
            );
            // and so does the decoding, in NumPy and in PyTorch
            assert!(
                script.contains("rope(q_t[..., d_nope:], start=t)") && !script.contains("deinterleave(q_t")
            );
            assert!(!script.contains("x = torch.cat([x[..., 0::2]"));
            assert_eq!(script.contains("q_b_proj(q_a_layernorm(q_a_proj(x_t)))"), rank.is_some());
        }
    }
}
