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
* Hugging Face's Llama-style attention (`LlamaAttention`, and Mistral's and Qwen's, which
  are written the same way): `q_proj`, `k_proj`, `v_proj`, `o_proj`, where `k_proj` and
  `v_proj` have `num_key_value_heads · head_dim` outputs (grouped-query attention). The
  heads come from `module.config`; so does RoPE (`rope_theta`, in `rope_parameters` in
  transformers 5), which `transformers` applies with `rotate_half`: the scenario gets
  `"rope": {"style": "half", "base": rope_theta}`, and `"window"` from `sliding_window`
  when the config has one.

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
import sys


def _matrix(t):
    """A tensor or array as nested lists of Python floats (float64)."""
    if hasattr(t, "detach"):
        t = t.detach().to("cpu").double()
    return t.tolist()


def _linear(layer):
    """(W, b) of an nn.Linear in the paper's convention: W = weight.T, b = bias (or zeros)."""
    w = _matrix(layer.weight.T)
    b = _matrix(layer.bias) if layer.bias is not None else [0.0] * len(w[0])
    return w, b


def _hf_config_options(module):
    """(n_heads, n_kv_heads, extra scenario fields) of a Hugging Face attention module."""
    config = getattr(module, "config", None)
    n_heads = getattr(config, "num_attention_heads", None) or getattr(module, "num_heads", None)
    if n_heads is None:
        raise ValueError("cannot find the number of heads (config.num_attention_heads)")
    n_kv = getattr(config, "num_key_value_heads", None) or n_heads
    extra = {}
    theta = getattr(config, "rope_theta", None)
    params = getattr(config, "rope_parameters", None) or {}
    theta = theta or params.get("rope_theta")
    if theta is not None:
        if params.get("rope_type", "default") != "default":
            raise ValueError(f"RoPE type {params['rope_type']!r} is not supported (only the default)")
        extra["rope"] = {"style": "half", "base": float(theta)}
    window = getattr(config, "sliding_window", None)
    if window:
        extra["window"] = int(window)
    return int(n_heads), int(n_kv), extra


def projections_from_module(module):
    """(d_model, n_heads, projections dict) of a supported attention module (for a
    Hugging Face module, see `module_options` for its key/value heads and RoPE)."""
    try:
        import torch.nn as nn
    except ImportError as e:  # pragma: no cover
        raise SystemExit("tools/from_pytorch.py needs PyTorch: pip install torch") from e

    if isinstance(module, nn.MultiheadAttention):
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
    elif all(hasattr(module, n) for n in ("q_proj", "k_proj", "v_proj", "o_proj")):
        n_heads, n_kv, _ = _hf_config_options(module)
        layers = [_linear(layer) for layer in (module.q_proj, module.k_proj, module.v_proj, module.o_proj)]
        d = len(layers[0][0])
        kv = n_kv * (d // n_heads)
        projections = {}
        for name, (w, b) in zip("qkvo", layers):
            out = kv if name in "kv" else d
            if len(w) != d or any(len(row) != out for row in w) or len(b) != out:
                raise ValueError(f"W_{name} must be ({d}, {out}) and b_{name} ({out})")
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
           "fill": "neg_inf" | "large_negative"}; default: no mask.
    kv_sentences: one per sentence for cross-attention (keys and values from them).
    positional: "none" or "sinusoidal".
    """
    d_model, n_heads, projections = projections_from_module(module)
    extra = {}
    if all(hasattr(module, n) for n in ("q_proj", "k_proj", "v_proj", "o_proj")):
        _, n_kv, extra = _hf_config_options(module)
        if n_kv != n_heads:
            extra["n_kv_heads"] = n_kv
    table = {}
    for word, vector in embeddings.items():
        vector = _matrix(vector)
        if len(vector) != d_model:
            raise ValueError(f"embedding of {word!r} has {len(vector)} numbers, expected d_model = {d_model}")
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
        "mask": dict({"causal": False, "padding": "none", "fill": "neg_inf"}, **(mask or {})),
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
