"""More than one attention layer, recomputed in NumPy (and with --torch, in PyTorch) and
compared with the engine's trace of every layer, to 1e-9 relative.

The forward is written here from the formulas, not from the engine: resid[0] is the
embeddings (plus the sinusoidal positions, added once), and every layer l runs the whole
attention pipeline on resid[l] (projections, heads, QK-norm-free RoPE on every layer,
grouped heads, the scale, the softcap, ALiBi, the mask, the softmax with its sinks, W_O),
then resid[l+1] = resid[l] + output_l. Explicit and identity projections are the same in
every layer, as the engine documents (seeded ones draw seed + l, which NumPy cannot draw:
the native tests check those).

For each scenario the engine is asked for the trace of every layer (`"layer": l`), and each
of that layer's steps, `resid_in`, `resid_out` and the whole residual stream must equal
NumPy's. A forward that forgets the residual add (resid[l+1] = output_l) must disagree, so
the comparison can fail.
"""

import json
import math
import subprocess

import numpy as np

import numpy_reference as ref


def _words(sentences):
    return sorted({w for s in sentences for w in s.split()})


def layered_scenarios():
    rng = np.random.default_rng(20261127)

    def embeddings(sentences, d):
        return {w: np.round(rng.normal(0.0, 1.0, size=d), 4).tolist() for w in _words(sentences)}

    def weights(d, q, kv, scale=None):
        scale = scale or 1.0 / math.sqrt(d)
        shapes = {"q": (d, q), "k": (d, kv), "v": (d, kv), "o": (q, d)}
        out = {}
        for n, (r, c) in shapes.items():
            out[f"w_{n}"] = np.round(rng.normal(0.0, scale, size=(r, c)), 4).tolist()
            out[f"b_{n}"] = np.round(rng.normal(0.0, 0.1, size=c), 4).tolist()
        return out

    s1 = ["the cat sat on the warm mat", "a dog barked"]
    s2 = ["one two three four five six", "seven eight", "nine ten eleven"]
    s3 = ["alpha beta gamma", "beta gamma"]
    s4 = ["red green blue red green", "blue red"]
    return {
        # B = 2, GQA 4 -> 2, rotate_half RoPE, sinusoidal positions, causal + padding of keys
        # and queries under -1e9 (under -inf a fully masked row is refused with layers)
        "layers2_gqa_rope_causal_pad": {
            "sentences": s1, "d_model": 8, "n_heads": 4, "n_kv_heads": 2, "n_layers": 2,
            "embeddings": embeddings(s1, 8), "projections": weights(8, 8, 4), "positional": "sinusoidal",
            "rope": {"style": "half", "base": 10000},
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "large_negative"}},
        # B = 3, four layers, interleaved RoPE, ALiBi, a causal window of 3, key padding, -1e9 (a
        # <pad> query whose window holds only <pad> keys is fully masked)
        "layers4_rope_interleaved_alibi_window": {
            "sentences": s2, "d_model": 6, "n_heads": 3, "n_layers": 4,
            "embeddings": embeddings(s2, 6), "projections": weights(6, 6, 6, 0.3),
            "rope": {"style": "interleaved", "base": 100}, "alibi": True,
            "mask": {"causal": True, "padding": "keys", "fill": "large_negative", "window": 3}},
        # identity projections, three layers, bidirectional with key padding
        "layers3_identity_keys": {
            "sentences": s3, "d_model": 4, "n_heads": 2, "n_layers": 3,
            "embeddings": embeddings(s3, 4), "projections": "identity",
            "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # a head size of its own (h * d_head = 6 != d_model = 4), MQA, a scale, a softcap
        # and attention sinks, two layers, causal with padding under -inf (sinks: no NaN)
        "layers2_d_head_mqa_scale_softcap_sinks": {
            "sentences": s4, "d_model": 4, "n_heads": 3, "d_head": 2, "n_kv_heads": 1, "n_layers": 2,
            "embeddings": embeddings(s4, 4), "projections": weights(4, 6, 2), "scale": 0.6, "softcap": 2.5,
            "sinks": [0.5, -1.0, 0.25],
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
    }


def _layer(sc, x, blocked, proj, forget_residual=False):
    """One attention layer on x (B, T, d_model): its steps, by the engine's names."""
    B, T, d = x.shape
    h = sc["n_heads"]
    h_kv = sc.get("n_kv_heads", h)
    d_k = sc.get("d_head") or d // h
    fill = {"neg_inf": -np.inf, "large_negative": -1e9}[sc["mask"]["fill"]]
    (wq, bq), (wk, bk), (wv, bv), (wo, bo) = (proj[n] for n in "qkvo")
    steps = {"resid_in": x}
    q, k, v = x @ wq + bq, x @ wk + bk, x @ wv + bv
    heads = lambda a, n: a.reshape(B, T, n, d_k).transpose(0, 2, 1, 3)
    qh, kh, vh = heads(q, h), heads(k, h_kv), heads(v, h_kv)
    steps.update(q=q, k=k, v=v, q_heads=qh, k_heads=kh, v_heads=vh)
    rope = sc.get("rope")
    if rope is not None:
        qh = ref.rope_rotate(qh, rope["style"], rope.get("base", 10000.0))
        kh = ref.rope_rotate(kh, rope["style"], rope.get("base", 10000.0))
        steps.update(q_rot=qh, k_rot=kh)
    if h_kv != h:
        group = [i // (h // h_kv) for i in range(h)]
        kh, vh = kh[:, group], vh[:, group]
        steps.update(k_rep=kh, v_rep=vh)
    scores = qh @ kh.swapaxes(-1, -2)
    scaled = scores * sc["scale"] if "scale" in sc else scores / math.sqrt(d_k)
    steps.update(scores=scores, scaled=scaled)
    if "softcap" in sc:
        scaled = sc["softcap"] * np.tanh(scaled / sc["softcap"])
        steps["capped"] = scaled
    if sc.get("alibi"):
        rel = np.arange(T)[None, :] - np.arange(T)[:, None]
        bias = np.array(ref.alibi_slopes(h))[None, :, None, None] * (rel if sc["mask"]["causal"] else -np.abs(rel))
        scaled = scaled + bias
        steps.update(alibi=bias, biased=scaled)
    masked = np.where(blocked[:, None], fill, scaled)
    if "sinks" in sc:
        sink = np.broadcast_to(np.array(sc["sinks"])[None, :, None, None], masked.shape[:-1] + (1,))
        weights = ref.softmax(np.concatenate([masked, sink], axis=-1))[..., :-1]
    else:
        weights = ref.softmax(masked)
    context = weights @ vh
    concat = context.transpose(0, 2, 1, 3).reshape(B, T, h * d_k)
    output = concat @ wo + bo
    steps.update(masked=masked, weights=weights, context=context, concat=concat, output=output)
    steps["resid_out"] = output if forget_residual else x + output
    return steps


def layered_forward(sc, forget_residual=False):
    """Every layer's steps and the residual stream resid[0..n_layers]."""
    tokens = ref.tokenize(sc["sentences"])
    B, T = len(tokens), len(tokens[0])
    d = sc["d_model"]
    h, h_kv = sc["n_heads"], sc.get("n_kv_heads", sc["n_heads"])
    d_k = sc.get("d_head") or d // h
    x = ref.embed(tokens, sc["embeddings"], d)
    if sc.get("positional") == "sinusoidal":
        x = x + ref.sinusoidal(T, d)[None]  # once, before the first layer
    m = sc["mask"]
    blocked = ref.blocked_mask(tokens, tokens, m["causal"], m["padding"], m.get("window"))
    proj = ref.load_projections(sc["projections"], d, h_kv * d_k, h * d_k)  # the same in every layer
    resid, layers = [x], []
    for _ in range(sc["n_layers"]):
        steps = _layer(sc, resid[-1], blocked, proj, forget_residual)
        layers.append(steps)
        resid.append(steps["resid_out"])
    return layers, np.stack(resid)


def _worst(got, want):
    """Largest relative difference (absolute below 1); infinite where NaN or inf differ."""
    if got.shape != want.shape:
        return math.inf
    if not (np.isnan(got) == np.isnan(want)).all() or not (np.isinf(got) == np.isinf(want)).all():
        return math.inf
    fin = np.isfinite(want)
    if not (got[~fin & ~np.isnan(want)] == want[~fin & ~np.isnan(want)]).all():
        return math.inf
    if not fin.any():
        return 0.0
    return float((np.abs(got[fin] - want[fin]) / np.maximum(np.abs(want[fin]), 1.0)).max())


def _engine(trace_bin, work, name, sc):
    path = work / f"{name}.json"
    path.write_text(json.dumps(sc))
    out = subprocess.run([trace_bin, str(path)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def _numbers(values):
    return np.array([float(v) if isinstance(v, str) else v for v in values], dtype=np.float64)


def _compare(trace_bin, work, name, sc, forward):
    """Each layer's trace against `forward`'s: the worst difference seen (infinite for a
    missing or extra step) and how many steps were compared."""
    layers, resid = forward(sc)
    worst, compared = 0.0, 0
    for l in range(1, sc["n_layers"] + 1):
        trace = _engine(trace_bin, work, f"{name}_layer{l}", dict(sc, layer=l))
        if (trace.get("n_layers"), trace.get("layer", 1)) != (sc["n_layers"], l):
            return math.inf, compared
        want = layers[l - 1]
        for st in trace["steps"]:
            got = _numbers(st["data"]).reshape(st["shape"])
            if st["name"] in ("x", "pe", "x_pe"):
                continue  # the embeddings: resid_in of layer 1 and the stream check them
            if st["name"] not in want:
                return math.inf, compared
            worst = max(worst, _worst(got, want[st["name"]]))
            compared += 1
        if set(want) - {st["name"] for st in trace["steps"]}:
            return math.inf, compared
        worst = max(worst, _worst(_numbers(trace["resid"]).reshape(resid.shape), resid))
    return worst, compared


def check_numpy(c, trace_bin, work):
    for name, sc in layered_scenarios().items():
        worst, compared = _compare(trace_bin, work, name, sc, layered_forward)
        c.report(worst <= 1e-9, f"{name}: every layer's steps and the residual stream = NumPy's",
                 f"{sc['n_layers']} layers, {compared} steps, max rel diff {worst:.1e}")
        broken_worst, _ = _compare(trace_bin, work, name, sc, lambda s: layered_forward(s, forget_residual=True))
        c.report(broken_worst > 1e-6, f"{name}: NumPy without the residual add -> differs",
                 f"max rel diff {broken_worst:.1e}")


def torch_forward(sc):
    """The same layers as a PyTorch module would run them: nn.Linear (weight = W.T),
    view/transpose, repeat_interleave, masked_fill, softmax, x = x + attn(x)."""
    import torch

    tokens = ref.tokenize(sc["sentences"])
    B, T = len(tokens), len(tokens[0])
    d = sc["d_model"]
    h, h_kv = sc["n_heads"], sc.get("n_kv_heads", sc["n_heads"])
    d_k = sc.get("d_head") or d // h
    proj = ref.load_projections(sc["projections"], d, h_kv * d_k, h * d_k)

    def linear(n):
        w, b = proj[n]
        lin = torch.nn.Linear(w.shape[0], w.shape[1], dtype=torch.float64)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.copy_(torch.from_numpy(b))
        return lin

    w_q, w_k, w_v, w_o = (linear(n) for n in "qkvo")
    m = sc["mask"]
    mask = torch.from_numpy(ref.blocked_mask(tokens, tokens, m["causal"], m["padding"], m.get("window")))
    fill = {"neg_inf": float("-inf"), "large_negative": -1e9}[m["fill"]]
    rope = sc.get("rope")
    pos = torch.arange(T, dtype=torch.float64)[:, None]
    if rope is not None:
        inv_freq = 1.0 / rope.get("base", 10000.0) ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
        ang = pos * inv_freq  # (T, d_k/2)
        if rope["style"] == "half":
            cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
        freqs_cis = torch.polar(torch.ones_like(ang), ang)

    def turn(a):
        if rope["style"] == "half":
            rotate_half = torch.cat([-a[..., d_k // 2:], a[..., : d_k // 2]], dim=-1)
            return a * cos + rotate_half * sin
        return torch.view_as_real(torch.view_as_complex(a.reshape(*a.shape[:-1], -1, 2).contiguous()) * freqs_cis).flatten(-2)

    def attn(x):
        q = w_q(x).view(B, T, h, d_k).transpose(1, 2)
        k = w_k(x).view(B, T, h_kv, d_k).transpose(1, 2)
        v = w_v(x).view(B, T, h_kv, d_k).transpose(1, 2)
        if rope is not None:
            q, k = turn(q), turn(k)
        k, v = k.repeat_interleave(h // h_kv, dim=1), v.repeat_interleave(h // h_kv, dim=1)
        scores = q @ k.transpose(-2, -1)
        scores = scores * sc["scale"] if "scale" in sc else scores / math.sqrt(d_k)
        if "softcap" in sc:
            scores = sc["softcap"] * torch.tanh(scores / sc["softcap"])
        if sc.get("alibi"):
            rel = torch.arange(T) - torch.arange(T).view(-1, 1)
            slopes = torch.tensor(ref.alibi_slopes(h), dtype=torch.float64).view(1, h, 1, 1)
            scores = scores + slopes * (rel if m["causal"] else -rel.abs())
        scores = scores.masked_fill(mask.unsqueeze(1), fill)
        if "sinks" in sc:
            sinks = torch.tensor(sc["sinks"], dtype=torch.float64)
            weights = torch.cat([scores, sinks.view(1, h, 1, 1).expand(B, h, T, 1)], dim=-1).softmax(dim=-1)[..., :-1]
        else:
            weights = scores.softmax(dim=-1)
        return w_o((weights @ v).transpose(1, 2).contiguous().view(B, T, h * d_k))

    x = torch.from_numpy(ref.embed(tokens, sc["embeddings"], d))
    if sc.get("positional") == "sinusoidal":
        x = x + torch.from_numpy(ref.sinusoidal(T, d))[None]
    resid = [x]
    with torch.no_grad():
        for _ in range(sc["n_layers"]):
            x = x + attn(x)
            resid.append(x)
    return torch.stack(resid).numpy()


def check_torch(c, trace_bin, work):
    for name, sc in layered_scenarios().items():
        trace = _engine(trace_bin, work, f"{name}_torch", sc)
        got = _numbers(trace["resid"])
        want = torch_forward(sc)
        err = _worst(got.reshape(want.shape), want)
        c.report(err <= 1e-9, f"{name}: the residual stream = PyTorch's x = x + attn(x)",
                 f"{sc['n_layers']} layers, max rel diff {err:.1e}")
