//! "Take it to Python": a run written out as one self-contained Python script
//! ([`python_script`]) or Jupyter notebook ([`notebook`]).
//!
//! The file holds everything the run used: the tokens, each distinct token's embedding,
//! every weight and bias (seeded ones drawn out, so nothing depends on our RNG), the mask
//! settings and the positional setting. From those it recomputes every step in NumPy, one
//! commented block per step with the page's step names and the PyTorch line, builds the
//! mask itself from the lengths (it does not copy ours), then runs the same pipeline in
//! PyTorch the way the tutorials write it (`view`, `transpose(1, 2)`, `masked_fill`,
//! `softmax(dim=-1)`) when `import torch` works. Last, it checks every step against the
//! page's numbers (`EXPECTED`) and ends with the line `N passed, M failed`; the script
//! exits non-zero if anything failed.
//!
//! Numbers are written with Rust's shortest round-trip formatting (`{:?}`), so they read
//! back bit for bit. Arrays of more than [`LITERAL_LIMIT`] numbers are written as a block
//! of text read by `numbers("""…""")` instead of a list literal: Python compiles a list
//! literal of a million floats in tens of seconds and gigabytes, a string in no time.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::embedding::Source;
use crate::scenario::{Fill, Padding, Positional, ProjectionKind, Projections, Scenario};
use crate::step::{Axis, StepName};
use crate::trace::{shape_text, Step, Trace};
use crate::weights::Linear;

/// Arrays with more numbers than this are written as a text block, not a list literal.
pub const LITERAL_LIMIT: usize = 16_384;

/// Relative tolerance of the script's check.
pub const RTOL: f64 = 1e-9;
/// Absolute floor of the script's check, times the step's largest magnitude (at least 1).
pub const ATOL: f64 = 1e-12;

/// One part of the file: words (comments in the script, a markdown cell in the notebook)
/// and the code after them.
struct Section {
    heading: String,
    /// Paragraphs, lightly marked up (backticks around code).
    prose: Vec<String>,
    code: String,
}

impl Section {
    fn new(heading: impl Into<String>, prose: Vec<String>, code: String) -> Self {
        Self { heading: heading.into(), prose, code }
    }
}

/// Where the sections go: the script ends with `sys.exit`, the notebook with an assert.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Script,
    Notebook,
}

/// The run as one self-contained Python file. Run it with `python3 file.py` (NumPy
/// needed, PyTorch optional): it prints one line per checked step and ends with
/// `N passed, M failed`.
pub fn python_script(scenario: &Scenario, trace: &Trace) -> String {
    let sections = sections(scenario, trace, Target::Script);
    let mut out = String::from("#!/usr/bin/env python3\n");
    for (n, section) in sections.iter().enumerate() {
        if n > 0 {
            out.push_str("\n\n");
            let rule = "─".repeat(72usize.saturating_sub(section.heading.chars().count() + 6));
            let _ = writeln!(out, "# ── {} {rule}", section.heading);
        } else {
            let _ = writeln!(out, "# {}", section.heading);
            out.push_str("#\n");
        }
        for (i, paragraph) in section.prose.iter().enumerate() {
            if i > 0 && n == 0 {
                out.push_str("#\n");
            }
            for line in paragraph.lines() {
                if line.is_empty() {
                    out.push_str("#\n");
                }
                for wrapped in wrap(line, 96) {
                    let _ = writeln!(out, "# {wrapped}");
                }
            }
        }
        if n == 0 {
            out.push('\n');
        }
        out.push_str(&section.code);
        if !section.code.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The run as a Jupyter notebook (nbformat 4.4, JSON): the same code as
/// [`python_script`] split into cells, a markdown cell of words before each step, and a
/// heatmap per head of the weights when matplotlib is installed.
pub fn notebook(scenario: &Scenario, trace: &Trace) -> String {
    let mut cells = Vec::new();
    for (n, section) in sections(scenario, trace, Target::Notebook).into_iter().enumerate() {
        let level = if n == 0 { "#" } else { "###" };
        let mut md = format!("{level} {}\n", markdown(&section.heading));
        for paragraph in &section.prose {
            md.push('\n');
            for line in paragraph.lines() {
                // A line break inside a paragraph: two spaces, as markdown wants.
                let _ = writeln!(md, "{}  ", markdown(line));
            }
        }
        cells.push(json!({"cell_type": "markdown", "metadata": {}, "source": source_lines(md.trim_end())}));
        cells.push(json!({
            "cell_type": "code",
            "execution_count": null,
            "metadata": {},
            "outputs": [],
            "source": source_lines(section.code.trim_end()),
        }));
    }
    let doc = json!({
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 4,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| String::from("{}"))
}

/// Splits a line of prose into lines of at most `width` characters at spaces, keeping
/// its indentation on the continuation lines.
fn wrap(line: &str, width: usize) -> Vec<String> {
    let indent: String = line.chars().take_while(|c| *c == ' ').collect();
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if current.is_empty() {
            current.push_str(&indent);
            if !lines.is_empty() {
                current.push_str("  ");
            }
        } else {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// A cell's `source`: its lines, each but the last ending in `\n`.
fn source_lines(text: &str) -> Value {
    Value::Array(text.split_inclusive('\n').map(|l| Value::String(l.to_owned())).collect())
}

/// Markdown for a line of prose: `<` and `>` outside backticks become entities (so
/// `<pad>` is not read as an HTML tag) and `*` is escaped.
fn markdown(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '*' if !in_code => out.push_str("\\*"),
            _ => out.push(c),
        }
    }
    out
}

// ─── Writing Python values ──────────────────────────────────────────────────────────

/// A Python string literal (JSON's escapes are Python's too).
fn py_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

/// A list of Python strings on one line.
fn py_str_list<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| py_str(s.as_ref())).collect();
    format!("[{}]", parts.join(", "))
}

/// A Python literal: the one formatter's [`crate::format::python`].
fn py_number(v: f64) -> String {
    crate::format::python(v)
}

/// A number in a text block NumPy reads: [`crate::format::python_text`].
fn text_number(v: f64) -> String {
    crate::format::python_text(v)
}

/// `np.array([...]).reshape(shape)` (or `numbers("""...""").reshape(shape)` for a big
/// array), one row of `row_len` numbers per line, indented by `indent` spaces.
fn py_array(values: &[f64], row_len: usize, shape: &str, indent: usize) -> String {
    let pad = " ".repeat(indent + 4);
    let row_len = row_len.max(1);
    let mut out = String::new();
    let big = values.len() > LITERAL_LIMIT;
    out.push_str(if big { "numbers(\"\"\"\n" } else { "np.array([\n" });
    for row in values.chunks(row_len) {
        if big {
            let parts: Vec<String> = row.iter().map(|&v| text_number(v)).collect();
            let _ = writeln!(out, "{}", parts.join(" "));
        } else {
            let parts: Vec<String> = row.iter().map(|&v| py_number(v)).collect();
            let _ = writeln!(out, "{pad}{},", parts.join(", "));
        }
    }
    if big {
        let _ = write!(out, "\"\"\").reshape({shape})");
    } else {
        let _ = write!(out, "{}]).reshape({shape})", " ".repeat(indent));
    }
    out
}

/// A weight matrix (`np.eye` when it is exactly the identity) or bias (`np.zeros` when it
/// is exactly zero).
/// `out` is the Python name of the output width (`d_model`, or `h_kv * d_k` for the
/// keys and values of grouped-query attention).
fn py_linear(name: &str, layer: &Linear, out: &str) -> String {
    let identity = layer
        .w()
        .indexed_iter()
        .all(|((i, j), &v)| v.to_bits() == if i == j { 1f64 } else { 0f64 }.to_bits());
    let w = if identity && out == "d_model" {
        "np.eye(d_model)  # exactly the identity".to_owned()
    } else if identity {
        format!("np.eye(d_model, {out})  # exactly the identity's first {out} columns")
    } else {
        let flat: Vec<f64> = layer.w().iter().copied().collect();
        py_array(&flat, layer.w().ncols(), &format!("d_model, {out}"), 0)
    };
    let b = if layer.b().iter().all(|&v| v.to_bits() == 0) {
        format!("np.zeros({out})  # exactly zero")
    } else {
        let flat: Vec<f64> = layer.b().iter().copied().collect();
        py_array(&flat, flat.len(), out, 0)
    };
    format!("W_{name} = {w}\nb_{name} = {b}\n")
}

/// The Python name of an axis size.
fn axis_symbol(axis: Axis) -> &'static str {
    match axis {
        Axis::B => "B",
        Axis::H => "h",
        Axis::T | Axis::TQ => "T",
        Axis::TK => "T_k",
        Axis::DModel => "d_model",
        Axis::DK => "d_k",
        Axis::HKv => "h_kv",
        Axis::KvWidth => "h_kv * d_k",
        Axis::One => "1",
    }
}

fn shape_symbols(step: &Step) -> String {
    step.dims.iter().map(|&a| axis_symbol(a)).collect::<Vec<_>>().join(", ")
}

// ─── The scenario in words ──────────────────────────────────────────────────────────

fn padding_words(padding: Padding) -> &'static str {
    match padding {
        Padding::None => "none (`<pad>` tokens are attended to like any other token)",
        Padding::Keys => "keys (no query attends to a `<pad>` key)",
        Padding::KeysAndQueries => {
            "keys and queries (no query attends to a `<pad>` key, and a `<pad>` query attends to nothing)"
        }
    }
}

fn projection_words(scenario: &Scenario) -> String {
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

fn scenario_words(scenario: &Scenario, trace: &Trace) -> Vec<String> {
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
        "Sizes: d_model = {}, h = {} heads, d_k = d_model / h = {}{}{}",
        z.d_model,
        z.n_heads,
        z.d_k,
        z.t_k.map_or(String::new(), |t_k| format!(", T_q = {}, T_k = {t_k}", z.t)),
        z.n_kv_heads.map_or(String::new(), |h_kv| format!(
            ", h_kv = {h_kv} key/value heads (grouped-query attention: each serves {} query heads)",
            z.group_size()
        ))
    ));
    if let Some(rope) = trace.rope {
        prose.push(format!(
            "RoPE: queries and keys rotated per head at their positions, pairs \"{}\", base {}.",
            rope.style.name(),
            py_number(rope.base)
        ));
    }
    if !trace.alibi_slopes.is_empty() {
        prose.push("ALiBi: m_h·(j − i) added to the scaled scores before the mask.".into());
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
        m.window.map_or(String::new(), |w| format!("a sliding window of {w} keys; ")),
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

// ─── The sections ───────────────────────────────────────────────────────────────────

fn sections(scenario: &Scenario, trace: &Trace, target: Target) -> Vec<Section> {
    let z = &trace.sizes;
    let cross = trace.is_cross();
    let positions = trace.positional == Positional::Sinusoidal;
    let mut out = Vec::new();

    // 0. Title, the scenario in words, imports.
    out.push(Section::new(
        "Attention Lens: the whole computation in NumPy and PyTorch",
        scenario_words(scenario, trace),
        String::from(
            "import math\nimport sys\n\nimport numpy as np\n\n\n\
             def numbers(text):\n    \
             \"\"\"The numbers of a big array, written one row per line (Python reads one long string\n    \
             much faster than a list literal of a million floats).\"\"\"\n    \
             return np.array(text.split(), dtype=np.float64)\n",
        ),
    ));

    // 1. Sizes and tokens.
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
    code.push_str("d_k = d_model // h\n");
    let _ = writeln!(code, "h_kv = {}  # key/value heads (h unless grouped-query attention)", z.kv_heads());
    let _ = writeln!(
        code,
        "rope_style = {}  # RoPE's pairing, or None\nuse_alibi = {}  # ALiBi's bias",
        trace.rope.map_or("None".to_owned(), |r| py_str(r.style.name())),
        if trace.alibi_slopes.is_empty() { "False" } else { "True" }
    );
    let _ = writeln!(code, "positional = {}", py_str(trace.positional.name()));
    out.push(Section::new(
        "Sizes and tokens",
        vec![
            "The tokens as the page split them; shorter sentences are padded with `<pad>` at the end.".into()
        ],
        code,
    ));

    // 2. Embeddings and weights.
    let (section, table) = embedding_section(trace);
    out.push(section);
    let w = &trace.params;
    let mut code = String::new();
    let kv = if trace.is_grouped() { "h_kv * d_k" } else { "d_model" };
    for (name, layer, out) in
        [("q", &w.q, "d_model"), ("k", &w.k, kv), ("v", &w.v, kv), ("o", &w.o, "d_model")]
    {
        code.push_str(&py_linear(name, layer, out));
    }
    out.push(Section::new(
        "Weights",
        vec![
            format!("Projections: {}.", projection_words(scenario)),
            "Convention: `y = x @ W + b` with W of shape (d_model_in, d_model_out). PyTorch's `nn.Linear.weight` \
             is the transpose, `W.T`."
                .into(),
        ],
        code,
    ));

    // 3. Mask settings and the mask, rebuilt from the lengths.
    let m = &scenario.mask;
    let code = format!(
        "causal = {}\n\
         window = {}  # a sliding window of keys, or None\n\
         padding = {}  # \"none\", \"keys\" or \"keys_and_queries\"\n\
         fill = {}\n\n\
         q_is_pad = np.arange(T)[None, :] >= np.array(lengths)[:, None]  # (B, T)\n\
         k_is_pad = np.arange(T_k)[None, :] >= np.array(kv_lengths)[:, None]  # (B, T_k)\n\
         mask = np.zeros((B, T, T_k), dtype=bool)  # True = blocked\n\
         if causal:\n    \
         mask |= np.triu(np.ones((T, T_k), dtype=bool), k=1)  # key j > query i\n\
         if window is not None:\n    \
         i, j = np.arange(T)[:, None], np.arange(T_k)[None, :]\n    \
         mask |= (j + window <= i) if causal else (np.abs(i - j) >= window)  # outside the window\n\
         if padding in (\"keys\", \"keys_and_queries\"):\n    \
         mask |= k_is_pad[:, None, :]  # no query attends to a <pad> key\n\
         if padding == \"keys_and_queries\":\n    \
         mask |= q_is_pad[:, :, None]  # a <pad> query attends to nothing\n\
         fully_blocked = mask.all(axis=-1)  # (B, T): rows where every key is blocked\n\
         print(f\"mask: {{int(mask.sum())}} of {{mask.size}} query-key pairs blocked, \
         {{int(fully_blocked.sum())}} query rows blocked entirely\")\n",
        if m.causal { "True" } else { "False" },
        m.window.map_or("None".to_owned(), |w| w.to_string()),
        py_str(m.padding.name()),
        m.fill.pytorch(),
    );
    out.push(Section::new(
        "Mask",
        vec![
            format!(
                "Causal {}; padding {}; blocked scores become `{}`.",
                if m.causal { "on" } else { "off" },
                padding_words(m.padding),
                m.fill.pytorch()
            ),
            "The mask is built here from the lengths, in the page's convention: True = blocked. It is the same \
             for every head (PyTorch: `mask.unsqueeze(1)`, broadcast over h)."
                .into(),
        ],
        code,
    ));

    // 4. Positions.
    if positions {
        out.push(Section::new(
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
        ));
    }

    // 4b. RoPE and ALiBi, as functions the steps call.
    if let Some(rope) = trace.rope {
        out.push(Section::new(
            "Rotary positions (RoPE)",
            vec![format!(
                "Each pair of a head's dimensions is turned by pos·θ_i, θ_i = base^(−2i/d_k), positions from 0. \
                 Pairs here: \"{}\" ({}).",
                rope.style.name(),
                match rope.style {
                    crate::RopeStyle::Half => "dimension i with i + d_k/2, Hugging Face's rotate_half",
                    crate::RopeStyle::Interleaved => "dimensions 2i and 2i+1, the RoFormer paper and Meta's Llama code",
                }
            )],
            format!(
                "rope_style, rope_base = {}, {}\n\n\n\
                 def rope(x, start=0):\n    \
                 \"\"\"x: (B, heads, T, d_k) -> the same, each pair of dimensions turned by pos * theta_i, the\n    \
                 positions counted from start (a decoding step turns one row at its absolute position).\"\"\"\n    \
                 inv_freq = 1.0 / rope_base ** (np.arange(0, d_k, 2) / d_k)  # theta_i, (d_k/2,)\n    \
                 angle = (start + np.arange(x.shape[2]))[:, None] * inv_freq[None, :]  # (T, d_k/2)\n    \
                 cos, sin = np.cos(angle), np.sin(angle)\n    \
                 if rope_style == \"half\":  # rotate_half: dimension i with i + d_k/2\n        \
                 cos, sin = np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1)\n        \
                 rotated = np.concatenate([-x[..., d_k // 2:], x[..., : d_k // 2]], -1)\n    \
                 else:  # interleaved: dimension 2i with 2i+1\n        \
                 cos, sin = np.repeat(cos, 2, -1), np.repeat(sin, 2, -1)\n        \
                 rotated = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)\n    \
                 return x * cos + rotated * sin\n",
                py_str(rope.style.name()),
                py_number(rope.base)
            ),
        ));
    }
    if !trace.alibi_slopes.is_empty() {
        out.push(Section::new(
            "ALiBi",
            vec!["A bias m_h·(j − i) per head, added to the scaled scores before the mask; the slopes follow the \
                  ALiBi paper's code."
                .into()],
            String::from(
                "def alibi_slopes(n):\n    \
                 def power_of_2(n):\n        \
                 return [2.0 ** (-8.0 * k / n) for k in range(1, n + 1)]\n    \
                 if n & (n - 1) == 0:\n        \
                 return power_of_2(n)\n    \
                 m = 2 ** int(math.floor(math.log2(n)))  # the largest power of two below n\n    \
                 return power_of_2(m) + power_of_2(2 * m)[0::2][: n - m]\n",
            ),
        ));
    }

    // 5. The steps in NumPy.
    let x_in = if positions { "x_pe" } else { "x" };
    let kv_in = match (cross, positions) {
        (true, true) => "x_kv_pe",
        (true, false) => "x_kv",
        (false, _) => x_in,
    };
    let fill = m.fill;
    let mut first = true;
    for step in &trace.steps {
        let name = step.name;
        let mut prose = vec![
            name.words(z.d_model, z.n_heads, z.d_k, fill),
            format!("PyTorch: `{}`", name.pytorch_in(fill, cross, trace.rope.map(|r| r.style))),
            format!("Shape: {}", shape_text(&step.dims, &step.shape)),
        ];
        if first {
            prose.insert(0, "The pipeline in NumPy, one block per step of the page.".into());
            first = false;
        }
        let mut code = numpy_step(name, x_in, kv_in, table, trace);
        let _ = writeln!(code, "numpy_steps[{}] = {}", py_str(name.as_str()), name.as_str());
        if name == StepName::X {
            code.insert_str(0, "numpy_steps = {}  # every step, by the page's names\n\n");
        }
        out.push(Section::new(name.as_str(), prose, code));
        if name == StepName::Weights && target == Target::Notebook {
            out.push(heatmap_section());
        }
    }

    // 5b. How a model runs it: decoding with a cache, and the online softmax.
    out.push(decode_section(x_in, kv_in));
    out.push(tiled_section(trace));

    // 6. The same in PyTorch.
    out.push(torch_section(trace, fill, table));

    // 7. The page's numbers.
    out.push(expected_section(trace));

    // 8. The check.
    out.push(check_section(trace, target));
    out
}

/// Each distinct token's vector, or (if one text had two vectors, which the engine never
/// does) `x` itself.
fn embedding_section(trace: &Trace) -> (Section, bool) {
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
fn numpy_step(name: StepName, x_in: &str, kv_in: &str, table: bool, trace: &Trace) -> String {
    let has = |s: StepName| trace.step(s).is_some();
    let first = |order: &[StepName]| order.iter().copied().find(|&s| has(s)).map_or("", StepName::as_str);
    let (q_final, k_final, v_final) = (
        first(&[StepName::QRot, StepName::QHeads]),
        first(&[StepName::KRep, StepName::KRot, StepName::KHeads]),
        first(&[StepName::VRep, StepName::VHeads]),
    );
    let k_before_repeat = first(&[StepName::KRot, StepName::KHeads]);
    let masked_from = first(&[StepName::Biased, StepName::Scaled]);
    let lookup = |var: &str, tokens: &str, given: &str| {
        if table {
            format!("{var} = np.array([[embedding[t] for t in sentence] for sentence in {tokens}])  # look every token up\n")
        } else {
            format!("{var} = {given}  # written out whole above\n")
        }
    };
    match name {
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
        StepName::QRot => "q_rot = rope(q_heads)  # (B, h, T, d_k)\n".into(),
        StepName::KRot => "k_rot = rope(k_heads)  # (B, h_kv, T_k, d_k)\n".into(),
        StepName::KRep => format!(
            "k_rep = np.repeat({k_before_repeat}, h // h_kv, axis=1)  # (B, h, T_k, d_k): head i reads head i // (h // h_kv)\n"
        ),
        StepName::VRep => "v_rep = np.repeat(v_heads, h // h_kv, axis=1)  # (B, h, T_k, d_k)\n".into(),
        StepName::Scores => format!("scores = {q_final} @ {k_final}.transpose(0, 1, 3, 2)  # (B, h, T, T_k)\n"),
        StepName::Scaled => "scaled = scores / math.sqrt(d_k)\n".into(),
        StepName::Alibi => "alibi = np.array(alibi_slopes(h))[None, :, None, None] * \
                            (np.arange(T_k)[None, :] - np.arange(T)[:, None])[None, None]  # (1, h, T, T_k): m_h * (j - i)\n"
            .into(),
        StepName::Biased => "biased = scaled + alibi\n".into(),
        StepName::Masked => format!(
            "masked = np.where(mask[:, None, :, :], fill, {masked_from})  # mask[:, None] is mask.unsqueeze(1)\n"
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
        StepName::Concat => "concat = context.transpose(0, 2, 1, 3).reshape(B, T, d_model)  # (B, T, d_model)\n".into(),
        StepName::Output => "with np.errstate(invalid=\"ignore\"):\n    \
                             output = concat @ W_o + b_o  # (B, T, d_model)\n"
            .into(),
    }
}

/// The page's decode view in NumPy: one query at a time against a cache of keys and
/// values (a rolling buffer under a window; a fixed cache of the key/value sentences in
/// cross-attention), RoPE at the absolute position, ALiBi and the mask at the cached
/// positions. Self-attention without a causal mask is not decoded (a model that generates
/// cannot see tokens it has not written), as on the page.
fn decode_section(x_in: &str, kv_in: &str) -> Section {
    let code = include_str!("export_py/decode.py").replace("KV_IN", kv_in).replace("X_IN", x_in);
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
fn tiled_section(trace: &Trace) -> Section {
    let has = |s: StepName| trace.step(s).is_some();
    let q_final = if has(StepName::QRot) { "q_rot" } else { "q_heads" };
    let k_final = [StepName::KRep, StepName::KRot, StepName::KHeads]
        .into_iter()
        .find(|&s| has(s))
        .map_or("k_heads", StepName::as_str);
    let v_final = if has(StepName::VRep) { "v_rep" } else { "v_heads" };
    let code = include_str!("export_py/tiled.py")
        .replace("Q_FINAL", q_final)
        .replace("K_FINAL", k_final)
        .replace("V_FINAL", v_final);
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

/// The PyTorch part's model: `torch_rope`, `MultiHeadAttention` (with the fused
/// `scaled_dot_product_attention` beside it) and the copy of the page's weights into it.
/// It reads the names the script's earlier sections define (`d_k`, `rope_style`, `W_q`…).
const TORCH_MODEL: &str = include_str!("export_py/torch_model.py");

fn torch_section(trace: &Trace, fill: Fill, table: bool) -> Section {
    let cross = trace.is_cross();
    let positions = trace.positional == Positional::Sinusoidal;
    let f = fill.pytorch();
    // The model, as a tutorial writes it: a Python file of its own (read and checked as
    // Python), whose MASK_FILL is the scenario's fill.
    let mut c = TORCH_MODEL.replace("MASK_FILL", f);
    if table {
        c.push_str(
            "        vocab = list(embedding)\n        \
             emb = nn.Embedding.from_pretrained(torch.tensor([embedding[w] for w in vocab]))  # x = embedding(tokens)\n        \
             x = emb(torch.tensor([[vocab.index(t) for t in sentence] for sentence in tokens]))\n",
        );
        if cross {
            c.push_str("        x_kv = emb(torch.tensor([[vocab.index(t) for t in sentence] for sentence in kv_tokens]))\n");
        }
    } else {
        c.push_str("        x = torch.tensor(X_GIVEN)\n");
        if cross {
            c.push_str("        x_kv = torch.tensor(X_KV_GIVEN)\n");
        }
    }
    c.push_str("        torch_steps[\"x\"] = x\n");
    if cross {
        c.push_str("        torch_steps[\"x_kv\"] = x_kv\n");
    }
    if positions {
        c.push_str(
            "        pe = positional_encoding(T, d_model)\n        \
             torch_steps[\"pe\"] = pe\n        \
             x = x + pe\n        \
             torch_steps[\"x_pe\"] = x\n",
        );
        if cross {
            c.push_str(
                "        x_kv = x_kv + positional_encoding(T_k, d_model)\n        \
                 torch_steps[\"x_kv_pe\"] = x_kv\n",
            );
        }
    }
    if !cross {
        c.push_str("        x_kv = x  # self-attention\n");
    }
    c.push_str(
        "\n        \
         mask_t = torch.zeros(B, T, T_k, dtype=torch.bool)  # True = blocked\n        \
         if causal:\n            \
         mask_t |= torch.triu(torch.ones(T, T_k, dtype=torch.bool), diagonal=1)\n        \
         if window is not None:\n            \
         i, j = torch.arange(T).unsqueeze(1), torch.arange(T_k).unsqueeze(0)\n            \
         mask_t |= (j + window <= i) if causal else ((i - j).abs() >= window)\n        \
         if padding in (\"keys\", \"keys_and_queries\"):\n            \
         mask_t |= (torch.arange(T_k) >= torch.tensor(kv_lengths).unsqueeze(1)).unsqueeze(1)\n        \
         if padding == \"keys_and_queries\":\n            \
         mask_t |= (torch.arange(T) >= torch.tensor(lengths).unsqueeze(1)).unsqueeze(2)\n\n        \
         output = mha(x, x_kv, mask_t, torch_steps)\n\n        \
         # Decoding as PyTorch writes it: one query against the keys so far. The causal diagonal must\n        \
         # sit at the lower right (causal_lower_right); is_causal=True would anchor it at the top left\n        \
         # and let the one query see key 0 only. (Without a window, ALiBi or padding: the bias object\n        \
         # is the causal rule alone.)\n        \
         try:\n            \
         from torch.nn.attention.bias import causal_lower_right\n        \
         except ImportError:  # PyTorch before 2.3\n            \
         causal_lower_right = None\n        \
         plain = causal and x_kv is x and window is None and not use_alibi and padding == \"none\"\n        \
         if causal_lower_right is not None and plain:\n            \
         q_all = torch_steps.get(\"q_rot\", torch_steps[\"q_heads\"])\n            \
         k_all = torch_steps.get(\"k_rep\", torch_steps.get(\"k_rot\", torch_steps[\"k_heads\"]))\n            \
         v_all = torch_steps.get(\"v_rep\", torch_steps[\"v_heads\"])\n            \
         rows = [\n                \
         F.scaled_dot_product_attention(\n                    \
         q_all[:, :, t : t + 1], k_all[:, :, : t + 1], v_all[:, :, : t + 1], attn_mask=causal_lower_right(1, t + 1)\n                \
         )\n                \
         for t in range(T)\n            \
         ]\n            \
         torch_sdpa[\"decoded\"] = torch.cat(rows, dim=2)  # (B, h, T, d_k): the context, row by row\n    \
         print(f\"PyTorch {torch.__version__}: output {tuple(output.shape)}\")\n",
    );
    Section::new(
        "The same in PyTorch",
        vec![format!(
            "The pipeline again, the way the tutorials write it: `nn.Linear` layers, `view` and `transpose(1, 2)`, \
             `masked_fill(mask.unsqueeze(1), {f})`, `softmax(dim=-1)`, `transpose(1, 2).contiguous().view`. \
             It runs only when PyTorch is installed."
        )],
        c,
    )
}

fn expected_section(trace: &Trace) -> Section {
    let mut c = String::from("STEPS = [");
    let names: Vec<&str> = trace.steps.iter().map(|s| s.name.as_str()).collect();
    c.push_str(&names.iter().map(|n| py_str(n)).collect::<Vec<_>>().join(", "));
    c.push_str("]\nSHAPES = {\n");
    for step in &trace.steps {
        let _ = writeln!(
            c,
            "    {}: {},",
            py_str(step.name.as_str()),
            py_str(&shape_text(&step.dims, &step.shape))
        );
    }
    c.push_str("}\n\n# The mask the page used, one query row per string (1 = blocked).\nEXPECTED_MASK = np.array([[c == \"1\" for c in row] for row in [\n");
    let [_, _, t_k] = trace.mask.shape;
    for row in trace.mask.blocked.chunks(t_k.max(1)) {
        let bits: String = row.iter().map(|&b| if b { '1' } else { '0' }).collect();
        let _ = writeln!(c, "    \"{bits}\",");
    }
    c.push_str("]]).reshape(B, T, T_k)\n\nEXPECTED = {}\n");
    for step in &trace.steps {
        let flat: Vec<f64> = step.data.iter().copied().collect();
        let row_len = step.shape.last().copied().unwrap_or(1);
        let _ = writeln!(
            c,
            "EXPECTED[{}] = {}",
            py_str(step.name.as_str()),
            py_array(&flat, row_len, &shape_symbols(step), 0)
        );
    }
    Section::new(
        "The page's numbers",
        vec!["Every step as the page computed it (EXPECTED), and the mask it used.".into()],
        c,
    )
}

fn check_section(trace: &Trace, target: Target) -> Section {
    let fill = trace.mask.config.fill.pytorch();
    let mut c = format!(
        "RTOL, ATOL = {RTOL:?}, {ATOL:?}\n\n\n\
         def compare(got, want):\n    \
         \"\"\"True when got matches want: NaN equals NaN, infinities must be equal, and other numbers\n    \
         may differ by RTOL relative or ATOL times the step's largest magnitude (at least 1, the fill\n    \
         left out). Also returns a few words on the largest error.\"\"\"\n    \
         got = np.asarray(got, dtype=np.float64)\n    \
         if got.shape != want.shape:\n        \
         return False, f\"shape {{got.shape}}, expected {{want.shape}}\"\n    \
         finite = want[np.isfinite(want) & (want != {fill})]\n    \
         scale = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0\n    \
         with np.errstate(invalid=\"ignore\"):\n        \
         err = np.abs(got - want)\n        \
         close = err <= np.maximum(RTOL * np.abs(want), ATOL * scale)\n    \
         same = close | (np.isnan(got) & np.isnan(want)) | (got == want)\n    \
         bad = np.flatnonzero(~same)\n    \
         if bad.size:\n        \
         i = np.unravel_index(bad[0], want.shape)\n        \
         return False, f\"{{bad.size}} of {{want.size}} numbers differ, first at {{i}}: got {{got[i]!r}}, expected {{want[i]!r}}\"\n    \
         finite_err = err[np.isfinite(err)]\n    \
         worst = float(finite_err.max()) if finite_err.size else 0.0\n    \
         nans = int(np.isnan(want).sum())\n    \
         return True, f\"max |error| {{worst:.1e}}\" + (f\", {{nans}} NaN as expected\" if nans else \"\")\n\n\n\
         passed = failed = 0\n\n\n\
         def report(ok, detail, who, name):\n    \
         global passed, failed\n    \
         passed, failed = passed + ok, failed + (not ok)\n    \
         print(f\"{{'ok  ' if ok else 'FAIL'}}  {{who:<5}}  {{name:<8}}  {{SHAPES.get(name, '')}}  {{detail}}\")\n\n\n\
         same_mask = mask.shape == EXPECTED_MASK.shape and bool((mask == EXPECTED_MASK).all())\n\
         report(same_mask, \"blocked pairs as on the page\" if same_mask else \"the mask differs from the page's\", \"numpy\", \"mask\")\n\
         for name in STEPS:\n    \
         report(*compare(numpy_steps[name], EXPECTED[name]), \"numpy\", name)\n\
         report(*compare(tiled_context, EXPECTED[\"context\"]), \"numpy\", \"context, tile by tile\")\n\
         if decoded is not None:  # rows with a key to attend to (a fully blocked row under -1e9 differs)\n    \
         live = ~EXPECTED_MASK.all(axis=-1)[:, :, None]\n    \
         report(*compare(np.where(live, decoded, EXPECTED[\"output\"]), EXPECTED[\"output\"]), \"numpy\", \"output, decoded\")\n\
         if torch is not None:\n    \
         for name in STEPS:\n        \
         report(*compare(torch_steps[name].detach().numpy(), EXPECTED[name]), \"torch\", name)\n    \
         live = torch_sdpa[\"live\"].numpy()[:, None, :, None]  # rows with a key to attend to\n    \
         sdpa = np.where(live, torch_sdpa[\"context\"].detach().numpy(), EXPECTED[\"context\"])\n    \
         report(*compare(sdpa, EXPECTED[\"context\"]), \"torch\", \"F.scaled_dot_product_attention\")\n    \
         if \"decoded\" in torch_sdpa:\n        \
         report(*compare(torch_sdpa[\"decoded\"].detach().numpy(), EXPECTED[\"context\"]), \"torch\", \"decoded, causal_lower_right\")\n\
         print(f\"{{passed}} passed, {{failed}} failed\")\n"
    );
    match target {
        Target::Script => c.push_str("sys.exit(1 if failed else 0)\n"),
        Target::Notebook => c.push_str("assert failed == 0, f\"{failed} checks failed\"\n"),
    }
    Section::new(
        "Check every step against the page",
        vec![format!(
            "NaN equals NaN; other numbers must agree to {RTOL:e} relative (or {ATOL:e} times the step's largest \
             magnitude). The NumPy results above were computed from the inputs, never copied from EXPECTED."
        )],
        c,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::MaskConfig;

    fn bat(fill: Fill) -> Scenario {
        let mut s = Scenario::identity(&["I bought a baseball bat", "the bat flew"], 3, 1);
        s.embeddings.insert("baseball".into(), vec![2.0, 0.0, 0.0]);
        s.embeddings.insert("bat".into(), vec![1.0, 1.0, 0.0]);
        s.mask = MaskConfig { causal: true, padding: Padding::KeysAndQueries, fill, window: None };
        s
    }

    fn seeded_cross() -> Scenario {
        let mut s = Scenario::identity(&["the cat sat down today", "dogs run"], 4, 2);
        s.kv_sentences =
            Some(vec!["le chat s'est assis".into(), "les chiens courent vite dans le parc".into()]);
        s.projections = Projections::Named(ProjectionKind::Seeded);
        s.seed = 3;
        s.positional = Positional::Sinusoidal;
        s.mask =
            MaskConfig { causal: true, padding: Padding::KeysAndQueries, fill: Fill::NegInf, window: None };
        s
    }

    /// The numbers of `name = np.array([...]).reshape(...)` or `numbers("""...""")`.
    fn parse_array(script: &str, name: &str) -> Vec<f64> {
        let start =
            script.find(&format!("{name} = ")).unwrap_or_else(|| panic!("no {name}")) + name.len() + 3;
        let rest = &script[start..];
        let (body, text) = if let Some(r) = rest.strip_prefix("np.array([") {
            (&r[..r.find("]).reshape(").unwrap()], false)
        } else {
            let r = rest.strip_prefix("numbers(\"\"\"").unwrap();
            (&r[..r.find("\"\"\")").unwrap()], true)
        };
        let sep = |c: char| if text { c.is_whitespace() } else { c == ',' || c.is_whitespace() };
        body.split(sep)
            .filter(|t| !t.is_empty())
            .map(|t| match t {
                "float('nan')" | "nan" => f64::NAN,
                "float('-inf')" | "-inf" => f64::NEG_INFINITY,
                "float('inf')" | "inf" => f64::INFINITY,
                _ => t.parse().unwrap_or_else(|_| panic!("{t:?} in {name}")),
            })
            .collect()
    }

    fn same_bits(a: &[f64], b: impl Iterator<Item = f64>) -> bool {
        let b: Vec<f64> = b.collect();
        a.len() == b.len()
            && a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    }

    #[test]
    fn script_has_every_step_in_order_with_its_pytorch_line() {
        let s = bat(Fill::NegInf);
        let trace = crate::run(&s).unwrap();
        let script = python_script(&s, &trace);
        assert!(script.starts_with("#!/usr/bin/env python3\n"));
        let mut at = 0;
        for step in &trace.steps {
            let name = step.name.as_str();
            let heading = format!("\n# ── {name} ─");
            let pos =
                script[at..].find(&heading).unwrap_or_else(|| panic!("no section {name} after {at}")) + at;
            at = pos + heading.len();
            let section = &script[pos..pos + script[pos + 1..].find("\n# ── ").unwrap() + 1];
            assert!(section.contains(&format!("# PyTorch: `{}`", step.pytorch)), "{section}");
            assert!(section.contains(&format!("numpy_steps[\"{name}\"] = {name}\n")), "{section}");
            assert!(script.contains(&format!("EXPECTED[\"{name}\"] = ")), "{name}");
        }
        // The mask is rebuilt from the lengths, not copied; the check ends with the summary.
        assert!(script.contains("lengths = [5, 3]"));
        assert!(script.contains("mask |= np.triu(np.ones((T, T_k), dtype=bool), k=1)"));
        assert!(
            script.contains("print(f\"{passed} passed, {failed} failed\")\nsys.exit(1 if failed else 0)\n")
        );
        assert!(script.contains("fill = float('-inf')"));
        assert!(script.contains("scores = scores.masked_fill(mask.unsqueeze(1), float('-inf'))"));
        assert!(script.contains("q = q.view(B, T, h, d_k).transpose(1, 2)"));
        assert!(script.contains("weights = scores.softmax(dim=-1)"));
        assert!(script.contains("W_q = np.eye(d_model)"));
        // Fully masked rows under -inf: NaN written as float('nan').
        assert!(trace.nan_rows.len() == 2 && script.contains("float('nan')"));
        // The numpy pipeline never reads EXPECTED: EXPECTED comes after it.
        let first_expected = script.find("EXPECTED[").unwrap();
        assert!(script.rfind("numpy_steps[\"output\"] = output").unwrap() < first_expected);
    }

    #[test]
    fn numbers_and_weights_round_trip_bit_for_bit() {
        let s = seeded_cross();
        let trace = crate::run(&s).unwrap();
        let script = python_script(&s, &trace);
        for step in &trace.steps {
            let got = parse_array(&script, &format!("EXPECTED[\"{}\"]", step.name));
            assert!(same_bits(&got, step.data.iter().copied()), "{}", step.name);
        }
        let w = &trace.params;
        for (name, layer) in [("W_q", &w.q), ("W_k", &w.k), ("W_v", &w.v), ("W_o", &w.o)] {
            let got = parse_array(&script, name);
            assert!(same_bits(&got, layer.w().iter().copied()), "{name}");
        }
        assert!(script.contains("b_q = np.zeros(d_model)  # exactly zero"));
        assert!(script.contains("seed 3"));
        // Cross-attention: keys from x_kv (with positions), T_k of its own, a T_q × T_k mask.
        assert!(script.contains("T_k = 7"));
        assert!(script.contains("k = x_kv_pe @ W_k + b_k"));
        assert!(script.contains("x_kv_pe = x_kv + sinusoidal(T_k, d_model)"));
        assert!(script.contains("kv_tokens = ["));
        assert!(script.contains(".reshape(B, h, T, T_k)"));
        let mask_rows = script.matches("\n    \"").count();
        assert!(mask_rows >= 2 * 5, "{mask_rows}");
    }

    #[test]
    fn big_arrays_are_text_blocks_that_round_trip() {
        let values: Vec<f64> = (0..LITERAL_LIMIT + 3)
            .map(|i| match i {
                0 => f64::NAN,
                1 => f64::NEG_INFINITY,
                2 => -1e9,
                _ => (i as f64).sqrt() * 1e-7 - 0.3,
            })
            .collect();
        let text = py_array(&values, 8, "B, T, d_model", 0);
        assert!(text.starts_with("numbers(\"\"\"\nnan -inf -1000000000.0 "), "{}", &text[..40]);
        let got = parse_array(&format!("A = {text}"), "A");
        assert!(same_bits(&got, values.iter().copied()));
        let small = py_array(&values[..6], 3, "2, 3", 0);
        assert_eq!(
            small,
            format!(
                "np.array([\n    float('nan'), float('-inf'), -1000000000.0,\n    {:?}, {:?}, {:?},\n]).reshape(2, 3)",
                values[3], values[4], values[5]
            )
        );
        assert_eq!(py_number(0.1), "0.1");
        assert_eq!(py_number(1e-7), "1e-7");
        assert_eq!(py_number(f64::INFINITY), "float('inf')");
        assert_eq!("1e-7".parse::<f64>().unwrap(), 1e-7);
    }

    #[test]
    fn notebook_is_valid_nbformat_with_words_before_every_step() {
        let s = bat(Fill::LargeNegative);
        let trace = crate::run(&s).unwrap();
        let nb: Value = serde_json::from_str(&notebook(&s, &trace)).unwrap();
        assert_eq!(nb["nbformat"], 4);
        assert_eq!(nb["nbformat_minor"], 4);
        let cells = nb["cells"].as_array().unwrap();
        let mut code = String::new();
        for cell in cells {
            let source = cell["source"].as_array().unwrap();
            let lines: Vec<&str> = source.iter().map(|l| l.as_str().unwrap()).collect();
            for l in &lines[..lines.len().saturating_sub(1)] {
                assert!(l.ends_with('\n'), "{l:?}");
            }
            assert!(!lines.last().unwrap().ends_with('\n'));
            assert!(cell["metadata"].is_object());
            match cell["cell_type"].as_str().unwrap() {
                "code" => {
                    assert!(cell["execution_count"].is_null());
                    assert_eq!(cell["outputs"], json!([]));
                    code.push_str(&lines.concat());
                    code.push('\n');
                }
                "markdown" => assert!(cell.get("outputs").is_none()),
                other => panic!("cell type {other}"),
            }
        }
        for step in &trace.steps {
            let heading = format!("### {}", step.name);
            let i = cells
                .iter()
                .position(|c| c["source"][0].as_str().map(str::trim_end) == Some(heading.as_str()))
                .unwrap();
            let md: String =
                cells[i]["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
            let words = step.name.words(3, 1, 3, Fill::LargeNegative);
            assert!(md.contains(&markdown(&words)), "{md}");
            assert_eq!(cells[i + 1]["cell_type"], "code");
            assert!(code.contains(&format!("numpy_steps[\"{}\"]", step.name)));
        }
        assert!(code.contains("import matplotlib.pyplot as plt"));
        assert!(code.contains("scores.masked_fill(mask.unsqueeze(1), -1e9)"));
        assert!(code.trim_end().ends_with("assert failed == 0, f\"{failed} checks failed\""));
        // The notebook's code is the script's, but for the heatmap and the last line.
        let script = python_script(&s, &trace);
        assert!(script.contains(&code[code.find("EXPECTED = {}").unwrap()..code.find("RTOL").unwrap()]));
    }

    #[test]
    fn markdown_and_comments() {
        assert_eq!(markdown("padded with <pad>, `x <pad>` *"), "padded with &lt;pad&gt;, `x <pad>` \\*");
        assert_eq!(wrap("  aa bb cc", 7), vec!["  aa bb", "    cc"]);
        let s = bat(Fill::NegInf);
        let script = python_script(&s, &crate::run(&s).unwrap());
        let comments = script.lines().filter(|l| l.starts_with('#'));
        assert!(comments.clone().all(|l| l.chars().count() <= 100), "a comment line is too long");
        assert!(comments.clone().any(|l| l.contains("2 query row(s) are blocked entirely")));
        // A sentence with a quote and a newline stays one line of valid Python.
        let mut odd = Scenario::identity(&["say \"hi\"\nnow"], 2, 1);
        odd.mask = MaskConfig::default();
        let script = python_script(&odd, &crate::run(&odd).unwrap());
        assert!(script.contains(r#"sentences = ["say \"hi\"\nnow"]"#));
    }
}
