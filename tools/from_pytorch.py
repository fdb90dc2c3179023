#!/usr/bin/env python3
"""Write an Attention Lens scenario from a PyTorch attention module.

The page (Import scenario) and the command line (`cargo run --example trace`) then run
the same weights on the same embeddings, step by step, and show every intermediate tensor.

Modules understood
------------------
* `nn.MultiheadAttention` (with q, k, v of one size): `in_proj_weight` is split into
  W_Q, W_K, W_V (rows 0..d, d..2d, 2d..3d), `out_proj` is W_O. No `add_bias_kv`, no
  `add_zero_attn`; dropout is not applied (the page has none).
* A module shaped like the seeds' `MultiHeadAttention`: four `nn.Linear(d_model, d_model)`
  layers `w_q`, `w_k`, `w_v`, `w_o` and the number of heads in `n_heads` (or `h`,
  `num_heads`); or the Annotated Transformer's `linears` (four layers, q, k, v, o) with `h`.
* Hugging Face's Llama-style attention (`LlamaAttention`, and Mistral's, Mixtral's,
  Qwen2's, Qwen3's, Gemma 2's and Gemma 3's, which are written the same way): `q_proj`, `k_proj`, `v_proj`, `o_proj`, where
  `k_proj` and `v_proj` have `num_key_value_heads · head_dim` outputs (grouped-query
  attention). The heads come from `module.config`; so does RoPE (`rope_theta`, in
  `rope_parameters` in transformers 5, the layer's own when they are given per layer
  type), which `transformers` applies with `rotate_half`: the scenario gets
  `"rope": {"style": "half", "base": rope_theta}`. The window is the layer's own
  (`module.sliding_window`, None on a full-attention layer; Mistral's config
  `sliding_window` otherwise), and the mask is causal, as the module's forward is.
  Gemma 2's scale (`module.scaling`, from `query_pre_attn_scalar`) becomes `"scale"` and
  its `attn_logit_softcapping` `"softcap"`. Phi-3's fused `qkv_proj` is split by rows
  into W_Q, W_K and W_V (its output is the queries, then the keys, then the values), and
  GPT-NeoX's `query_key_value` per head (each head's query, key and value in turn), with
  `dense` as W_O. Their rotary fraction (`rotary_pct`, `partial_rotary_factor`) becomes
  RoPE's `"fraction"`. Qwen3's and Gemma 3's per-head QK-norm
  (`q_norm`, `k_norm`) becomes `"qk_norm"` with its weights (Gemma 3's `1 + weight`) and
  eps; OLMo 2's (`Olmo2Attention`), over the whole projection before the split into
  heads, becomes `"qk_norm"` with `"whole_projection": true` and weights of `h·head_dim`
  and `h_kv·head_dim` numbers. A `head_dim` with `head_dim · h ≠ hidden_size` (Gemma) becomes `"d_head"`.
  gpt-oss's attention sinks (`module.sinks`, one logit per query head, one more
  column of the softmax that is then dropped) become `"sinks"`; its window is the
  layer's own (`sliding_window` on a sliding layer, none on a full one).
- DeepSeek-V3's multi-head latent attention (`DeepseekV3Attention`) becomes `"mla"`:
  `q_proj` (or `q_a_proj`, `q_a_layernorm`, `q_b_proj` with `q_lora_rank`),
  `kv_a_proj_with_mqa`, `kv_a_layernorm`, `kv_b_proj` and `o_proj` as `mla.weights`, the
  sizes, the norms' eps, RoPE on the rope parts (`rope_interleave` as the interleaved
  style), and YaRN's `mscale_all_dim` on the scale. DeepSeek-V2's `DeepseekV2Attention`
  likewise, with its RoPE (`apply_rotary_emb`: each pair 2i, 2i+1 turned in place as a
  complex number) as the interleaved style with `"rope_in_place": true`.

Never other numbers
-------------------
Whatever the engine does not model raises `Unsupported` (a ValueError) naming it, rather
than giving a scenario whose numbers differ from the module's: an attention class not in
the list above, QK-norm over the whole projection in another class than OLMo 2's or of an
unknown norm class,
attention sinks of another shape than one per head or in another class than gpt-oss's,
a RoPE type
other than the default, `linear`, `llama3` and `yarn` (`dynamic`, `longrope`, …), a rotary fraction
in a class that does not apply one, bidirectional attention, fused
projections other than Phi-3's and GPT-NeoX's (`c_attn`, `Wqkv`), multi-head
latent attention in another class than DeepSeek-V3's, or with `num_key_value_heads` other
than `num_attention_heads`, norms of another class or two eps, a scale other than its
own, any other sub-module or parameter of the
attention module, dropout in training mode, a mask whose `causal` contradicts the
module's, and key/value sentences for a self-attention layer.

`nn.Linear` computes `x @ weight.T + bias`; the scenario uses the paper's `x @ W + b`, so
`W = layer.weight.T` (shape (d_model_in, d_model_out)).

Usage (from Python)
-------------------
    import json, sys
    sys.path.insert(0, "tools")
    from from_pytorch import scenario_from_module

    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    scenario = scenario_from_module(
        mha, ["the cat sat", "a dog"],
        {"the": [...8 numbers...], "cat": [...], ...},       # lists, tensors or arrays
        mask={"causal": False, "padding": "keys", "fill": "neg_inf"})
    with open("scenario.json", "w") as f:
        json.dump(scenario, f, indent=1)

Words missing from `embeddings` get the page's toy vectors (matched without case, as the
page does); a warning names them.

Usage (command line): `python3 tools/from_pytorch.py --demo > scenario.json` writes the
scenario of a seeded `nn.MultiheadAttention(8, 2)` with random embeddings.
"""

import json
import math
import sys


class Unsupported(ValueError):
    """The module or its config has a feature the engine does not model (named in the
    message): the scenario would give other numbers than the module, so none is written."""


# Hugging Face attention classes whose forward is Llama's (q, k, v projections, optional
# QK-norm, RoPE with rotate_half, repeat_kv, scale, optional softcap / sinks / window,
# softmax, o_proj): every difference from the plain one is a config value or a
# sub-module, each checked in `_hf_refusals`.
HF_CLASSES = {
    "LlamaAttention", "MistralAttention", "MixtralAttention", "Qwen2Attention", "Qwen3Attention",
    "Gemma2Attention", "Gemma3Attention", "GptOssAttention", "Olmo2Attention", "Phi3Attention",
    "GPTNeoXAttention",
}
HF_PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")
# Phi-3's one fused projection: its output is the queries, then the keys, then the values
# (qkv[..., :h·d], then h_kv·d, then h_kv·d), so its rows split into W_Q, W_K, W_V.
PHI3_FUSED = ("qkv_proj", "o_proj")
# GPT-NeoX's: its output, viewed as (h, 3·d), is each head's query, key and value in turn
# (`qkv.view(..., h, 3 * head_size).chunk(3, dim=-1)`), and `dense` is W_O.
NEOX_FUSED = ("query_key_value", "dense")


def _is_hf(module):
    """A Hugging Face attention module: four projections, or Phi-3's or GPT-NeoX's fused one
    and its output projection."""
    name = type(module).__name__
    return (all(hasattr(module, n) for n in HF_PROJECTIONS)
            or (name == "Phi3Attention" and all(hasattr(module, n) for n in PHI3_FUSED))
            or (name == "GPTNeoXAttention" and all(hasattr(module, n) for n in NEOX_FUSED)))


def _head_dim(module, config):
    return (getattr(module, "head_dim", None) or getattr(module, "head_size", None)
            or config.hidden_size // config.num_attention_heads)


def _hf_linears(module, n_heads, n_kv):
    """(W, b) of q, k, v and o: the four projections, or Phi-3's qkv_proj split by rows."""
    if hasattr(module, "query_key_value"):
        d = module.head_size
        w, b = module.query_key_value.weight, module.query_key_value.bias
        if w.shape[0] != 3 * n_heads * d:
            raise Unsupported(f"GPTNeoXAttention: query_key_value has {w.shape[0]} outputs, not 3·h·d = {3 * n_heads * d}")
        # rows of head j: [j·3d, j·3d + d) its query, then its key, then its value
        parts = []
        for part in range(3):
            rows = [j * 3 * d + part * d + c for j in range(n_heads) for c in range(d)]
            parts.append((_matrix(w[rows].T), _matrix(b[rows]) if b is not None else [0.0] * len(rows)))
        return parts + [_linear(module.dense)]
    if not hasattr(module, "qkv_proj"):
        return [_linear(layer) for layer in (module.q_proj, module.k_proj, module.v_proj, module.o_proj)]
    head_dim = module.head_dim
    q, kv = n_heads * head_dim, n_kv * head_dim
    w, b = module.qkv_proj.weight, module.qkv_proj.bias
    if w.shape[0] != q + 2 * kv:
        raise Unsupported(f"Phi3Attention: qkv_proj has {w.shape[0]} outputs, not h·d + 2·h_kv·d = {q + 2 * kv}")
    rows = [(0, q), (q, q + kv), (q + kv, q + 2 * kv)]
    out = [(_matrix(w[a:z].T), _matrix(b[a:z]) if b is not None else [0.0] * (z - a)) for a, z in rows]
    return out + [_linear(module.o_proj)]


def _matrix(t):
    """A tensor, array or (nested) list as nested lists of Python floats (float64)."""
    if hasattr(t, "detach"):
        t = t.detach().to("cpu").double()
    if hasattr(t, "tolist"):
        return t.tolist()
    if isinstance(t, (list, tuple)):
        return [_matrix(v) for v in t]
    return float(t)


def _linear(layer):
    """(W, b) of an nn.Linear in the paper's convention: W = weight.T, b = bias (or zeros)."""
    w = _matrix(layer.weight.T)
    b = _matrix(layer.bias) if layer.bias is not None else [0.0] * len(w[0])
    return w, b


# Multi-head latent attention (DeepSeek-V2 and V3): the classes imported as the scenario's
# "mla", and the sub-modules they may have (q_proj without q_lora_rank, q_a_proj,
# q_a_layernorm and q_b_proj with it).
MLA_CLASSES = {"DeepseekV3Attention", "DeepseekV2Attention"}
MLA_NORMS = {"DeepseekV3RMSNorm", "DeepseekV2RMSNorm"}
MLA_CHILDREN = ("q_proj", "q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa", "kv_a_layernorm",
                "kv_b_proj", "o_proj")


def _rms_norm(name, norm):
    """(weight, eps) of DeepSeek's RMSNorm, `weight * x / sqrt(mean(x²) + eps)`, or Unsupported."""
    if type(norm).__name__ not in MLA_NORMS:
        raise Unsupported(f"{name}: the norm {type(norm).__name__} is not modelled ({' and '.join(sorted(MLA_NORMS))} are)")
    return [float(v) for v in _matrix(norm.weight)], float(norm.variance_epsilon)


def _mla_options(module):
    """(d_model, n_heads, extra scenario fields with "mla" and "rope") of DeepseekV3Attention or
    DeepseekV2Attention, read as its forward computes, or Unsupported naming what the engine
    does not model."""
    name = type(module).__name__
    config = getattr(module, "config", None)
    if config is None:
        raise Unsupported(f"{name} has no config (a Hugging Face attention module has one)")
    children = [n for n, c in module.named_children() if c is not None and n not in MLA_CHILDREN]
    if children:
        raise Unsupported(f"{name}: the sub-modules {children} are not modelled")
    own = [n for n, p in module.named_parameters(recurse=False) if p is not None]
    if own:
        raise Unsupported(f"{name}: the parameters {own} are not modelled")
    n_heads = int(config.num_attention_heads)
    if getattr(module, "num_key_value_groups", 1) != 1:
        raise Unsupported(f"{name}: num_key_value_heads = {config.num_key_value_heads} != num_attention_heads = "
                          f"{n_heads}: eager_attention_forward's repeat_kv would repeat the heads the latent "
                          f"already made per head")
    if getattr(module, "is_causal", True) is not True:
        raise Unsupported(f"{name}: bidirectional attention is not modelled")
    if module.training and getattr(config, "attention_dropout", 0.0):
        raise Unsupported(f"{name}: dropout in training mode (call .eval() first)")
    d_nope, d_rope, d_v = int(module.qk_nope_head_dim), int(module.qk_rope_head_dim), int(module.v_head_dim)
    kv_weight, eps = _rms_norm(f"{name}.kv_a_layernorm", module.kv_a_layernorm)
    mla = {"kv_lora_rank": int(module.kv_lora_rank), "qk_nope_head_dim": d_nope, "qk_rope_head_dim": d_rope,
           "v_head_dim": d_v, "eps": eps}
    weights = {}
    if module.q_lora_rank is None:
        weights["w_q"], weights["b_q"] = _linear(module.q_proj)
    else:
        mla["q_lora_rank"] = int(module.q_lora_rank)
        q_weight, q_eps = _rms_norm(f"{name}.q_a_layernorm", module.q_a_layernorm)
        if q_eps != eps:
            raise Unsupported(f"{name}: q_a_layernorm's eps {q_eps} differs from kv_a_layernorm's {eps} "
                              f"(the engine has one eps for both)")
        weights["w_q_a"], weights["b_q_a"] = _linear(module.q_a_proj)
        weights["q_a_norm"] = q_weight
        weights["w_q_b"], weights["b_q_b"] = _linear(module.q_b_proj)
    weights["w_kv_a"], weights["b_kv_a"] = _linear(module.kv_a_proj_with_mqa)
    weights["kv_a_norm"] = kv_weight
    weights["w_kv_b"], weights["b_kv_b"] = _linear(module.kv_b_proj)
    weights["w_o"], weights["b_o"] = _linear(module.o_proj)
    mla["weights"] = weights
    extra = {"mla": mla}
    params = _rope_parameters(module, config)
    theta = params.get("rope_theta")
    if theta is None:
        raise Unsupported(f"{name}: no rope_theta (DeepSeek's forward always turns the rope parts)")
    if _rotary_fraction(module, params) is not None:
        raise Unsupported(f"{name}: a rotary fraction (partial_rotary_factor) is not modelled with MLA")
    if name == "DeepseekV2Attention":
        # apply_rotary_emb: the pairs 2i, 2i+1 as complex numbers, turned where they lie
        extra["rope"] = {"style": "interleaved", "base": float(theta)}
        mla["rope_in_place"] = True
    else:
        # rope_interleave: apply_rotary_pos_emb_interleave (pairs 2i, 2i+1; evens then odds out)
        extra["rope"] = {"style": "interleaved" if getattr(config, "rope_interleave", False) else "half",
                         "base": float(theta)}
    scaling = _rope_scaling(name, params, config)
    if scaling is not None:
        extra["rope"]["scaling"] = scaling
    # yarn_apply_mscale: a scaled RoPE with mscale_all_dim multiplies the scale by mscale²
    if params.get("rope_type", "default") != "default" and params.get("mscale_all_dim"):
        mla["mscale_all_dim"] = float(params["mscale_all_dim"])
    factor = scaling["factor"] if scaling else 1.0
    m = 1.0 if factor <= 1 or "mscale_all_dim" not in mla else 0.1 * mla["mscale_all_dim"] * math.log(factor) + 1.0
    want = (d_nope + d_rope) ** -0.5 * m * m
    if abs(float(module.scaling) - want) > 1e-12 * want:
        raise Unsupported(f"{name}: scaling {module.scaling} is not (qk_nope_head_dim + qk_rope_head_dim)^-0.5 "
                          f"times YaRN's mscale² ({want}), the only scale modelled with MLA")
    window = getattr(config, "sliding_window", None)
    if window:
        extra["window"] = int(window)
    return int(config.hidden_size), n_heads, extra


def _refuse_fused(module):
    """Fused or latent projections, named, before anything else is read."""
    name = type(module).__name__
    if (hasattr(module, "kv_a_proj_with_mqa") or hasattr(module, "kv_b_proj")) and name not in MLA_CLASSES:
        raise Unsupported(f"{name}: multi-head latent attention (kv_a_proj_with_mqa, kv_b_proj) is not modelled")
    for fused in ("qkv_proj", "query_key_value", "c_attn", "Wqkv"):
        if hasattr(module, fused) and not (fused in ("qkv_proj", "query_key_value") and _is_hf(module)):
            raise Unsupported(f"{name}: the fused projection {fused} (q, k and v in one matrix) is not modelled")


def _layer_type(module, config):
    layer_types = getattr(config, "layer_types", None)
    idx = getattr(module, "layer_idx", None)
    if layer_types and idx is not None and idx < len(layer_types):
        return layer_types[idx]
    return None


def _rope_parameters(module, config):
    """The RoPE parameters of this layer (its layer type's, when given per type), or {}."""
    params = dict(getattr(config, "rope_parameters", None) or {})
    layer_type = _layer_type(module, config)
    if params and all(isinstance(v, dict) for v in params.values()):
        if layer_type not in params:
            raise Unsupported(f"RoPE parameters per layer type {sorted(params)} without this layer's ({layer_type})")
        params = dict(params[layer_type])
    theta = getattr(config, "rope_theta", None)
    if theta is not None and "rope_theta" not in params:
        params["rope_theta"] = theta
    return params


# The RoPE types the engine scales its frequencies by, with the fields each reads, as
# transformers' modeling_rope_utils.py (_compute_linear_scaling_rope_parameters,
# _compute_llama3_parameters); both leave the attention factor at 1. YaRN's are read by
# _yarn_scaling.
ROPE_SCALINGS = {
    "linear": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "yarn": ("original_max_position_embeddings",),
}


def _yarn_scaling(params, config):
    """YaRN's numbers as transformers' _compute_yarn_parameters reads them: a factor of None is
    max_position_embeddings / original_max_position_embeddings (DeepSeek-V3); an attention
    factor of None is get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) when both
    are set, else get_mscale(factor) (0.1 ln factor + 1, 1 for a factor <= 1); beta_fast and
    beta_slow fall back to 32 and 1 when missing or 0 (its `or`); truncate defaults to true."""
    old = float(params["original_max_position_embeddings"])
    factor = params.get("factor")
    factor = float(config.max_position_embeddings / old if factor is None else factor)

    def get_mscale(scale, mscale=1):
        return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0

    attention_factor = params.get("attention_factor")
    if attention_factor is None:
        mscale, mscale_all_dim = params.get("mscale"), params.get("mscale_all_dim")
        if mscale and mscale_all_dim:
            attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
        else:
            attention_factor = get_mscale(factor)
    return {"type": "yarn", "factor": factor, "original_max_position_embeddings": old,
            "beta_fast": float(params.get("beta_fast") or 32), "beta_slow": float(params.get("beta_slow") or 1),
            "attention_factor": float(attention_factor), "truncate": bool(params.get("truncate", True))}


def _rope_scaling(name, params, config):
    """The scenario's rope "scaling" for the layer's RoPE type, None for the default, or
    Unsupported naming a type (dynamic, longrope, …) or a missing field."""
    rope_type = params.get("rope_type", params.get("type", "default"))
    if rope_type == "default":
        return None
    if rope_type not in ROPE_SCALINGS:
        raise Unsupported(f"{name}: the RoPE type {rope_type!r} (scaled frequencies) is not modelled "
                          f"(modelled: default, {', '.join(ROPE_SCALINGS)})")
    missing = [k for k in ROPE_SCALINGS[rope_type] if params.get(k) is None]
    if missing:
        raise Unsupported(f"{name}: the RoPE type {rope_type!r} without {missing}")
    if rope_type == "yarn":
        return _yarn_scaling(params, config)
    return {"type": rope_type, **{k: float(params[k]) for k in ROPE_SCALINGS[rope_type]}}


# The classes whose apply_rotary_pos_emb turns the first int(head_dim · f) dimensions
# only and passes the rest (GPT-NeoX's rotary_pct, Phi's partial_rotary_factor).
PARTIAL_ROTARY = {"GPTNeoXAttention", "Phi3Attention"}


def _rotary_fraction(module, params):
    """The layer's rotary fraction, or None when every dimension turns."""
    fraction = params.get("partial_rotary_factor", getattr(module.config, "partial_rotary_factor", None))
    return None if fraction in (None, 1, 1.0) else float(fraction)


def _hf_refusals(module):
    """Raises Unsupported for the first feature of a Hugging Face attention module (or its
    config) that the engine does not model."""
    name = type(module).__name__
    config = module.config
    if name not in HF_CLASSES:
        raise Unsupported(f"{name} is not an attention class from_pytorch knows (known: {', '.join(sorted(HF_CLASSES))})")
    children = [n for n, _ in module.named_children()
                if n not in HF_PROJECTIONS + PHI3_FUSED + NEOX_FUSED + ("q_norm", "k_norm")]
    if hasattr(module, "q_norm") != hasattr(module, "k_norm"):
        raise Unsupported(f"{name}: QK-norm on only one of the queries and keys is not modelled")
    if children:
        raise Unsupported(f"{name}: the sub-modules {children} are not modelled")
    own = [n for n, p in module.named_parameters(recurse=False) if p is not None]
    if "sinks" in own:
        # gpt-oss: one logit per query head, a column of the softmax dropped after it
        # (eager_attention_forward's torch.cat([scores, sinks]) ... probs[..., :-1])
        if name != "GptOssAttention" or tuple(module.sinks.shape) != (config.num_attention_heads,):
            raise Unsupported(f"{name}: attention sinks (sinks) of shape {tuple(module.sinks.shape)} in this class "
                              f"are not modelled (gpt-oss's: one per query head)")
        own.remove("sinks")
    if own:
        raise Unsupported(f"{name}: the parameters {own} are not modelled")
    n_heads = config.num_attention_heads
    head_dim = _head_dim(module, config)
    if hasattr(module, "q_norm"):
        _qk_norm(module, head_dim)  # raises for a norm the engine does not model
    if getattr(module, "is_causal", True) is not True or getattr(config, "use_bidirectional_attention", False):
        raise Unsupported(f"{name}: bidirectional attention (use_bidirectional_attention) is not modelled")
    params = _rope_parameters(module, config)
    _rope_scaling(name, params, config)  # raises for a RoPE type the engine does not model
    if _rotary_fraction(module, params) is not None and name not in PARTIAL_ROTARY:
        raise Unsupported(f"{name}: a rotary fraction (partial_rotary_factor = {_rotary_fraction(module, params)}) "
                          f"in a class whose forward does not apply one")
    if module.training and getattr(config, "attention_dropout", 0.0):
        raise Unsupported(f"{name}: dropout in training mode (call .eval() first)")


# RMSNorm classes of QK-norm and the weight each multiplies by: Qwen3's `weight`, Gemma 3's
# `1 + weight` (its weight is stored as an offset from 1).
QK_NORMS = {"Qwen3RMSNorm": lambda w: w, "Gemma3RMSNorm": lambda w: 1.0 + w, "Olmo2RMSNorm": lambda w: w}
# The attention classes whose forward applies q_norm and k_norm to the whole projection,
# before the split into heads (OLMo 2: self.q_norm(self.q_proj(hidden_states))).
WHOLE_PROJECTION_NORMS = {"Olmo2Attention"}


def _qk_norm(module, head_dim):
    """The scenario's "qk_norm" of a module with q_norm and k_norm over each head's
    head_dim numbers (Qwen3, Gemma 3) or over the whole projection (OLMo 2), or
    Unsupported for another norm (the whole projection in another class; an unknown class)."""
    name = type(module).__name__
    config = module.config
    n_heads = config.num_attention_heads
    heads = {"q": n_heads, "k": n_heads // (getattr(module, "num_key_value_groups", None) or 1)}
    whole = name in WHOLE_PROJECTION_NORMS
    out = {"whole_projection": True} if whole else {}
    for which in ("q", "k"):
        norm = getattr(module, f"{which}_norm")
        cls = type(norm).__name__
        weight = getattr(norm, "weight", None)
        if weight is None or weight.dim() != 1:
            raise Unsupported(f"{name}: QK-norm without a weight vector ({which}_norm: {cls}) is not modelled")
        width = heads[which] * head_dim if whole else head_dim
        if weight.numel() != width:
            raise Unsupported(f"{name}: QK-norm over {weight.numel()} numbers ({which}_norm), not "
                              f"{'the whole projection' if whole else 'one head'}'s {width}, is not modelled"
                              + ("" if whole else " (the whole projection is read in Olmo2Attention only)"))
        if cls not in QK_NORMS:
            raise Unsupported(f"{name}: the QK-norm class {cls} is not one from_pytorch knows "
                              f"({', '.join(sorted(QK_NORMS))})")
        out[f"{which}_weight"] = _matrix(QK_NORMS[cls](weight.detach().double()))
        eps = getattr(norm, "variance_epsilon", getattr(norm, "eps", None))
        if eps is None or out.setdefault("eps", float(eps)) != float(eps):
            raise Unsupported(f"{name}: q_norm and k_norm with different (or no) eps are not modelled")
    return out


def _hf_config_options(module):
    """(n_heads, n_kv_heads, extra scenario fields) of a Hugging Face attention module."""
    config = getattr(module, "config", None)
    if config is None:
        raise Unsupported(f"{type(module).__name__} has no config (a Hugging Face attention module has one)")
    _hf_refusals(module)
    n_heads = config.num_attention_heads
    # the module's own grouping (GPT-NeoX has none, whatever its config says)
    groups = getattr(module, "num_key_value_groups", None)
    n_kv = n_heads // groups if groups else n_heads
    extra = {}
    theta = _rope_parameters(module, config).get("rope_theta")
    if theta is not None:
        extra["rope"] = {"style": "half", "base": float(theta)}
        fraction = _rotary_fraction(module, _rope_parameters(module, config))
        if fraction is not None:  # GPT-NeoX, Phi: the first int(head_dim * fraction) dimensions turn
            extra["rope"]["fraction"] = fraction
        scaling = _rope_scaling(type(module).__name__, _rope_parameters(module, config), config)
        if scaling is not None:  # linear, Llama 3.1's llama3, YaRN
            extra["rope"]["scaling"] = scaling
    # The layer's own window: None on a full-attention layer of a model that mixes them.
    window = module.sliding_window if hasattr(module, "sliding_window") else getattr(config, "sliding_window", None)
    if window:
        extra["window"] = int(window)
    # Gemma 2: the scores times query_pre_attn_scalar ** -0.5 (module.scaling), then
    # softcapped at attn_logit_softcapping, before the mask.
    head_dim = _head_dim(module, config)
    scaling = float(getattr(module, "scaling", head_dim ** -0.5))
    if scaling != head_dim ** -0.5:
        extra["scale"] = scaling
    softcap = getattr(module, "attn_logit_softcapping", None)
    if softcap is not None:
        extra["softcap"] = float(softcap)
    # A head size of its own (Gemma's head_dim, where h·head_dim need not be hidden_size).
    if head_dim * n_heads != config.hidden_size:
        extra["d_head"] = int(head_dim)
    # Qwen3, Gemma 3: RMSNorm of every query and key head with its weight, before RoPE; OLMo 2:
    # of each token's whole projection, before the split into heads.
    if hasattr(module, "q_norm"):
        extra["qk_norm"] = _qk_norm(module, head_dim)
    # gpt-oss: each head's learned sink logit, one more column of its softmax
    if type(module).__name__ == "GptOssAttention" and getattr(module, "sinks", None) is not None:
        extra["sinks"] = [float(v) for v in _matrix(module.sinks)]
    return int(n_heads), int(n_kv), extra


def projections_from_module(module):
    """(d_model, n_heads, projections dict) of a supported attention module (for a
    Hugging Face module, see `module_options` for its key/value heads and RoPE)."""
    try:
        import torch.nn as nn
    except ImportError as e:  # pragma: no cover
        raise SystemExit("tools/from_pytorch.py needs PyTorch: pip install torch") from e

    _refuse_fused(module)
    if isinstance(module, nn.MultiheadAttention):
        if module.training and module.dropout:
            raise Unsupported("nn.MultiheadAttention: dropout in training mode (call .eval() first)")
        if not module._qkv_same_embed_dim:
            raise ValueError("nn.MultiheadAttention with kdim/vdim != embed_dim is not supported")
        if module.bias_k is not None or module.add_zero_attn:
            raise ValueError("nn.MultiheadAttention with add_bias_kv or add_zero_attn is not supported")
        d = module.embed_dim
        w_in = module.in_proj_weight
        b_in = module.in_proj_bias
        layers = []
        for i in range(3):  # q, k, v: rows i*d .. (i+1)*d of in_proj_weight
            w = _matrix(w_in[i * d:(i + 1) * d].T)
            b = _matrix(b_in[i * d:(i + 1) * d]) if b_in is not None else [0.0] * d
            layers.append((w, b))
        layers.append(_linear(module.out_proj))
        n_heads = module.num_heads
    elif _is_hf(module):
        n_heads, n_kv, _ = _hf_config_options(module)
        layers = _hf_linears(module, n_heads, n_kv)
        d = len(layers[0][0])
        head_dim = _head_dim(module, module.config)
        q, kv = n_heads * head_dim, n_kv * head_dim
        projections = {}
        for name, (w, b) in zip("qkvo", layers):
            rows, out = {"q": (d, q), "k": (d, kv), "v": (d, kv), "o": (q, d)}[name]
            if len(w) != rows or any(len(row) != out for row in w) or len(b) != out:
                raise ValueError(f"W_{name} must be ({rows}, {out}) and b_{name} ({out})")
            projections[f"w_{name}"], projections[f"b_{name}"] = w, b
        return d, n_heads, projections
    else:
        if all(hasattr(module, n) for n in ("w_q", "w_k", "w_v", "w_o")):
            linears = [module.w_q, module.w_k, module.w_v, module.w_o]
        elif hasattr(module, "linears") and len(module.linears) == 4:
            linears = list(module.linears)
        else:
            raise ValueError("expected nn.MultiheadAttention, or a module with w_q, w_k, w_v, w_o "
                             "(or four `linears`) nn.Linear layers")
        n_heads = next((getattr(module, n) for n in ("n_heads", "h", "num_heads") if hasattr(module, n)), None)
        if n_heads is None:
            raise ValueError("cannot find the number of heads (n_heads, h or num_heads)")
        layers = [_linear(layer) for layer in linears]
        d = len(layers[0][0])
    projections = {}
    for name, (w, b) in zip("qkvo", layers):
        if len(w) != d or any(len(row) != d for row in w) or len(b) != d:
            raise ValueError(f"W_{name} must be ({d}, {d}) and b_{name} ({d})")
        projections[f"w_{name}"], projections[f"b_{name}"] = w, b
    return d, int(n_heads), projections


def scenario_from_module(module, sentences, embeddings, mask=None, kv_sentences=None, positional="none"):
    """The scenario dict (JSON-ready) for `module` run on `sentences` with `embeddings`.

    mask: {"causal": bool, "padding": "none" | "keys" | "keys_and_queries",
           "fill": "neg_inf" | "large_negative"}; default: no mask (causal for a Hugging
           Face module, whose forward is).
    kv_sentences: one per sentence for cross-attention (keys and values from them); not
           for a Hugging Face module, which is self-attention.
    positional: "none" or "sinusoidal".
    """
    latent = type(module).__name__ in MLA_CLASSES
    if latent:  # DeepSeek-V3: the weights go in "mla", the projections are unused
        d_model, n_heads, extra = _mla_options(module)
        projections = "seeded"
    else:
        d_model, n_heads, projections = projections_from_module(module)
        extra = {}
    mask = dict(mask or {})
    if _is_hf(module) or latent:
        if not latent:
            _, n_kv, extra = _hf_config_options(module)
            if n_kv != n_heads:
                extra["n_kv_heads"] = n_kv
        if kv_sentences is not None:
            raise Unsupported(f"{type(module).__name__} is self-attention: kv_sentences would give other numbers")
        # A Hugging Face decoder layer is causal: its forward builds the causal mask.
        if mask.setdefault("causal", True) is not True:
            raise Unsupported(f"{type(module).__name__} is causal (is_causal = True); a mask with causal = "
                              f"{mask['causal']} would give other numbers than its forward")
    table = {}
    for word, vector in embeddings.items():
        vector = _matrix(vector)
        if not isinstance(vector, list) or any(isinstance(v, list) for v in vector) or len(vector) != d_model:
            raise ValueError(f"embedding of {word!r} must be {d_model} numbers (d_model), got {vector!r:.80}")
        table[word] = [float(v) for v in vector]
    known = {w.lower() for w in table}
    words = {w for s in list(sentences) + list(kv_sentences or []) for w in s.split()}
    missing = sorted(w for w in words if w.lower() not in known)
    if missing:
        print(f"from_pytorch: no embedding for {missing}; the page will use its toy vectors", file=sys.stderr)
    scenario = {
        "sentences": list(sentences),
        "d_model": d_model,
        "n_heads": n_heads,
        "embeddings": table,
        "projections": projections,
        "mask": dict({"causal": False, "padding": "none", "fill": "neg_inf"}, **mask),
    }
    if "window" in extra:
        scenario["mask"].setdefault("window", extra.pop("window"))
    scenario.update(extra)
    if kv_sentences is not None:
        scenario["kv_sentences"] = list(kv_sentences)
    if positional != "none":
        scenario["positional"] = positional
    return scenario


def _demo():
    import torch

    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True, dtype=torch.float64)
    sentences = ["the cat sat on the mat", "a dog ran"]
    words = sorted({w for s in sentences for w in s.split()})
    embeddings = {w: torch.randn(8, dtype=torch.float64) for w in words}
    return scenario_from_module(mha, sentences, embeddings, mask={"padding": "keys"})


if __name__ == "__main__":
    if sys.argv[1:] == ["--demo"]:
        json.dump(_demo(), sys.stdout, indent=1)
        print()
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
