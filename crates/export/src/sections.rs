//! The sections of the file, in order: title and words, sizes and tokens, embeddings,
//! weights, mask, positions (RoPE, ALiBi), one NumPy block per step (with the notebook's
//! heatmaps after the weights), decoding and the online softmax, PyTorch, the page's
//! numbers, the check. One function per section; [`sections`] puts them in order.

use std::fmt::Write as _;

use super::check::{check_section, expected_section};
use super::decoding::{decode_section, tiled_section};
use super::latent;
use super::layers;
use super::numpy::{embedding_section, numpy_step};
use super::torch::torch_section;
use super::values::{projections_code, py_number, py_str, py_str_list};
use super::words::{padding_words, projection_words, scenario_words};
use super::{Section, Target};
use attention_engine::scenario::{Positional, Rope, RopeScaling, RopeStyle, Scenario};
use attention_engine::step::StepName;
use attention_engine::trace::{shape_text, Trace};

/// Every section of the script or notebook, in order.
pub(super) fn sections(scenario: &Scenario, trace: &Trace, target: Target) -> Vec<Section> {
    let positions = trace.positional == Positional::Sinusoidal;
    // The tensors the projections read: with a positional encoding, the embeddings plus PE.
    let x_in = if positions { "x_pe" } else { "x" };
    let kv_in = match (trace.is_cross(), positions) {
        (true, true) => "x_kv_pe",
        (true, false) => "x_kv",
        (false, _) => x_in,
    };
    let (embeddings, table) = embedding_section(trace);
    let fill = scenario.mask.fill;
    let latent_params = trace.mla_params.as_deref().filter(|_| trace.mla.is_some());
    let layered = trace.n_layers > 1;
    let weights = match latent_params {
        Some(p) => latent::weights_section(trace, p),
        None if layered => layers::weights_section(scenario, trace, &layers::layer_weights(scenario, trace)),
        None => weights_section(scenario, trace),
    };
    let mut out = vec![
        title_section(scenario, trace),
        sizes_section(scenario, trace),
        embeddings,
        weights,
        mask_section(scenario),
    ];
    if positions {
        out.push(positional_section());
    }
    out.extend(trace.rope.map(|rope| match &trace.mla {
        Some(m) => rope_section(latent::rope_for_mla(rope, m.rope_in_place), m.qk_rope_head_dim),
        None => rope_section(rope, trace.sizes.d_k),
    }));
    if !trace.alibi_slopes.is_empty() {
        out.push(alibi_section(trace.mask.config.causal));
    }
    out.extend(step_sections(trace, target, x_in, kv_in, table));
    // the layers' steps run inside one function; decoding and tiles read the page's layer
    let (x_in, kv_in) = if layered {
        out.push(layers::layers_section(trace, x_in, table));
        if target == Target::Notebook {
            out.push(heatmap_section());
        }
        ("resid_in", "resid_in")
    } else {
        (x_in, kv_in)
    };
    // MLA decodes with a cache of latents, in NumPy, then in PyTorch after its model
    let mla = latent_params.is_some();
    out.extend([
        if mla { latent::decode_section(trace, x_in, kv_in) } else { decode_section(x_in, kv_in) },
        tiled_section(trace),
        torch_section(trace, fill, table),
    ]);
    if mla {
        out.push(latent::torch_decode_section(trace, x_in, kv_in));
    }
    out.extend([expected_section(trace), check_section(trace, target)]);
    out
}

/// The title, the scenario in words and the imports.
fn title_section(scenario: &Scenario, trace: &Trace) -> Section {
    Section::new(
        "Attention Lens: the whole computation in NumPy and PyTorch",
        scenario_words(scenario, trace),
        String::from(
            "import math\nimport sys\n\nimport numpy as np\n\n\n\
             def numbers(text):\n    \
             \"\"\"The numbers of a big array, written one row per line (Python reads one long string\n    \
             much faster than a list literal of a million floats).\"\"\"\n    \
             return np.array(text.split(), dtype=np.float64)\n",
        ),
    )
}

/// The sentences, tokens, lengths and sizes (and the keys' tokens in cross-attention).
fn sizes_section(scenario: &Scenario, trace: &Trace) -> Section {
    let z = &trace.sizes;
    let mut code = String::new();
    let _ = writeln!(code, "sentences = {}", py_str_list(&scenario.sentences));
    code.push_str("tokens = [  # B × T, padded with <pad> to the longest sentence\n");
    for row in &trace.tokens {
        let _ = writeln!(code, "    {},", py_str_list(row));
    }
    code.push_str("]\n");
    let _ = writeln!(code, "lengths = {:?}  # real tokens in each sentence", trace.lengths);
    match (&trace.kv_tokens, &trace.kv_lengths) {
        (Some(kv_tokens), Some(kv_lengths)) => {
            if let Some(kv) = &scenario.kv_sentences {
                let _ = writeln!(code, "kv_sentences = {}", py_str_list(kv));
            }
            code.push_str("kv_tokens = [  # the keys' and values' tokens, B × T_k\n");
            for row in kv_tokens {
                let _ = writeln!(code, "    {},", py_str_list(row));
            }
            code.push_str("]\n");
            let _ = writeln!(code, "kv_lengths = {kv_lengths:?}");
        }
        _ => code.push_str(
            "kv_tokens, kv_lengths = tokens, lengths  # self-attention: keys and values come from the same tokens\n",
        ),
    }
    let _ = writeln!(code, "\nB, T, d_model, h = {}, {}, {}, {}", z.b, z.t, z.d_model, z.n_heads);
    match z.t_k {
        Some(t_k) => {
            let _ = writeln!(code, "T_k = {t_k}  # key/value tokens per sentence (T is T_q)");
        }
        None => code.push_str("T_k = T\n"),
    }
    if z.d_k * z.n_heads == z.d_model {
        code.push_str("d_k = d_model // h\n");
    } else {
        let _ = writeln!(code, "d_k = {}  # a head size of its own: h * d_k is not d_model", z.d_k);
    }
    let _ = writeln!(code, "h_kv = {}  # key/value heads (h unless grouped-query attention)", z.kv_heads());
    let _ = writeln!(
        code,
        "rope_style = {}  # RoPE's pairing, or None\nuse_alibi = {}  # ALiBi's bias",
        trace.rope.map_or("None".to_owned(), |r| py_str(r.style.name())),
        if trace.alibi_slopes.is_empty() { "False" } else { "True" }
    );
    let _ = writeln!(code, "positional = {}", py_str(trace.positional.name()));
    let _ = writeln!(
        code,
        "scale = {}  # the scores' factor in place of 1 / sqrt(d_k), or None\n\
         softcap = {}  # logit softcapping's c, or None\n\n\n\
         def scale_scores(s):\n    \
         \"\"\"The scores scaled (by scale, else 1 / sqrt(d_k)), then softcapped when there is a softcap.\"\"\"\n    \
         s = s * scale if scale is not None else s / math.sqrt(d_k)\n    \
         return s if softcap is None else softcap * np.tanh(s / softcap)",
        trace.scale.map_or("None".to_owned(), py_number),
        trace.softcap.map_or("None".to_owned(), py_number),
    );
    let sinks: Vec<String> = trace.sinks.iter().map(|&v| py_number(v)).collect();
    let _ = writeln!(
        code,
        "\nsinks = {}  # attention sinks: one learned logit per head (gpt-oss), or None\n\n\n\
         def with_sinks(s):\n    \
         \"\"\"(B, h, rows, cols) scores with each head's sink logit as one more column, when there are sinks.\"\"\"\n    \
         if sinks is None:\n        \
         return s\n    \
         return np.concatenate([s, np.broadcast_to(sinks[None, :, None, None], s.shape[:-1] + (1,))], axis=-1)",
        if sinks.is_empty() { "None".to_owned() } else { format!("np.array([{}])", sinks.join(", ")) },
    );
    let norm = trace.qk_norm.as_ref();
    let weight = |keys: bool| {
        norm.map_or("None".to_owned(), |n| {
            let heads = if keys { z.kv_heads() } else { z.n_heads };
            let w: Vec<String> =
                n.weight(keys, n.weight_len(heads, z.d_k)).iter().map(|&v| py_number(v)).collect();
            format!("np.array([{}])", w.join(", "))
        })
    };
    let whole = norm.is_some_and(|n| n.whole_projection);
    let _ = writeln!(
        code,
        "\nqk_norm_eps = {}  # QK-norm's epsilon, or None (no QK-norm)\n\
         q_norm_weight = {}  # {}\n\
         k_norm_weight = {}  # {}\n\n\n\
         def rms_norm(x, w):\n    \
         \"\"\"RMSNorm over the last axis (each head's d_k numbers), times the weight w.\"\"\"\n    \
         return w * (x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + qk_norm_eps))\n\n\n\
         def rms_norm_whole(x, w):\n    \
         \"\"\"RMSNorm over each token's whole projection, all heads' numbers together (OLMo 2's q_norm\n    \
         and k_norm, before the split into heads), times the weight w of heads * d_k numbers.\"\"\"\n    \
         b, heads, t, d = x.shape\n    \
         flat = x.transpose(0, 2, 1, 3).reshape(b, t, heads * d)\n    \
         return rms_norm(flat, w).reshape(b, t, heads, d).transpose(0, 2, 1, 3)\n\n\n\
         qk_norm_whole = {}  # QK-norm over each token's whole projection (OLMo 2), not each head\n\n\n\
         def norm_heads(x, w):\n    \
         \"\"\"QK-norm of (B, heads, T, d_k) heads as the run does it: each head, or the whole projection.\"\"\"\n    \
         return rms_norm_whole(x, w) if qk_norm_whole else rms_norm(x, w)",
        norm.map_or("None".to_owned(), |n| py_number(n.eps)),
        weight(false),
        if whole { "(h * d_k,), over each token's whole query projection" } else { "(d_k,), shared by every query head" },
        weight(true),
        if whole { "(h_kv * d_k,), over each token's whole key projection" } else { "(d_k,), shared by every key head" },
        if whole { "True" } else { "False" },
    );
    Section::new(
        "Sizes and tokens",
        vec![
            "The tokens as the page split them; shorter sentences are padded with `<pad>` at the end.".into()
        ],
        code,
    )
}

/// The four projections' weights and biases.
fn weights_section(scenario: &Scenario, trace: &Trace) -> Section {
    let code = projections_code(trace, &trace.params);
    Section::new(
        "Weights",
        vec![
            format!("Projections: {}.", projection_words(scenario)),
            "Convention: `y = x @ W + b` with W of shape (d_model_in, d_model_out). PyTorch's `nn.Linear.weight` \
             is the transpose, `W.T`."
                .into(),
        ],
        code,
    )
}

/// The mask settings, and the mask rebuilt from the lengths (not copied from the page).
fn mask_section(scenario: &Scenario) -> Section {
    let m = &scenario.mask;
    let code = format!(
        "causal = {}\n\
         window = {}  # a sliding window of keys, or None\n\
         keep_first = {}  # the first keys kept beside the window (StreamingLLM), or 0\n\
         padding = {}  # \"none\", \"keys\" or \"keys_and_queries\"\n\
         fill = {}\n\n\
         q_is_pad = np.arange(T)[None, :] >= np.array(lengths)[:, None]  # (B, T)\n\
         k_is_pad = np.arange(T_k)[None, :] >= np.array(kv_lengths)[:, None]  # (B, T_k)\n\
         mask = np.zeros((B, T, T_k), dtype=bool)  # True = blocked\n\
         if causal:\n    \
         mask |= np.triu(np.ones((T, T_k), dtype=bool), k=1)  # key j > query i\n\
         if window is not None:\n    \
         i, j = np.arange(T)[:, None], np.arange(T_k)[None, :]\n    \
         mask |= ((j + window <= i) if causal else (np.abs(i - j) >= window)) & (j >= keep_first)  # outside the window, not kept\n\
         if padding in (\"keys\", \"keys_and_queries\"):\n    \
         mask |= k_is_pad[:, None, :]  # no query attends to a <pad> key\n\
         if padding == \"keys_and_queries\":\n    \
         mask |= q_is_pad[:, :, None]  # a <pad> query attends to nothing\n\
         fully_blocked = mask.all(axis=-1)  # (B, T): rows where every key is blocked\n\
         print(f\"mask: {{int(mask.sum())}} of {{mask.size}} query-key pairs blocked, \
         {{int(fully_blocked.sum())}} query rows blocked entirely\")\n",
        if m.causal { "True" } else { "False" },
        m.window.map_or("None".to_owned(), |w| w.to_string()),
        m.keep_first.unwrap_or(0),
        py_str(m.padding.name()),
        m.fill.pytorch(),
    );
    let mut prose = vec![
        format!(
            "Causal {}; padding {}; blocked scores become `{}`.",
            if m.causal { "on" } else { "off" },
            padding_words(m.padding),
            m.fill.pytorch()
        ),
        "The mask is built here from the lengths, in the page's convention: True = blocked. It is the same \
         for every head (PyTorch: `mask.unsqueeze(1)`, broadcast over h)."
            .into(),
    ];
    if let (Some(w), Some(n)) = (m.window, m.keep_first) {
        prose.push(format!(
            "StreamingLLM's kept first keys: the first {n} keys stay visible beside the window of {w}, and stay in the \
             decoding cache. Each key keeps its original position (RoPE, ALiBi); StreamingLLM numbers positions \
             inside the cache instead."
        ));
    }
    Section::new("Mask", prose, code)
}

/// The sinusoidal positional encoding, as a function of T and d_model.
fn positional_section() -> Section {
    Section::new(
        "Positional encoding",
        vec!["PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)), \
              positions from 0; an odd d_model ends in a sine."
            .into()],
        String::from(
            "def sinusoidal(T, d_model):\n    \
             pos = np.arange(T)[:, None]  # (T, 1)\n    \
             c = np.arange(d_model)[None, :]  # (1, d_model)\n    \
             angle = pos / 10000.0 ** ((c - c % 2) / d_model)  # 2i = c - c % 2\n    \
             return np.where(c % 2 == 0, np.sin(angle), np.cos(angle))  # (T, d_model)\n",
        ),
    )
}

/// RoPE as a function the steps call, in the run's pairing, base and rotated dimensions
/// (`d_k` unless a rotary fraction).
fn rope_section(rope: Rope, d_k: usize) -> Section {
    Section::new(
        "Rotary positions (RoPE)",
        vec![format!(
            "Each pair of a head's dimensions is turned by pos·θ_i, θ_i = base^(−2i/d_k), positions from 0. \
             Pairs here: \"{}\" ({}).{}",
            rope.style.name(),
            match rope.style {
                RopeStyle::Half => "dimension i with i + d_k/2, Hugging Face's rotate_half",
                RopeStyle::Interleaved => "dimensions 2i and 2i+1, the RoFormer paper and Meta's Llama code",
            },
            rope.scaling.map_or(String::new(), |s| format!(" θ_i is scaled: {}.", attention_engine::step::scaling_words(s)))
        )],
        format!(
            "rope_style, rope_base = {}, {}\n\
             rope_dims = {}  # the dimensions of a head that turn (d_k unless a rotary fraction)\n\
             rope_attention_factor = {}  # multiplies the turned dimensions (YaRN's attention factor; 1 otherwise)\n\n\n\
             def rope(x, start=0):\n    \
             \"\"\"x: (B, heads, T, d_k) -> the same, each pair of its first rope_dims dimensions turned by\n    \
             pos * theta_i, the positions counted from start (a decoding step turns one row at its absolute\n    \
             position); the other dimensions pass unchanged.\"\"\"\n    \
             if rope_dims < x.shape[-1]:\n        \
             return np.concatenate([rope_all(x[..., :rope_dims], start), x[..., rope_dims:]], -1)\n    \
             return rope_all(x, start)\n\n\n\
             def rope_all(x, start):\n    \
             d_k = x.shape[-1]  # the dimensions that turn\n    \
             inv_freq = scale_inv_freq(1.0 / rope_base ** (np.arange(0, d_k, 2) / d_k))  # theta_i, (d_k/2,)\n    \
             angle = (start + np.arange(x.shape[2]))[:, None] * inv_freq[None, :]  # (T, d_k/2)\n    \
             cos, sin = np.cos(angle), np.sin(angle)\n    \
             if rope_style == \"half\":  # rotate_half: dimension i with i + d_k/2\n        \
             cos, sin = np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1)\n        \
             rotated = np.concatenate([-x[..., d_k // 2:], x[..., : d_k // 2]], -1)\n    \
             else:  # interleaved: dimension 2i with 2i+1\n        \
             cos, sin = np.repeat(cos, 2, -1), np.repeat(sin, 2, -1)\n        \
             rotated = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)\n    \
             return (x * cos + rotated * sin) * rope_attention_factor  # YaRN's attention factor, else 1\n\n\n{}",
            py_str(rope.style.name()),
            py_number(rope.base),
            rope.rotary_dims(d_k),
            py_number(rope.attention_factor()),
            scale_inv_freq_py(rope.scaling)
        ),
    )
}

/// The script's `scale_inv_freq`: RoPE's frequencies as the run scales them, in
/// `transformers`' formula for the scaling's type.
fn scale_inv_freq_py(scaling: Option<RopeScaling>) -> String {
    let Some(scaling) = scaling else {
        return "def scale_inv_freq(inv_freq):\n    return inv_freq  # no scaling\n".to_owned();
    };
    let fields: Vec<String> =
        scaling.fields().into_iter().map(|(name, v)| format!("{}: {}", py_str(name), py_number(v))).collect();
    let body = match scaling {
        RopeScaling::Linear { .. } => {
            "    \"\"\"linear (position interpolation): every theta_i divided by the factor\"\"\"\n    \
             return inv_freq / rope_scaling[\"factor\"]\n"
        }
        RopeScaling::Llama3 { .. } => {
            "    \"\"\"Llama 3.1's, as transformers' _compute_llama3_parameters: a wavelength over old / low is divided\n    \
             by the factor, one under old / high kept, those between blended\"\"\"\n    \
             factor, low = rope_scaling[\"factor\"], rope_scaling[\"low_freq_factor\"]\n    \
             high, old = rope_scaling[\"high_freq_factor\"], rope_scaling[\"original_max_position_embeddings\"]\n    \
             wavelen = 2 * np.pi / inv_freq\n    \
             smooth = (old / wavelen - low) / (high - low)\n    \
             blended = (1 - smooth) * inv_freq / factor + smooth * inv_freq\n    \
             return np.where(wavelen < old / high, inv_freq, np.where(wavelen > old / low, inv_freq / factor, blended))\n"
        }
        RopeScaling::Yarn { truncate, .. } => {
            return format!(
                "rope_scaling = {{\"type\": \"yarn\", {}, \"truncate\": {}}}\n\n\n\
                 def scale_inv_freq(inv_freq):\n    \
                 \"\"\"YaRN, as transformers' _compute_yarn_parameters: pair i is kept below the ramp's low end,\n    \
                 divided by the factor above its high end, blended between\"\"\"\n    \
                 dim, factor, old = 2 * len(inv_freq), rope_scaling[\"factor\"], rope_scaling[\"original_max_position_embeddings\"]\n    \
                 def correction(turns):\n        \
                 return dim * np.log(old / (turns * 2 * np.pi)) / (2 * np.log(rope_base))\n    \
                 low, high = correction(rope_scaling[\"beta_fast\"]), correction(rope_scaling[\"beta_slow\"])\n    \
                 if rope_scaling[\"truncate\"]:\n        \
                 low, high = np.floor(low), np.ceil(high)\n    \
                 low, high = max(low, 0), min(high, dim - 1)\n    \
                 if low == high:\n        \
                 high += 0.001\n    \
                 ramp = np.clip((np.arange(len(inv_freq)) - low) / (high - low), 0, 1)\n    \
                 return inv_freq / factor * ramp + inv_freq * (1 - ramp)\n",
                fields.join(", "),
                if truncate { "True" } else { "False" }
            );
        }
    };
    format!(
        "rope_scaling = {{\"type\": {}, {}}}\n\n\ndef scale_inv_freq(inv_freq):\n{body}",
        py_str(scaling.name()),
        fields.join(", ")
    )
}

/// ALiBi's slopes and distance as functions the steps call: `j − i` under a causal mask,
/// `−|i − j|` without one.
fn alibi_section(causal: bool) -> Section {
    Section::new(
        "ALiBi",
        vec![if causal {
            "A bias m_h·(j − i) per head, added to the scaled scores before the mask; the slopes follow the \
             ALiBi paper's code."
        } else {
            "A bias −m_h·|i − j| per head, added to the scaled scores before the mask: without a causal mask \
             the paper's m_h·(j − i) would reward every later key, so the bias takes the symmetric form of \
             bidirectional ALiBi (MosaicBERT, Portes et al., 2023). The slopes follow the ALiBi paper's code."
        }
        .into()],
        String::from(
            "def alibi_distance(j_minus_i):\n    \
             # j - i under a causal mask (the paper's); without one, -|j - i| (bidirectional ALiBi)\n    \
             return j_minus_i if causal else -abs(j_minus_i)\n\n\n\
             def alibi_slopes(n):\n    \
             def power_of_2(n):\n        \
             return [2.0 ** (-8.0 * k / n) for k in range(1, n + 1)]\n    \
             if n & (n - 1) == 0:\n        \
             return power_of_2(n)\n    \
             m = 2 ** int(math.floor(math.log2(n)))  # the largest power of two below n\n    \
             return power_of_2(m) + power_of_2(2 * m)[0::2][: n - m]\n",
        ),
    )
}

/// One NumPy block per step of the page, and in the notebook the heatmaps after the weights.
/// With more than one layer, only the steps before the first layer (the layers' steps are
/// [`layers::layers_section`]'s).
fn step_sections(trace: &Trace, target: Target, x_in: &str, kv_in: &str, table: bool) -> Vec<Section> {
    let mut out = Vec::new();
    let mut first = true;
    let before_layers = |n: StepName| {
        matches!(n, StepName::X | StepName::Pe | StepName::XPe | StepName::XKv | StepName::XKvPe)
    };
    for step in trace.steps.iter().filter(|s| trace.n_layers == 1 || before_layers(s.name)) {
        let name = step.name;
        let mut prose = vec![
            step.op.clone(),
            format!("PyTorch: `{}`", step.pytorch),
            format!("Shape: {}", shape_text(&step.dims, &step.shape)),
        ];
        if first {
            prose.insert(0, "The pipeline in NumPy, one block per step of the page.".into());
            first = false;
        }
        let mut code = latent::numpy_step(name, x_in, kv_in, trace)
            .filter(|_| trace.mla.is_some())
            .unwrap_or_else(|| numpy_step(name, x_in, kv_in, table, trace));
        let _ = writeln!(code, "numpy_steps[{}] = {}", py_str(name.as_str()), name.as_str());
        if name == StepName::X {
            code.insert_str(0, "numpy_steps = {}  # every step, by the page's names\n\n");
        }
        out.push(Section::new(name.as_str(), prose, code));
        if name == StepName::Weights && target == Target::Notebook {
            out.push(heatmap_section());
        }
    }
    out
}

/// The notebook's own section: a heatmap of the weights per head and sentence.
fn heatmap_section() -> Section {
    Section::new(
        "Heatmaps of the weights",
        vec!["One heatmap per head and sentence: row = query, column = key. NaN cells (fully blocked rows under \
              -inf) are left blank. Needs matplotlib (`pip install matplotlib`); skipped without it."
            .into()],
        String::from(
            "try:\n    \
             import matplotlib.pyplot as plt\n\
             except ImportError:\n    \
             plt = None\n    \
             print(\"matplotlib is not installed: no heatmaps (pip install matplotlib)\")\n\n\
             if plt is not None:\n    \
             for b in range(B):\n        \
             fig, axes = plt.subplots(1, h, figsize=(3.5 * h, 3.5), squeeze=False)\n        \
             for head in range(h):\n            \
             ax = axes[0][head]\n            \
             ax.imshow(weights[b, head], vmin=0.0, vmax=1.0, cmap=\"viridis\")\n            \
             ax.set_title(f\"sentence {b}, head {head}\")\n            \
             if T_k <= 32 and T <= 32:\n                \
             ax.set_xticks(range(T_k), kv_tokens[b], rotation=90)\n                \
             ax.set_yticks(range(T), tokens[b])\n        \
             plt.tight_layout()\n        \
             plt.show()\n",
        ),
    )
}
