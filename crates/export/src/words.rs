//! The scenario in words: the prose of the first section (sentences, sizes, RoPE, ALiBi,
//! the mask, positions, projections) and the words the other sections share.

use std::fmt::Write as _;

use super::values::{py_number, py_str};
use attention_engine::scenario::{Fill, Padding, Positional, ProjectionKind, Projections, Scenario};
use attention_engine::trace::Trace;

pub(super) fn padding_words(padding: Padding) -> &'static str {
    match padding {
        Padding::None => "none (`<pad>` tokens are attended to like any other token)",
        Padding::Keys => "keys (no query attends to a `<pad>` key)",
        Padding::KeysAndQueries => {
            "keys and queries (no query attends to a `<pad>` key, and a `<pad>` query attends to nothing)"
        }
    }
}

pub(super) fn projection_words(scenario: &Scenario) -> String {
    match &scenario.projections {
        Projections::Named(ProjectionKind::Identity) => {
            "identity: W = I and b = 0 for all four, so head i sees its own d_k columns of x".into()
        }
        Projections::Named(ProjectionKind::Seeded) => format!(
            "seeded: Xavier-uniform from a ChaCha8 RNG with seed {}, biases zero. The numbers drawn are \
             written out below, so this file does not depend on our RNG",
            scenario.seed
        ),
        Projections::Explicit(_) => {
            "explicit: the scenario's own W_Q, b_Q, W_K, b_K, W_V, b_V, W_O, b_O".into()
        }
    }
}

fn sentence_lines(tokens: &[Vec<String>], lengths: &[usize], sentences: &[String]) -> String {
    let t = tokens.first().map_or(0, Vec::len);
    let mut out = String::new();
    for (b, sentence) in sentences.iter().enumerate() {
        let len = lengths.get(b).copied().unwrap_or(0);
        let pads = t.saturating_sub(len);
        let pad_words = if pads > 0 { format!(", then {pads} `<pad>`") } else { String::new() };
        let _ = writeln!(out, "  {b}: {} ({len} tokens{pad_words})", py_str(sentence));
    }
    out
}

pub(super) fn scenario_words(scenario: &Scenario, trace: &Trace) -> Vec<String> {
    let z = &trace.sizes;
    let cross = trace.is_cross();
    let mut prose = Vec::new();
    let kind = if cross { "cross-attention" } else { "self-attention" };
    prose.push(format!(
        "Multi-head {kind} exported from Attention Lens, written out in NumPy (and PyTorch, if installed). \
         It recomputes every step from the numbers below and checks each against the page's (EXPECTED), \
         then prints `N passed, M failed`."
    ));
    let mut s = format!("Sentences (queries), B = {}, padded to T = {} tokens:\n", z.b, z.t);
    s.push_str(&sentence_lines(&trace.tokens, &trace.lengths, &scenario.sentences));
    if let (Some(kv_tokens), Some(kv_lengths), Some(kv_sentences)) =
        (&trace.kv_tokens, &trace.kv_lengths, &scenario.kv_sentences)
    {
        let _ = writeln!(
            s,
            "Keys and values come from these sentences, padded to T_k = {} tokens:",
            z.t_k.unwrap_or(z.t)
        );
        s.push_str(&sentence_lines(kv_tokens, kv_lengths, kv_sentences));
    }
    prose.push(s.trim_end().to_owned());
    prose.push(format!(
        "Sizes: d_model = {}, h = {} heads, {}{}{}",
        z.d_model,
        z.n_heads,
        if z.d_k * z.n_heads == z.d_model {
            format!("d_k = d_model / h = {}", z.d_k)
        } else {
            format!("d_k = {} (a head size of its own: h·d_k = {})", z.d_k, z.n_heads * z.d_k)
        },
        z.t_k.map_or(String::new(), |t_k| format!(", T_q = {}, T_k = {t_k}", z.t)),
        z.n_kv_heads.map_or(String::new(), |h_kv| format!(
            ", h_kv = {h_kv} key/value heads (grouped-query attention: each serves {} query heads)",
            z.group_size()
        ))
    ));
    if trace.n_layers > 1 {
        prose.push(format!(
            "Layers: {n} attention layers on a residual stream, resid[l+1] = resid[l] + attn_l(resid[l]). The page \
             shows layer {shown}: the file runs all {n}, checks layer {shown}'s steps one by one and the whole \
             stream resid[0..{n}].",
            n = trace.n_layers,
            shown = trace.layer
        ));
    }
    if let Some(m) = trace.mla.as_ref() {
        prose.push(format!(
            "MLA (multi-head latent attention, DeepSeek-V2/V3): keys and values come from a latent c_KV of r_kv = {} \
             numbers per token, each head's key its d_nope = {} numbers up-projected from c_KV beside a RoPE key \
             k_rot of d_rope = {} shared by all heads; values d_v = {}.",
            m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim
        ));
    }
    if let Some(rope) = trace.rope {
        let what = match trace.mla.as_ref() {
            Some(m) => format!(
                "only the last d_rope = {} numbers of each head's query and the shared key k_rot rotated at their \
                 positions (the first d_nope = {} are not turned)",
                m.qk_rope_head_dim, m.qk_nope_head_dim
            ),
            None => "queries and keys rotated per head at their positions".into(),
        };
        prose.push(format!("RoPE: {what}, pairs \"{}\", base {}.", rope.style.name(), py_number(rope.base)));
    }
    if !trace.alibi_slopes.is_empty() {
        prose.push(if trace.mask.config.causal {
            "ALiBi: m_h·(j − i) added to the scaled scores before the mask.".into()
        } else {
            "ALiBi without a causal mask: −m_h·|i − j| (bidirectional ALiBi's symmetric form) added to the scaled \
             scores before the mask."
                .into()
        });
    }
    let m = &scenario.mask;
    let full = trace.fully_masked_rows.len();
    let full_words = match (full, m.fill) {
        (0, _) => "No query row is blocked entirely.".to_owned(),
        (n, Fill::NegInf) => {
            format!("{n} query row(s) are blocked entirely: under -inf their weights are 0/0 = NaN.")
        }
        (n, Fill::LargeNegative) => {
            format!("{n} query row(s) are blocked entirely: under -1e9 their weights are uniform.")
        }
    };
    prose.push(format!(
        "Mask (True = blocked): causal {}; {}padding {}; blocked scores become {}. {full_words}",
        if m.causal { "on (query i may not attend to key j > i)" } else { "off" },
        m.window.map_or(String::new(), |w| match m.keep_first {
            Some(n) => format!(
                "a sliding window of {w} keys, with the first {n} keys kept beside it (StreamingLLM; each key keeps \
                 its original position, where StreamingLLM numbers positions inside the cache); "
            ),
            None => format!("a sliding window of {w} keys; "),
        }),
        padding_words(m.padding),
        m.fill.pytorch()
    ));
    prose.push(format!(
        "Positional encoding: {}",
        match scenario.positional {
            Positional::None => "none",
            Positional::Sinusoidal => "sinusoidal, added to the token vectors before the projections",
        }
    ));
    prose.push(format!("Projections: {}", projection_words(scenario)));
    prose.push("Run it: `python3 this_file.py` (NumPy needed; PyTorch optional, float64).".into());
    prose
}
