#!/usr/bin/env python3
"""Independent numpy reference for Attention Lens.

Computes multi-head scaled dot-product attention (self- or cross-attention, with or
without sinusoidal positions) step by step, in float64, for a "scenario" JSON file,
and prints the full trace as an "expected" JSON file. The Rust engine's tests
(crates/engine/tests/engine.rs) compare their own trace against these files, to
1e-12. This script deliberately shares no code with the Rust engine: it follows the
formulas of "Attention Is All You Need" and the PyTorch idioms of the seeds.

Usage
-----
    # one scenario -> expected trace on stdout
    python3 tools/numpy_reference.py scenario.json > expected.json

    # rewrite every crates/engine/tests/fixtures/NAME.expected.json from NAME.scenario.json
    python3 tools/numpy_reference.py --regenerate

    # re-create the fixture *scenarios* (seeded RNG), then regenerate them
    python3 tools/numpy_reference.py --make-scenarios
    python3 tools/numpy_reference.py --regenerate

Requires numpy (see tools/requirements.txt).

Scenario format (input)
-----------------------
    { "sentences": ["the cat sat", "a dog"], "d_model": 4, "n_heads": 2,
      "kv_sentences": ["le chat", "un chien noir"],          (optional: cross-attention)
      "positional": "none|sinusoidal",                       (optional, default none)
      "embeddings": {"the": [...d_model floats...], ..., "<pad>": [...optional...]},
      "projections": {"w_q": [[...]], "b_q": [...], ..., "w_o": [[...]], "b_o": [...]}
                     or "identity",
      "mask": {"causal": false, "padding": "none|keys|keys_and_queries",
               "fill": "neg_inf|large_negative"} }

Projections follow the paper: y = x @ W + b, with W[i][j], i = input dim.

Sentences are split on white space and every word must have an explicit embedding:
the engine's own tokenizer (Unicode word boundaries) and toy embeddings are not
re-implemented, so fixture sentences use plain lower-case words only.

Cross-attention: queries come from "sentences", keys and values from "kv_sentences"
(one per query sentence), each side padded to its own longest sentence, so the
scores and the mask are (B, h, T_q, T_k) and (B, T_q, T_k). Causal blocks key j > query
i; "keys" padding blocks the key sentences' <pad>s; "keys_and_queries" also blocks
whole rows of <pad> queries.

Positions: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(same),
pos from 0, added at every position (<pad> too); for an odd d_model the last column
is a sine. In cross-attention the key/value side counts its own positions from 0.

Expected format (output)
------------------------
    { "tokens": [["the","cat","sat"], ["a","dog","<pad>"]],
      "kv_tokens": [...]                                     (cross-attention only)
      "mask": {"shape": [B,T_q,T_k], "blocked": [true, false, ...]},
      "fully_masked_rows": [[b, i], ...],
      "steps": [{"name": "x", "shape": [B,T,d_model], "data": [...C order...]}, ...] }

    steps: x, [pe (1,T_q,d_model), x_pe], [x_kv, [x_kv_pe]], q, k, v, q_heads, k_heads,
    v_heads, [q_norm, k_norm], [q_rot, k_rot], [k_rep, v_rep], scores, scaled, [capped],
    [alibi, biased], masked,
    weights, context, concat, output.

Today's options: "n_kv_heads" (grouped-query attention: W_K, W_V are (d_model,
n_kv_heads*d_k), each key/value head repeated for its group of query heads),
"rope": {"style": "half|interleaved", "base", "fraction", "scaling"} (written here as a
complex product; with a fraction only the first int(d_k * fraction) dimensions turn; a
scaling {"type": "linear"|"llama3", ...} scales each frequency as transformers'
modeling_rope_utils.py does),
"alibi": true (the paper's slopes and m*(j - i); -m*|i - j| without a causal mask, the
symmetric form of bidirectional ALiBi), "mask": {..., "window": W, "keep_first": n} (a
window, and StreamingLLM's first n keys kept visible beside it), "scale": s (the
scores times s in place of / sqrt(d_k)), "softcap": c (c * tanh(s / c) on the scaled
scores, before ALiBi's bias and the mask), "qk_norm": {"q_weight", "k_weight", "eps"}
(RMSNorm of every query and key head, before RoPE), "d_head": d_k (a head size of its own:
W_Q (d_model, h*d_k), W_O (h*d_k, d_model)), "sinks": [s_1, ..., s_h] (gpt-oss:
each head's logit one more column of the softmax, dropped after it, so a row sums to less
than 1 and a fully blocked row is 0, not NaN).

Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".
"""

import json
import math
import re
import sys
from pathlib import Path

import numpy as np

PAD = "<pad>"
FILL_VALUES = {"neg_inf": -np.inf, "large_negative": -1e9}
PROJECTION_NAMES = ["q", "k", "v", "o"]
FIXTURE_DIR = Path(__file__).resolve().parent.parent / "crates" / "engine" / "tests" / "fixtures"
PLAIN_WORD = re.compile(r"[a-z0-9]+")


# ---------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------

def tokenize(sentences):
    """Split on whitespace and pad every sentence at the end to the longest length.

    Only plain lower-case words are accepted: for them, white space and the engine's
    Unicode word boundaries agree, and the lookup needs no case folding.
    """
    tokens = [sentence.split() for sentence in sentences]
    if not tokens or any(not t for t in tokens):
        raise ValueError("every sentence needs at least one word")
    odd = sorted({w for t in tokens for w in t if not PLAIN_WORD.fullmatch(w)})
    if odd:
        raise ValueError(f"fixture words must be plain lower-case words, not {odd}")
    T = max(len(t) for t in tokens)
    return [t + [PAD] * (T - len(t)) for t in tokens]


def embed(tokens, embeddings, d_model):
    """Look up each token; <pad> is the zero vector unless given explicitly."""
    table = {word: np.array(vec, dtype=np.float64) for word, vec in embeddings.items()}
    table.setdefault(PAD, np.zeros(d_model))
    for word, vec in table.items():
        if vec.shape != (d_model,):
            raise ValueError(f"embedding of {word!r} has shape {vec.shape}, expected ({d_model},)")
    missing = sorted({t for row in tokens for t in row if t not in table})
    if missing:
        raise ValueError(f"no embedding for: {missing}")
    return np.array([[table[t] for t in row] for row in tokens])


def load_projections(projections, d_model, kv_width=None, q_width=None):
    """Return {"q": (W, b), "k": ..., "v": ..., "o": ...}: W_Q of shape (d_model, q_width)
    and W_O (q_width, d_model), q_width = h * d_k (d_model unless the heads have a size of
    their own), W_K and W_V of shape (d_model, kv_width), kv_width = h_kv * d_k."""
    kv_width = d_model if kv_width is None else kv_width
    q_width = d_model if q_width is None else q_width
    shape = {"q": (d_model, q_width), "k": (d_model, kv_width), "v": (d_model, kv_width), "o": (q_width, d_model)}
    if projections == "identity":
        return {n: (np.eye(*shape[n]), np.zeros(shape[n][1])) for n in PROJECTION_NAMES}
    result = {}
    for n in PROJECTION_NAMES:
        W = np.array(projections[f"w_{n}"], dtype=np.float64)
        b = np.array(projections[f"b_{n}"], dtype=np.float64)
        if W.shape != shape[n] or b.shape != (shape[n][1],):
            raise ValueError(f"w_{n}/b_{n} have shapes {W.shape}/{b.shape}")
        result[n] = (W, b)
    return result


def rope_scaled(theta, scaling, base=10000.0):
    """The frequencies theta (one per pair, pair p at index p) under RoPE's scaling: "linear"
    divides them by its factor; "llama3" (transformers' _compute_llama3_parameters) divides those
    whose wavelength 2 pi / theta is over original_max_position_embeddings / low_freq_factor, keeps
    those under original_max_position_embeddings / high_freq_factor, and blends between; "yarn"
    (the YaRN paper's ramp over pair indices between the beta_fast and beta_slow turns in
    original_max_position_embeddings, rounded out unless truncate is false) needs the base."""
    if scaling is None:
        return theta
    kind, factor = scaling["type"], scaling["factor"]
    if kind == "linear":
        return theta / factor
    if kind == "yarn":
        dim, old = 2 * len(theta), scaling["original_max_position_embeddings"]
        turns_at = lambda turns: dim * math.log(old / (turns * 2 * math.pi)) / (2 * math.log(base))
        low, high = turns_at(scaling.get("beta_fast", 32.0)), turns_at(scaling.get("beta_slow", 1.0))
        if scaling.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        high = high + 0.001 if low == high else high
        ramp = np.clip((np.arange(len(theta)) - low) / (high - low), 0.0, 1.0)
        return theta / factor * ramp + theta * (1 - ramp)
    if kind != "llama3":
        raise ValueError(f"unknown RoPE scaling {kind!r}")
    low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    wavelen = 2 * np.pi / theta
    smooth = (old / wavelen - low) / (high - low)
    blended = (1 - smooth) * theta / factor + smooth * theta
    return np.where(wavelen < old / high, theta, np.where(wavelen > old / low, theta / factor, blended))


def rope_attention_factor(scaling):
    """What the turned dimensions are multiplied by: YaRN's attention_factor, or when absent
    transformers' get_mscale(factor) = 0.1 ln(factor) + 1 (1 for a factor <= 1); 1 otherwise."""
    if scaling is None or scaling["type"] != "yarn":
        return 1.0
    if scaling.get("attention_factor") is not None:
        return scaling["attention_factor"]
    return 0.1 * math.log(scaling["factor"]) + 1.0 if scaling["factor"] > 1 else 1.0


def rope_rotate(x, style, base, scaling=None):
    """RoPE on (B, heads, T, d_k): pair p is the complex number x[a] + i x[b], turned by
    pos * base^(-2p/d_k) (scaled by rope_scaled). "half" pairs a = p with b = p + d_k/2
    (Hugging Face's rotate_half); "interleaved" pairs a = 2p with b = 2p + 1 (RoFormer,
    Meta's Llama)."""
    d_k = x.shape[-1]
    if d_k % 2:
        raise ValueError("RoPE needs an even d_k")
    p = np.arange(d_k // 2)
    a, b = (p, p + d_k // 2) if style == "half" else (2 * p, 2 * p + 1)
    if style not in ("half", "interleaved"):
        raise ValueError(f"unknown RoPE style {style!r}")
    pos = np.arange(x.shape[2], dtype=np.float64)[:, None]        # (T, 1)
    z = (x[..., a] + 1j * x[..., b]) * np.exp(1j * pos * rope_scaled(base ** (-2.0 * p / d_k), scaling, base))
    z = z * rope_attention_factor(scaling)
    out = np.empty_like(x)
    out[..., a], out[..., b] = z.real, z.imag
    return out


def alibi_slopes(n):
    """The ALiBi paper's slopes (Press et al., github.com/ofirpress/attention_with_linear_biases)."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def sinusoidal(T, d_model):
    """(T, d_model) table: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...)."""
    pos = np.arange(T, dtype=np.float64)[:, None]            # (T, 1)
    col = np.arange(d_model)[None, :]                        # (1, d_model)
    two_i = (col // 2) * 2                                   # 2i for both columns 2i and 2i+1
    angle = pos / np.power(10000.0, two_i / d_model)
    return np.where(col % 2 == 0, np.sin(angle), np.cos(angle))


def blocked_mask(q_tokens, kv_tokens, causal, padding, window=None, keep_first=0):
    """Boolean (B,T_q,T_k) mask: True where query i may NOT attend to key j."""
    q_pad = np.array([[t == PAD for t in row] for row in q_tokens])    # (B,T_q)
    k_pad = np.array([[t == PAD for t in row] for row in kv_tokens])   # (B,T_k)
    (B, T_q), T_k = q_pad.shape, k_pad.shape[1]
    blocked = np.zeros((B, T_q, T_k), dtype=bool)
    if causal:
        blocked |= np.triu(np.ones((T_q, T_k), dtype=bool), k=1)  # key j > query i
    if window is not None:
        i, j = np.arange(T_q)[:, None], np.arange(T_k)[None, :]
        # Mistral's window with causal: i - W < j <= i; without causal: |i - j| < W
        outside = (i - j >= window) if causal else (np.abs(i - j) >= window)
        # StreamingLLM (Xiao et al. 2023): the first keep_first keys stay visible beside the window
        blocked |= outside & (j >= keep_first)
    if padding in ("keys", "keys_and_queries"):
        blocked |= k_pad[:, None, :]  # no query attends to a <pad> key
    if padding == "keys_and_queries":
        blocked |= q_pad[:, :, None]  # a <pad> query row is fully blocked
    elif padding not in ("none", "keys"):
        raise ValueError(f"unknown padding mode {padding!r}")
    return blocked


# ---------------------------------------------------------------------------
# Computation
# ---------------------------------------------------------------------------

def softmax(x):
    """Row-wise softmax with max subtraction.

    A row that is entirely -inf gives NaN everywhere (exp(-inf - (-inf)) = NaN),
    exactly as PyTorch does; the numpy warnings for this are silenced.
    """
    with np.errstate(invalid="ignore"):
        shifted = x - x.max(axis=-1, keepdims=True)
        e = np.exp(shifted)
        return e / e.sum(axis=-1, keepdims=True)


def attention_trace(scenario):
    """Run the scenario; return (tokens, kv_tokens or None, blocked mask, [(name, array)])."""
    d_model, h = scenario["d_model"], scenario["n_heads"]
    d_k = scenario.get("d_head")  # a head size of its own; else d_model / h
    if d_k is None:
        if d_model % h != 0:
            raise ValueError("d_model must be divisible by n_heads")
        d_k = d_model // h
    h_kv = scenario.get("n_kv_heads", h)
    if h % h_kv != 0:
        raise ValueError("n_kv_heads must divide n_heads")
    rope = scenario.get("rope")
    alibi = scenario.get("alibi", False)
    positional = scenario.get("positional", "none")
    if positional not in ("none", "sinusoidal"):
        raise ValueError(f"unknown positional encoding {positional!r}")
    cross = scenario.get("kv_sentences") is not None

    tokens = tokenize(scenario["sentences"])
    kv_tokens = tokenize(scenario["kv_sentences"]) if cross else tokens
    if len(kv_tokens) != len(tokens):
        raise ValueError("kv_sentences needs one sentence per query sentence")
    B, T_q, T_k = len(tokens), len(tokens[0]), len(kv_tokens[0])
    mla = scenario.get("mla")
    if mla is not None:  # DeepSeek's head sizes: d_k = d_nope + d_rope for queries and keys
        d_k = mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"]
    mask_cfg = scenario["mask"]
    if mask_cfg.get("keep_first") is not None and mask_cfg.get("window") is None:
        raise ValueError("keep_first needs a window")
    blocked = blocked_mask(tokens, kv_tokens, mask_cfg["causal"], mask_cfg["padding"], mask_cfg.get("window"),
                           mask_cfg.get("keep_first") or 0)
    fill = FILL_VALUES[mask_cfg["fill"]]

    steps = []
    x = embed(tokens, scenario["embeddings"], d_model)
    steps.append(("x", x))
    if positional == "sinusoidal":
        pe = sinusoidal(T_q, d_model)[None, :, :]  # (1,T_q,d_model), broadcast over B
        x = x + pe
        steps += [("pe", pe), ("x_pe", x)]
    x_kv = x
    if cross:
        x_kv = embed(kv_tokens, scenario["embeddings"], d_model)
        steps.append(("x_kv", x_kv))
        if positional == "sinusoidal":
            x_kv = x_kv + sinusoidal(T_k, d_model)[None, :, :]  # key positions from 0
            steps.append(("x_kv_pe", x_kv))

    if mla is not None:
        q_att, k_att, v_att, out_proj, mla_steps = mla_heads(mla, x, x_kv, h, rope)
        steps += mla_steps
        d_v = mla["v_head_dim"]
    else:
        proj = load_projections(scenario["projections"], d_model, h_kv * d_k, h * d_k)
        q_att, k_att, v_att, more = standard_heads(scenario, proj, x, x_kv, h, h_kv, d_k)
        steps += more
        out_proj, d_v = proj["o"], d_k
    scores = q_att @ k_att.swapaxes(-1, -2)  # (B,h,T_q,T_k)
    # Gemma 2: a scale of its own (query_pre_attn_scalar ** -0.5) in place of 1 / sqrt(d_k)
    scale = scenario.get("scale")
    if mla is not None and mla.get("mscale_all_dim"):  # DeepSeek: times YaRN's mscale squared
        factor = rope["scaling"]["factor"]
        m = 0.1 * mla["mscale_all_dim"] * math.log(factor) + 1.0 if factor > 1 else 1.0
        scale = (scale if scale is not None else d_k ** -0.5) * m * m
    scaled = scores * scale if scale is not None else scores / math.sqrt(d_k)
    steps += [("scores", scores), ("scaled", scaled)]
    return attention_tail(scenario, steps, scaled, v_att, out_proj, blocked, fill, tokens, kv_tokens, cross,
                          (B, T_q, T_k, h, d_v))


def mla_heads(mla, x, x_kv, h, rope):
    """DeepSeek-V3's multi-head latent attention, as the paper writes it (arXiv 2405.04434,
    eqs. 9-19) with Hugging Face's layouts: returns the queries, keys and values the scores
    read, W_O, and the steps."""
    w = mla["weights"]
    eps = mla.get("eps", 1e-6)
    r_kv, d_nope, d_rope, d_v = mla["kv_lora_rank"], mla["qk_nope_head_dim"], mla["qk_rope_head_dim"], mla["v_head_dim"]
    B, T_q, T_k = x.shape[0], x.shape[1], x_kv.shape[1]

    def lin(a, name_w, name_b):
        W = np.array(w[name_w], dtype=np.float64)
        b = np.array(w.get(name_b) or np.zeros(W.shape[1]), dtype=np.float64)
        return a @ W + b

    def rms(a, name):
        weight = np.array(w.get(name) or np.ones(a.shape[-1]), dtype=np.float64)
        return weight * (a / np.sqrt(np.mean(a ** 2, axis=-1, keepdims=True) + eps))

    steps = []
    if mla.get("q_lora_rank"):
        c_q = lin(x, "w_q_a", "b_q_a")
        c_q_norm = rms(c_q, "q_a_norm")
        q = lin(c_q_norm, "w_q_b", "b_q_b")
        steps += [("q_a", c_q), ("q_a_norm", c_q_norm)]
    else:
        q = lin(x, "w_q", "b_q")
    kv_a = lin(x_kv, "w_kv_a", "b_kv_a")
    c_kv = rms(kv_a[..., :r_kv], "kv_a_norm")
    k_pe = kv_a[:, None, :, r_kv:]                                  # (B,1,T_k,d_rope)
    kv_b = lin(c_kv, "w_kv_b", "b_kv_b")
    q_heads = q.reshape(B, T_q, h, d_nope + d_rope).transpose(0, 2, 1, 3)
    kv_heads = kv_b.reshape(B, T_k, h, d_nope + d_v).transpose(0, 2, 1, 3)
    k_nope, v = kv_heads[..., :d_nope], kv_heads[..., d_nope:]
    steps += [("q", q), ("kv_a", kv_a), ("c_kv", c_kv), ("k_pe", k_pe), ("kv_b", kv_b), ("q_heads", q_heads),
              ("k_nope", k_nope), ("v_heads", v)]
    q_rope, k_rope = q_heads[..., d_nope:], k_pe
    if rope is not None:
        # interleaved: turn the pairs (2i, 2i+1) in place, then write evens, then odds (DeepSeek-V3),
        # or leave them where they turned (DeepSeek-V2, rope_in_place)
        gather = rope["style"] == "interleaved" and not mla.get("rope_in_place", False)

        def turn(a):
            out = rope_rotate(a, rope["style"], rope.get("base", 10000.0), rope.get("scaling"))
            return np.concatenate([out[..., 0::2], out[..., 1::2]], axis=-1) if gather else out

        q_rope, k_rope = turn(q_rope), turn(k_rope)
        q_heads = np.concatenate([q_heads[..., :d_nope], q_rope], axis=-1)
        steps += [("q_rot", q_rope), ("k_rot", k_rope), ("q_cat", q_heads)]
    k = np.concatenate([k_nope, np.broadcast_to(k_rope, (B, h, T_k, d_rope))], axis=-1)
    steps += [("k_cat", k)]
    out_proj = (np.array(w["w_o"], dtype=np.float64), np.array(w.get("b_o") or np.zeros(x.shape[-1])))
    return q_heads, k, v, out_proj, steps


def standard_heads(scenario, proj, x, x_kv, h, h_kv, d_k):
    """The queries, keys and values of multi-head (grouped-query) attention, and the steps."""
    B = x.shape[0]
    rope = scenario.get("rope")

    def split_heads(a, heads=h):  # (B,T,heads*d_k) -> (B,heads,T,d_k)
        return a.reshape(B, a.shape[1], heads, d_k).transpose(0, 2, 1, 3)

    steps = []
    q = x @ proj["q"][0] + proj["q"][1]        # (B,T_q,d_model)
    k = x_kv @ proj["k"][0] + proj["k"][1]     # (B,T_k,d_model)
    v = x_kv @ proj["v"][0] + proj["v"][1]
    q_heads, k_heads, v_heads = split_heads(q), split_heads(k, h_kv), split_heads(v, h_kv)
    steps += [("q", q), ("k", k), ("v", v), ("q_heads", q_heads), ("k_heads", k_heads), ("v_heads", v_heads)]
    q_att, k_att, v_att = q_heads, k_heads, v_heads
    qk_norm = scenario.get("qk_norm")
    if qk_norm is not None:  # RMSNorm of every head row, times a weight of d_k (ones if absent)
        eps = qk_norm.get("eps", 1e-6)

        def rms_norm(x, w):
            w = np.array(w, dtype=np.float64) if w else np.ones(x.shape[-1])
            return w * x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)

        def whole(x, w):  # OLMo 2: over each token's whole projection, (B, T, heads·d_k), then split again
            b_, n_, t_, d_ = x.shape
            flat = rms_norm(x.transpose(0, 2, 1, 3).reshape(b_, t_, n_ * d_), w)
            return flat.reshape(b_, t_, n_, d_).transpose(0, 2, 1, 3)

        norm = whole if qk_norm.get("whole_projection") else rms_norm
        q_att, k_att = norm(q_att, qk_norm.get("q_weight")), norm(k_att, qk_norm.get("k_weight"))
        steps += [("q_norm", q_att), ("k_norm", k_att)]
    if rope is not None:
        base = rope.get("base", 10000.0)
        r = int(d_k * rope["fraction"]) if rope.get("fraction") is not None else d_k  # as HF's int(head_dim * f)

        def turn(x):  # the first r dimensions turn as a head of width r; the rest pass
            return np.concatenate([rope_rotate(x[..., :r], rope["style"], base, rope.get("scaling")), x[..., r:]], axis=-1)

        q_att, k_att = turn(q_att), turn(k_att)
        steps += [("q_rot", q_att), ("k_rot", k_att)]
    if h_kv != h:
        # query head i reads key/value head i // (h // h_kv), as repeat_interleave does
        group = [i // (h // h_kv) for i in range(h)]
        k_att, v_att = k_att[:, group], v_att[:, group]
        steps += [("k_rep", k_att), ("v_rep", v_att)]
    return q_att, k_att, v_att, steps


def attention_tail(scenario, steps, scaled, v_att, out_proj, blocked, fill, tokens, kv_tokens, cross, sizes):
    """Softcap, ALiBi, mask, softmax (with sinks), context, concat and output."""
    B, T_q, T_k, h, d_v = sizes
    mask_cfg = scenario["mask"]
    alibi = scenario.get("alibi", False)
    softcap = scenario.get("softcap")
    if softcap is not None:  # logit softcapping, as Gemma 2 writes it: divide, tanh, multiply
        scaled = np.tanh(scaled / softcap) * softcap
        steps += [("capped", scaled)]
    if alibi:
        slopes = np.array(alibi_slopes(h))[None, :, None, None]
        j_minus_i = np.arange(T_k)[None, :] - np.arange(T_q)[:, None]
        # m (j - i) under a causal mask; -m |i - j| without one (bidirectional ALiBi, MosaicBERT)
        bias = slopes * (j_minus_i if mask_cfg["causal"] else -np.abs(j_minus_i))  # (1,h,T_q,T_k)
        scaled = scaled + bias
        steps += [("alibi", bias), ("biased", scaled)]
    # masked_fill: blocked scores are replaced (not added to); same mask for every head
    masked = np.where(blocked[:, None, :, :], fill, scaled)
    sinks = scenario.get("sinks")
    if sinks is None:
        weights = softmax(masked)
    else:  # gpt-oss: each head's sink logit is one more column of the softmax, then dropped
        sink = np.broadcast_to(np.array(sinks, dtype=float)[None, :, None, None], masked.shape[:-1] + (1,))
        weights = softmax(np.concatenate([masked, sink], axis=-1))[..., :-1]
    context = weights @ v_att  # (B,h,T_q,d_v); a NaN weights row gives a NaN context row
    concat = context.transpose(0, 2, 1, 3).reshape(B, T_q, h * d_v)  # h * d_k is d_model unless d_head or MLA
    output = concat @ out_proj[0] + out_proj[1]

    steps += [("masked", masked), ("weights", weights), ("context", context), ("concat", concat),
              ("output", output)]
    return tokens, (kv_tokens if cross else None), blocked, steps


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def number_to_json(value):
    """float64 -> JSON value; non-finite numbers become strings."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value  # json writes repr(float): full precision


def expected_document(scenario):
    tokens, kv_tokens, blocked, steps = attention_trace(scenario)
    fully_masked = [[int(b), int(i)] for b, i in zip(*np.nonzero(blocked.all(axis=-1)))]
    doc = {"tokens": tokens}
    if kv_tokens is not None:
        doc["kv_tokens"] = kv_tokens
    return doc | {
        "mask": {"shape": list(blocked.shape), "blocked": [bool(c) for c in blocked.ravel()]},
        "fully_masked_rows": fully_masked,
        "steps": [{"name": name,
                   "shape": list(array.shape),
                   "data": [number_to_json(c) for c in np.ascontiguousarray(array).ravel()]}
                  for name, array in steps],
    }


def to_json(obj, indent=0):
    """Pretty-print JSON, but keep lists of plain values on one line."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(key)}: {to_json(val, indent + 1)}" for key, val in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(e, (dict, list)) for e in obj):
        items = [inner + to_json(e, indent + 1) for e in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, allow_nan=False)


def sanity_check(doc, sinks=False):
    """Assert basic invariants of an expected document (used by --regenerate); with attention
    sinks a row sums to less than 1."""
    steps = {s["name"]: s for s in doc["steps"]}
    B, T, T_k = doc["mask"]["shape"]
    blocked = np.array(doc["mask"]["blocked"]).reshape(B, T, T_k)
    w = steps["weights"]
    weights = np.array([np.nan if c == "NaN" else c for c in w["data"]], dtype=float).reshape(w["shape"])
    full = blocked.all(axis=-1)
    for b in range(B):
        for i in range(T):
            rows = weights[b, :, i, :]
            if full[b, i] and np.isnan(rows).all():
                continue  # fully masked with -inf: NaN row, as in PyTorch
            if sinks:
                assert np.all(rows >= 0.0) and np.all(rows.sum(axis=-1) < 1.0), (b, i)
            else:
                assert np.allclose(rows.sum(axis=-1), 1.0, atol=1e-12), (b, i)
            if not full[b, i]:
                assert np.all(rows[:, blocked[b, i]] == 0.0), (b, i)


def regenerate(fixture_dir=FIXTURE_DIR):
    for scenario_path in sorted(fixture_dir.glob("*.scenario.json")):
        name = scenario_path.name[: -len(".scenario.json")]
        scenario = json.loads(scenario_path.read_text())
        doc = expected_document(scenario)
        sanity_check(doc, "sinks" in scenario)
        (fixture_dir / f"{name}.expected.json").write_text(to_json(doc) + "\n")
        print(f"wrote {name}.expected.json", file=sys.stderr)


# ---------------------------------------------------------------------------
# Fixture scenarios (seeded, rounded to 4 decimals, written literally)
# ---------------------------------------------------------------------------

def make_scenarios(fixture_dir=FIXTURE_DIR, seed=20240601):
    rng = np.random.default_rng(seed)

    def rnd(shape, scale):
        return np.round(rng.normal(0.0, scale, size=shape), 4).tolist()

    def random_embeddings(sentences, d):
        words = sorted({w for s in sentences for w in s.split()})
        return {w: rnd(d, 1.0) for w in words}

    def random_projections(d):
        p = {}
        for n in PROJECTION_NAMES:
            p[f"w_{n}"] = rnd((d, d), 1.0 / math.sqrt(d))
            p[f"b_{n}"] = rnd(d, 0.1)
        return p

    def mask(causal, padding, fill):
        return {"causal": causal, "padding": padding, "fill": fill}

    scenarios = {}
    scenarios["baseball_bat"] = {
        "sentences": ["baseball bat"], "d_model": 3, "n_heads": 1,
        "embeddings": {"baseball": [2.0, 0.0, 0.0], "bat": [1.0, 1.0, 0.0]},
        "projections": "identity", "mask": mask(False, "none", "neg_inf")}

    s = ["zorp blick fen zorp quell mib tarn", "blick mib yon fen", "quell yon zorp dax fen wub"]
    scenarios["odd_sizes_keys"] = {
        "sentences": s, "d_model": 15, "n_heads": 3,
        "embeddings": random_embeddings(s, 15), "projections": random_projections(15),
        "mask": mask(False, "keys", "neg_inf")}

    s = ["this is a sample sequence", "the quick brown fox jumps over dogs"]
    causal_pad = {"sentences": s, "d_model": 8, "n_heads": 2,
                  "embeddings": random_embeddings(s, 8), "projections": random_projections(8)}
    scenarios["causal_pad_neg_inf"] = dict(causal_pad, mask=mask(True, "keys_and_queries", "neg_inf"))
    scenarios["causal_pad_large_negative"] = dict(causal_pad, mask=mask(True, "keys_and_queries", "large_negative"))

    s = ["one two three four five six"]
    scenarios["identity_multihead"] = {
        "sentences": s, "d_model": 6, "n_heads": 3,
        "embeddings": random_embeddings(s, 6), "projections": "identity",
        "mask": mask(True, "none", "neg_inf")}

    # New scenarios go below, so the RNG stream (and the scenarios above) stay as they were.

    # Cross-attention, B=2, T_q=6 != T_k=5, padding on both sides: sentence 1 has <pad>
    # queries (fully blocked rows under keys_and_queries: NaN with -inf), sentence 0 has
    # <pad> keys.
    q, kv = ["the cat sat on the mat", "a dog ran"], ["le chat", "un chien noir court vite"]
    cross = {"sentences": q, "kv_sentences": kv, "d_model": 6, "n_heads": 2,
             "embeddings": random_embeddings(q + kv, 6), "projections": random_projections(6)}
    scenarios["cross_causal_pad_neg_inf"] = dict(cross, mask=mask(True, "keys_and_queries", "neg_inf"))
    scenarios["cross_causal_pad_large_negative"] = dict(cross, mask=mask(True, "keys_and_queries", "large_negative"))

    # Cross-attention with positions: x_kv_pe counts the key sentences' positions from 0.
    # The bat question and its key sentences: the cross-attention of several scenarios below.
    bat_q, bat_kv = ["where is the bat", "who"], ["the bat is in the bag", "nobody knows"]
    scenarios["cross_sinusoidal_keys"] = {
        "sentences": bat_q, "kv_sentences": bat_kv, "d_model": 8, "n_heads": 2,
        "embeddings": random_embeddings(bat_q + bat_kv, 8), "projections": random_projections(8),
        "mask": mask(False, "keys", "neg_inf"), "positional": "sinusoidal"}

    # Self-attention with positions and an odd d_model (its last column is a sine), and a
    # non-zero <pad> vector (positions are added at <pad> too).
    s = ["zorp blick fen zorp quell", "mib tarn"]
    emb = random_embeddings(s, 15)
    emb[PAD] = rnd(15, 1.0)
    scenarios["sinusoidal_odd_d15"] = {
        "sentences": s, "d_model": 15, "n_heads": 3,
        "embeddings": emb, "projections": random_projections(15),
        "mask": mask(True, "keys", "neg_inf"), "positional": "sinusoidal"}

    s = ["alpha beta gamma delta", "beta"]
    scenarios["sinusoidal_d5_h1"] = {
        "sentences": s, "d_model": 5, "n_heads": 1,
        "embeddings": random_embeddings(s, 5), "projections": random_projections(5),
        "mask": mask(False, "keys_and_queries", "large_negative"), "positional": "sinusoidal"}

    # The smallest widths: d_model 1 (one head of width 1) and d_model 2 with h = 2.
    s = ["one two three", "four"]
    scenarios["d_model_1"] = {
        "sentences": s, "d_model": 1, "n_heads": 1,
        "embeddings": random_embeddings(s, 1), "projections": random_projections(1),
        "mask": mask(False, "keys", "neg_inf")}

    q, kv = ["up down", "left right strange"], ["charm", "top bottom top bottom"]
    scenarios["d_model_2_cross_sinusoidal"] = {
        "sentences": q, "kv_sentences": kv, "d_model": 2, "n_heads": 2,
        "embeddings": random_embeddings(q + kv, 2), "projections": random_projections(2),
        "mask": mask(True, "keys_and_queries", "neg_inf"), "positional": "sinusoidal"}

    # Today's models (added last, so the RNG stream above is unchanged): GQA with RoPE in
    # both pairings, ALiBi with a power-of-two and an odd number of heads, sliding windows
    # with and without causal, MQA in cross-attention.
    def projections_kv(d, kv):
        p = {}
        for n in PROJECTION_NAMES:
            out = kv if n in "kv" else d
            p[f"w_{n}"] = rnd((d, out), 1.0 / math.sqrt(d))
            p[f"b_{n}"] = rnd(out, 0.1)
        return p

    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["gqa_rope_half_window"] = {
        "sentences": s, "d_model": 8, "n_heads": 4, "n_kv_heads": 2,
        "rope": {"style": "half", "base": 10000.0},
        "embeddings": random_embeddings(s, 8), "projections": projections_kv(8, 4),
        "mask": dict(mask(True, "keys", "neg_inf"), window=3)}
    scenarios["gqa_rope_interleaved_alibi"] = {
        "sentences": s, "d_model": 8, "n_heads": 4, "n_kv_heads": 2,
        "rope": {"style": "interleaved", "base": 100.0}, "alibi": True, "positional": "sinusoidal",
        "embeddings": random_embeddings(s, 8), "projections": projections_kv(8, 4),
        "mask": mask(True, "keys_and_queries", "neg_inf")}
    s = ["zorp blick fen zorp quell mib tarn", "blick mib yon fen", "quell yon zorp"]
    scenarios["alibi_h3_window_both_sides"] = {
        "sentences": s, "d_model": 15, "n_heads": 3, "alibi": True,
        "embeddings": random_embeddings(s, 15), "projections": random_projections(15),
        "mask": dict(mask(False, "keys_and_queries", "large_negative"), window=2)}
    scenarios["mqa_cross_rope_window"] = {
        "sentences": bat_q, "kv_sentences": bat_kv, "d_model": 6, "n_heads": 3, "n_kv_heads": 1,
        "rope": {"style": "half", "base": 10000.0},
        "embeddings": random_embeddings(bat_q + bat_kv, 6), "projections": projections_kv(6, 2),
        "mask": dict(mask(True, "keys", "neg_inf"), window=2)}

    # Gemma 2's scores (added last, as above): a scale of its own and a softcap small enough
    # to bend every score, with GQA, RoPE and a causal window; and a softcap before ALiBi's
    # symmetric bias in cross-attention.
    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["gemma2_scale_softcap_window"] = {
        "sentences": s, "d_model": 8, "n_heads": 4, "n_kv_heads": 2, "scale": 0.3, "softcap": 0.75,
        "rope": {"style": "half", "base": 10000.0},
        "embeddings": random_embeddings(s, 8), "projections": projections_kv(8, 4),
        "mask": dict(mask(True, "keys", "neg_inf"), window=3)}
    scenarios["softcap_alibi_cross_both_sides"] = {
        "sentences": bat_q, "kv_sentences": bat_kv, "d_model": 6, "n_heads": 3, "alibi": True, "softcap": 2.0,
        "embeddings": random_embeddings(bat_q + bat_kv, 6), "projections": random_projections(6),
        "mask": mask(False, "keys_and_queries", "large_negative")}

    # QK-norm (Qwen3, Gemma 3), per head before RoPE, with GQA and interleaved RoPE.
    scenarios["qk_norm_gqa_rope_interleaved"] = {
        "sentences": ["the cat sat on the warm mat", "a dog ran"], "d_model": 8, "n_heads": 4, "n_kv_heads": 2,
        "rope": {"style": "interleaved", "base": 100.0},
        "qk_norm": {"q_weight": [1.5, 0.5], "k_weight": [0.75, 1.25], "eps": 0.01},
        "embeddings": random_embeddings(["the cat sat on the warm mat", "a dog ran"], 8),
        "projections": projections_kv(8, 4), "mask": mask(True, "keys_and_queries", "neg_inf")}

    # A rotary fraction (GPT-NeoX's rotary_pct): half of each head's 4 dimensions turn.
    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["rope_fraction_half_gqa"] = {
        "sentences": s, "d_model": 16, "n_heads": 4, "n_kv_heads": 2,
        "rope": {"style": "half", "base": 10000.0, "fraction": 0.5},
        "embeddings": random_embeddings(s, 16), "projections": projections_kv(16, 8),
        "mask": mask(True, "keys", "neg_inf")}

    # Attention sinks (gpt-oss): with GQA, RoPE, a causal window and padding of keys and
    # queries under -inf (a fully blocked row is 0, not NaN); and in cross-attention with
    # ALiBi, QK-norm, a scale and a softcap under -1e9.
    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["sinks_gqa_rope_window_pad"] = {
        "sentences": s, "d_model": 8, "n_heads": 4, "n_kv_heads": 2, "sinks": [0.5, -1.0, 2.0, 0.0],
        "rope": {"style": "half", "base": 10000.0},
        "embeddings": random_embeddings(s, 8), "projections": projections_kv(8, 4),
        "mask": dict(mask(True, "keys_and_queries", "neg_inf"), window=3)}
    scenarios["sinks_cross_alibi_norm_softcap"] = {
        "sentences": bat_q, "kv_sentences": bat_kv, "d_model": 6, "n_heads": 3, "alibi": True, "softcap": 2.0,
        "scale": 0.4, "sinks": [1.0, -0.5, 0.25], "qk_norm": {"q_weight": [1.25, 0.75], "eps": 0.01},
        "embeddings": random_embeddings(bat_q + bat_kv, 6), "projections": random_projections(6),
        "mask": mask(False, "keys_and_queries", "large_negative")}

    # A head size of its own (Gemma's head_dim): h * d_head = 16 from d_model = 7, with GQA,
    # RoPE, sinks and a causal window; and h * d_head = 4 from d_model = 9 in cross-attention
    # with ALiBi, QK-norm and a softcap.
    def projections_sized(d, q, kv):
        p = {}
        for n in PROJECTION_NAMES:
            rows, cols = {"q": (d, q), "k": (d, kv), "v": (d, kv), "o": (q, d)}[n]
            p[f"w_{n}"] = rnd((rows, cols), 1.0 / math.sqrt(rows))
            p[f"b_{n}"] = rnd(cols, 0.1)
        return p

    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["d_head_gqa_rope_sinks_window"] = {
        "sentences": s, "d_model": 7, "n_heads": 4, "d_head": 4, "n_kv_heads": 2, "sinks": [0.5, -1.0, 2.0, 0.0],
        "rope": {"style": "interleaved", "base": 100.0, "fraction": 0.5},
        "embeddings": random_embeddings(s, 7), "projections": projections_sized(7, 16, 8),
        "mask": dict(mask(True, "keys", "neg_inf"), window=3)}
    scenarios["d_head_cross_alibi_norm_softcap"] = {
        "sentences": bat_q, "kv_sentences": bat_kv, "d_model": 9, "n_heads": 2, "d_head": 2, "alibi": True, "softcap": 2.0,
        "qk_norm": {"q_weight": [1.25, 0.75], "k_weight": [0.5, 1.5], "eps": 0.01},
        "embeddings": random_embeddings(bat_q + bat_kv, 9), "projections": projections_sized(9, 4, 4),
        "mask": mask(False, "keys_and_queries", "large_negative")}

    # RoPE's scaled frequencies: Llama 3.1's (pairs 0 and 1 of d_k = 8 kept, 2 blended, 3
    # divided by the factor) with GQA, and linear with a rotary fraction, interleaved.
    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["rope_llama3_gqa"] = {
        "sentences": s, "d_model": 16, "n_heads": 2, "n_kv_heads": 1,
        "rope": {"style": "half", "base": 10000.0, "scaling": {
            "type": "llama3", "factor": 8.0, "low_freq_factor": 2.0, "high_freq_factor": 8.0,
            "original_max_position_embeddings": 2048.0}},
        "embeddings": random_embeddings(s, 16), "projections": projections_kv(16, 8),
        "mask": mask(True, "keys", "neg_inf")}
    scenarios["rope_linear_fraction_interleaved"] = {
        "sentences": s, "d_model": 16, "n_heads": 2,
        "rope": {"style": "interleaved", "base": 100.0, "fraction": 0.5, "scaling": {"type": "linear", "factor": 4.0}},
        "embeddings": random_embeddings(s, 16), "projections": projections_kv(16, 16),
        "mask": mask(False, "keys", "neg_inf")}
    # YaRN: of d_k = 8's pairs (base 10000, 4096 original positions) 0 and 1 kept, 2 blended
    # half-way, 3 divided by the factor, cos and sin times 0.1 ln 4 + 1; and not truncated
    # with a rotary fraction (pair 1 of 2 blended by 0.595) and an attention factor given
    scenarios["rope_yarn_gqa"] = {
        "sentences": s, "d_model": 16, "n_heads": 2, "n_kv_heads": 1,
        "rope": {"style": "half", "base": 10000.0, "scaling": {
            "type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096.0}},
        "embeddings": random_embeddings(s, 16), "projections": projections_kv(16, 8),
        "mask": mask(True, "keys", "neg_inf")}
    scenarios["rope_yarn_untruncated_interleaved"] = {
        "sentences": s, "d_model": 16, "n_heads": 2,
        "rope": {"style": "interleaved", "base": 100.0, "fraction": 0.5, "scaling": {
            "type": "yarn", "factor": 8.0, "original_max_position_embeddings": 64.0, "beta_fast": 8.0,
            "beta_slow": 0.25, "attention_factor": 1.25, "truncate": False}},
        "embeddings": random_embeddings(s, 16), "projections": projections_kv(16, 16),
        "mask": mask(False, "keys", "neg_inf")}

    # QK-norm over the whole projection (OLMo 2): all heads' numbers of a token at once, before
    # the split, with weights of h·d_k = 8 (queries) and h_kv·d_k = 4 (keys), GQA and RoPE.
    s = ["the cat sat on the warm mat", "a dog ran"]
    scenarios["qk_norm_whole_gqa_rope"] = {
        "sentences": s, "d_model": 8, "n_heads": 4, "n_kv_heads": 2, "rope": {"style": "half", "base": 100.0},
        "qk_norm": {"q_weight": [1.5, 0.5, 1.0, 2.0, 0.25, 1.25, 0.75, 1.0], "k_weight": [0.75, 1.25, 1.5, 0.5],
                    "eps": 0.01, "whole_projection": True},
        "embeddings": random_embeddings(s, 8), "projections": projections_kv(8, 4),
        "mask": mask(True, "keys", "neg_inf")}

    # StreamingLLM's kept first keys (Xiao et al. 2023): a causal window of 2 with the first 2
    # keys kept beside it, with GQA and RoPE under -inf; and without causal (the kept
    # keys seen by every query) with ALiBi under -1e9.
    s = ["the cat sat on the warm mat by the door", "a dog ran"]
    scenarios["streaming_keep_first_gqa_rope"] = {
        "sentences": s, "d_model": 8, "n_heads": 4, "n_kv_heads": 2, "rope": {"style": "half", "base": 100.0},
        "embeddings": random_embeddings(s, 8), "projections": projections_kv(8, 4),
        "mask": dict(mask(True, "keys", "neg_inf"), window=2, keep_first=2)}
    scenarios["streaming_keep_first_both_sides_alibi"] = {
        "sentences": s, "d_model": 6, "n_heads": 3, "alibi": True,
        "embeddings": random_embeddings(s, 6), "projections": random_projections(6),
        "mask": dict(mask(False, "keys_and_queries", "large_negative"), window=2, keep_first=1)}

    fixture_dir.mkdir(parents=True, exist_ok=True)
    for name, scenario in scenarios.items():
        (fixture_dir / f"{name}.scenario.json").write_text(to_json(scenario) + "\n")
        print(f"wrote {name}.scenario.json", file=sys.stderr)


def main(argv):
    if argv == ["--regenerate"]:
        regenerate()
    elif argv == ["--make-scenarios"]:
        make_scenarios()
    elif len(argv) == 1 and not argv[0].startswith("--"):
        scenario = json.loads(Path(argv[0]).read_text())
        print(to_json(expected_document(scenario)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
