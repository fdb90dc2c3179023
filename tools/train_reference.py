"""Independent references for `trace --train` (the engine's training, attention_engine::train).

Shares no code with the engine: the model is rebuilt from the report's `params_init` and
`batches` and its configuration, then

- NumPy (`make test`): a forward and a backward written out by hand with einsum, which must
  give the report's `grads_first`, and SGD / Adam / AdamW written from torch.optim's
  definitions, which must give its `steps` losses and `params_final`, to 1e-9;
- PyTorch (`make check-torch`): the same model as torch float64 tensors, its gradient by
  autograd (`loss.backward()`) and its updates by `torch.optim`, which must give the same.

Used by tools/python_check.py; each check reports through its Checker.
"""

import json
import math
import subprocess

import numpy as np

# Small runs covering 1, 2 and 3 layers, causal and not, windows, every position kind,
# every task and every optimizer.
CONFIGS = {
    "previous-token 1 layer causal no positions sgd momentum": {
        "task": "previous-token", "vocab": 7, "T": 5, "batch": 3, "seed": 11, "steps": 6,
        "d_model": 6, "n_heads": 2, "n_layers": 1, "positions": "none", "causal": True,
        "optimizer": {"kind": "sgd", "lr": 0.3, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}},
    "first-token 2 layers bidirectional sinusoidal adam": {
        "task": "first-token", "vocab": 6, "T": 4, "batch": 2, "seed": 12, "steps": 6,
        "d_model": 4, "n_heads": 2, "n_layers": 2, "positions": "sinusoidal", "causal": False,
        "optimizer": {"kind": "adam", "lr": 0.02, "betas": [0.8, 0.99], "eps": 1e-6, "weight_decay": 0.05}},
    "induction 2 layers causal learned adamw": {
        "task": "induction", "vocab": 8, "T": 6, "batch": 3, "seed": 13, "steps": 6,
        "d_model": 6, "n_heads": 3, "n_layers": 2, "positions": "learned", "causal": True,
        "optimizer": {"kind": "adamw", "lr": 0.03, "weight_decay": 0.1}},
    "sentences 1 layer window 2 learned sgd nesterov": {
        "task": "sentences", "lines": ["the cat sat on the mat", "a dog ran", "the dog sat"], "T": 5,
        "batch": 3, "seed": 14, "steps": 5, "d_model": 4, "n_heads": 1, "positions": "learned",
        "causal": False, "window": 2, "optimizer": {"kind": "sgd", "lr": 0.5, "momentum": 0.5, "nesterov": True}},
    "previous-token 3 layers causal window 3 learned adam": {
        "task": "previous-token", "vocab": 5, "T": 6, "batch": 2, "seed": 15, "steps": 5,
        "d_model": 4, "n_heads": 2, "n_layers": 3, "positions": "learned", "causal": True, "window": 3,
        "optimizer": {"kind": "adam", "lr": 0.01}},
}


def run_trace(trace_bin, config, work, name):
    path = work / f"train-{abs(hash(name))}.json"
    path.write_text(json.dumps(config))
    out = subprocess.run([trace_bin, "--train", str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def tensors(named):
    return {k: np.array(v["data"], dtype=np.float64).reshape(v["shape"]) for k, v in named.items()}


def sinusoids(T, d):
    pos = np.arange(T)[:, None].astype(np.float64)
    c = np.arange(d)
    angle = pos / 10000.0 ** ((c - c % 2) / d)
    return np.where(c % 2 == 0, np.sin(angle), np.cos(angle))


def blocked_mask(T, causal, window):
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    blocked = (j > i) if causal else np.zeros((T, T), dtype=bool)
    if window:
        blocked = blocked | ((j + window <= i) if causal else (np.abs(i - j) >= window))
    return blocked


class NumpyModel:
    """The attention-only model in NumPy, with its backward by hand."""

    def __init__(self, config):
        self.cfg = config
        self.L = config.get("n_layers", 1)
        self.h = config["n_heads"]
        self.d = config["d_model"]
        self.T = config["T"]
        self.blocked = blocked_mask(self.T, config.get("causal", False), config.get("window"))

    def heads(self, x):  # (B, T, d) -> (B, h, T, d_k)
        B, T, d = x.shape
        return x.reshape(B, T, self.h, d // self.h).transpose(0, 2, 1, 3)

    def merge(self, x):  # (B, h, T, d_k) -> (B, T, d)
        B, h, T, dk = x.shape
        return x.transpose(0, 2, 1, 3).reshape(B, T, h * dk)

    def forward(self, p, tokens, targets):
        positions = self.cfg.get("positions", "none")
        x = p["E"][tokens]
        if positions == "learned":
            x = x + p["P"]
        elif positions == "sinusoidal":
            x = x + sinusoids(self.T, self.d)
        dk = self.d // self.h
        cache = []
        for l in range(self.L):
            w = lambda n: p[f"layers[{l}].{n}"]  # noqa: E731
            q, k, v = (self.heads(x @ w(f"W_{n}") + w(f"b_{n}")) for n in "QKV")
            s = np.where(self.blocked, -np.inf, q @ k.transpose(0, 1, 3, 2) / math.sqrt(dk))
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            a = e / e.sum(axis=-1, keepdims=True)
            z = self.merge(a @ v)
            cache.append((x, q, k, v, a, z))
            x = x + z @ w("W_O") + w("b_O")
        logits = x @ p["W_U"]
        m = logits.max(axis=-1, keepdims=True)
        probs = np.exp(logits - m) / np.exp(logits - m).sum(axis=-1, keepdims=True)
        scored = targets >= 0
        lse = (m[..., 0] + np.log(np.exp(logits - m).sum(axis=-1)))
        picked = np.take_along_axis(logits, np.maximum(targets, 0)[..., None], axis=-1)[..., 0]
        loss = float((lse - picked)[scored].sum() / scored.sum())
        return loss, (cache, x, probs, scored)

    def backward(self, p, tokens, targets, saved):
        cache, x_last, probs, scored = saved
        dk = self.d // self.h
        g = {}
        onehot = np.eye(probs.shape[-1])[np.maximum(targets, 0)]
        dlogits = (probs - onehot) * scored[..., None] / scored.sum()
        g["W_U"] = np.einsum("btd,btv->dv", x_last, dlogits)
        dx = dlogits @ p["W_U"].T
        for l in reversed(range(self.L)):
            w = lambda n: p[f"layers[{l}].{n}"]  # noqa: E731
            x, q, k, v, a, z = cache[l]
            g[f"layers[{l}].W_O"] = np.einsum("btc,btd->cd", z, dx)
            g[f"layers[{l}].b_O"] = dx.sum(axis=(0, 1))
            dz = self.heads(dx @ w("W_O").T)
            da = dz @ v.transpose(0, 1, 3, 2)
            dv = a.transpose(0, 1, 3, 2) @ dz
            ds = a * (da - (da * a).sum(axis=-1, keepdims=True))
            dq = ds @ k / math.sqrt(dk)
            dkk = ds.transpose(0, 1, 3, 2) @ q / math.sqrt(dk)
            dx_next = dx.copy()
            for n, dy in (("Q", dq), ("K", dkk), ("V", dv)):
                dy = self.merge(dy)
                g[f"layers[{l}].W_{n}"] = np.einsum("btc,btd->cd", x, dy)
                g[f"layers[{l}].b_{n}"] = dy.sum(axis=(0, 1))
                dx_next = dx_next + dy @ w(f"W_{n}").T
            dx = dx_next
        g["E"] = np.zeros_like(p["E"])
        np.add.at(g["E"], tokens, dx)
        if "P" in p:
            g["P"] = dx.sum(axis=0)
        return g


class NumpyOptimizer:
    """torch.optim.SGD / Adam / AdamW (single-tensor, maximize=False, amsgrad=False)."""

    def __init__(self, cfg):
        self.cfg = dict(cfg)
        self.state = {}
        self.t = 0

    def step(self, p, g):
        c = self.cfg
        self.t += 1
        kind, lr = c["kind"], c["lr"]
        for name in p:
            grad = g[name]
            if kind == "sgd":
                wd, mom, damp = c.get("weight_decay", 0.0), c.get("momentum", 0.0), c.get("dampening", 0.0)
                if wd:
                    grad = grad + wd * p[name]
                if mom:
                    buf = self.state.get(name)
                    buf = grad.copy() if buf is None else buf * mom + (1 - damp) * grad
                    self.state[name] = buf
                    grad = grad + mom * buf if c.get("nesterov") else buf
                p[name] = p[name] - lr * grad
            else:
                b1, b2 = c.get("betas", [0.9, 0.999])
                eps = c.get("eps", 1e-8)
                wd = c.get("weight_decay", 0.01 if kind == "adamw" else 0.0)
                if kind == "adamw":
                    p[name] = p[name] * (1 - lr * wd)
                elif wd:
                    grad = grad + wd * p[name]
                m, v = self.state.get(name, (np.zeros_like(grad), np.zeros_like(grad)))
                m = m + (1 - b1) * (grad - m)
                v = v * b2 + (1 - b2) * grad * grad
                self.state[name] = (m, v)
                step_size = lr / (1 - b1 ** self.t)
                denom = np.sqrt(v) / math.sqrt(1 - b2 ** self.t) + eps
                p[name] = p[name] - step_size * (m / denom)


def exact_zero_b_k(grads, c, name):
    """dL/db_K is exactly 0 (a bias on every key shifts each score row by a constant, which the
    softmax ignores); computed, it is roundoff of ~1e-17, which Adam's division by sqrt(v) would
    turn into steps of up to lr. The engine writes the exact 0; here the computed value is
    checked to be roundoff, then set to that 0 too, so the runs follow the same math."""
    for key, g in grads.items():
        if key.endswith(".b_K"):
            biggest = float(np.max(np.abs(np.asarray(g)), initial=0.0))
            if biggest > 1e-12:
                c.report(False, f"{name}: {key}'s gradient is roundoff of 0", f"{biggest:.1e}")
            g[...] = 0.0


def close(got, want, tol=1e-9):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol * np.maximum(1.0, np.abs(want))))


def worst(got, want):
    return max(float(np.max(np.abs(np.asarray(got[k]) - np.asarray(want[k])), initial=0.0)) for k in want)


def check_numpy(c, trace_bin, work):
    for name, config in CONFIGS.items():
        report = run_trace(trace_bin, config, work, name)
        model = NumpyModel(config)
        p = tensors(report["params_init"])
        opt = NumpyOptimizer(config["optimizer"])
        losses, grads_first = [], None
        for batch in report["batches"]:
            tokens, targets = np.array(batch["tokens"]), np.array(batch["targets"])
            loss, saved = model.forward(p, tokens, targets)
            g = model.backward(p, tokens, targets, saved)
            grads_first = grads_first or {k: v.copy() for k, v in g.items()}
            exact_zero_b_k(g, c, f"train numpy {name}")
            losses.append(loss)
            opt.step(p, g)
        want_g = tensors(report["grads_first"])
        g_ok = set(grads_first) == set(want_g) and all(close(grads_first[k], want_g[k]) for k in want_g)
        c.report(g_ok, f"train numpy {name}: grads_first ({len(want_g)} tensors) = hand-written backward",
                 f"max |diff| {worst(grads_first, want_g):.1e}")
        want_l = [s["loss"] for s in report["steps"]]
        want_p = tensors(report["params_final"])
        t_ok = close(losses, want_l) and all(close(p[k], want_p[k]) for k in want_p)
        c.report(t_ok, f"train numpy {name}: {len(want_l)} losses and params_final = NumPy {config['optimizer']['kind']}",
                 f"max |diff| params {worst(p, want_p):.1e}, losses {np.max(np.abs(np.array(losses) - want_l)):.1e}")
    # the check can fail: one gradient number changed must be caught
    report = run_trace(trace_bin, CONFIGS["induction 2 layers causal learned adamw"], work, "broken")
    model = NumpyModel(report["config"])
    p = tensors(report["params_init"])
    batch = report["batches"][0]
    tokens, targets = np.array(batch["tokens"]), np.array(batch["targets"])
    g = model.backward(p, tokens, targets, model.forward(p, tokens, targets)[1])
    want = tensors(report["grads_first"])
    want["layers[1].W_K"].flat[3] += 1e-7
    c.report(not close(g["layers[1].W_K"], want["layers[1].W_K"]), "train numpy: a gradient off by 1e-7 is caught")


def check_torch(c, trace_bin, work):
    import torch
    import torch.nn.functional as F

    for name, config in CONFIGS.items():
        report = run_trace(trace_bin, config, work, name)
        L, h, d, T = config.get("n_layers", 1), config["n_heads"], config["d_model"], config["T"]
        dk = d // h
        params = {k: torch.tensor(np.array(v["data"]).reshape(v["shape"]), dtype=torch.float64, requires_grad=True)
                  for k, v in report["params_init"].items()}
        blocked = torch.tensor(blocked_mask(T, config.get("causal", False), config.get("window")))
        pe = torch.tensor(sinusoids(T, d))
        positions = config.get("positions", "none")

        def forward(tokens, targets):
            x = params["E"][tokens]
            if positions == "learned":
                x = x + params["P"]
            elif positions == "sinusoidal":
                x = x + pe
            B = x.shape[0]
            for l in range(L):
                w = lambda n: params[f"layers[{l}].{n}"]  # noqa: E731
                q, k, v = ((x @ w(f"W_{n}") + w(f"b_{n}")).view(B, T, h, dk).transpose(1, 2) for n in "QKV")
                scores = (q @ k.transpose(-2, -1) / math.sqrt(dk)).masked_fill(blocked, float("-inf"))
                z = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, d)
                x = x + z @ w("W_O") + w("b_O")
            logits = x @ params["W_U"]
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-1)

        o = dict(config["optimizer"])
        kind = o.pop("kind")
        if "betas" in o:
            o["betas"] = tuple(o["betas"])
        opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind](
            list(params.values()), **o)
        losses, grads_first = [], None
        for batch in report["batches"]:
            opt.zero_grad()
            loss = forward(torch.tensor(batch["tokens"]), torch.tensor(batch["targets"]))
            loss.backward()
            if grads_first is None:
                grads_first = {k: t.grad.detach().numpy().copy() for k, t in params.items()}
            exact_zero_b_k({k: t.grad for k, t in params.items()}, c, f"train torch {name}")
            losses.append(loss.item())
            opt.step()
        want_g = tensors(report["grads_first"])
        c.report(all(close(grads_first[k], want_g[k]) for k in want_g),
                 f"train torch {name}: grads_first = autograd", f"max |diff| {worst(grads_first, want_g):.1e}")
        final = {k: t.detach().numpy() for k, t in params.items()}
        want_p = tensors(report["params_final"])
        want_l = [s["loss"] for s in report["steps"]]
        c.report(close(losses, want_l) and all(close(final[k], want_p[k]) for k in want_p),
                 f"train torch {name}: {len(losses)} losses and params_final = torch.optim.{opt.__class__.__name__}",
                 f"max |diff| params {worst(final, want_p):.1e}, losses {np.max(np.abs(np.array(losses) - want_l)):.1e}")


# One SGD step on W_Q through one attention row (`trace --by-hand`,
# attention_engine::train::by_hand): the baseball pair the lesson uses, and random rows of
# odd sizes with projections of their own.
def by_hand_inputs():
    rng = np.random.default_rng(7)
    inputs = {"baseball pair, bat asks for sports": {"x": [[2, 0, 0], [1, 1, 0]], "query": 1, "target": 0, "lr": 1.0}}
    for t, d in [(1, 1), (3, 2), (5, 3), (4, 5)]:
        inputs[f"random T={t} d={d}"] = {
            "x": rng.normal(size=(t, d)).tolist(), "query": t - 1, "target": d // 2, "lr": 0.5,
            **{w: rng.normal(size=(d, d)).tolist() for w in ("w_q", "w_k", "w_v")}}
    return inputs


def run_by_hand(trace_bin, step, work, name):
    path = work / "by_hand.json"
    path.write_text(json.dumps(step))
    out = subprocess.run([trace_bin, "--by-hand", str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"trace --by-hand failed on {name}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def numpy_by_hand(step):
    x = np.array(step["x"], dtype=float)
    d = x.shape[1]
    w = {k: np.array(step[k], dtype=float) if k in step else np.eye(d) for k in ("w_q", "w_k", "w_v")}

    def forward(w_q):
        q, k, v = x[step["query"]] @ w_q, x @ w["w_k"], x @ w["w_v"]
        s = k @ q / math.sqrt(d)
        p = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        o = p @ v
        m = np.exp(o - o.max()) / np.exp(o - o.max()).sum()
        return {"q": q, "k": k, "v": v, "scores": s, "weights": p, "output": o, "meaning": m,
                "loss": -math.log(m[step["target"]])}

    f = forward(w["w_q"])
    d_o = f["meaning"] - np.eye(d)[step["target"]]
    d_p = f["v"] @ d_o
    d_s = f["weights"] * (d_p - d_p @ f["weights"])
    d_q = d_s @ f["k"] / math.sqrt(d)
    d_w_q = np.outer(x[step["query"]], d_q)
    w_q_after = w["w_q"] - step["lr"] * d_w_q
    return {"before": f, "d_output": d_o, "d_weights": d_p, "d_scores": d_s, "d_query": d_q,
            "d_w_q": d_w_q, "w_q_after": w_q_after, "after": forward(w_q_after)}


def flat_dict(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat_dict(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = np.ravel(np.array(v, dtype=float))
    return out


def check_by_hand_numpy(c, trace_bin, work):
    for name, step in by_hand_inputs().items():
        got = flat_dict(run_by_hand(trace_bin, step, work, name))
        want = flat_dict(numpy_by_hand(step))
        ok = all(k in got and got[k].shape == v.shape and close(got[k], v, 1e-12) for k, v in want.items())
        diff = max(float(np.max(np.abs(got[k] - v), initial=0.0)) for k, v in want.items() if k in got)
        c.report(ok, f"by-hand numpy {name}: every intermediate of the W_Q step = NumPy's",
                 f"{len(want)} tensors, max |diff| {diff:.1e}")
    # the check can fail: dL/dW_Q off by 1e-10 must be caught
    step = by_hand_inputs()["baseball pair, bat asks for sports"]
    got, want = run_by_hand(trace_bin, step, work, "broken"), numpy_by_hand(step)
    c.report(not close(np.ravel(want["d_w_q"]) + 1e-10, got["d_w_q"], 1e-12), "by-hand numpy: dL/dW_Q off by 1e-10 is caught")


def check_by_hand_torch(c, trace_bin, work):
    import torch

    for name, step in by_hand_inputs().items():
        got = run_by_hand(trace_bin, step, work, name)
        x = torch.tensor(step["x"], dtype=torch.float64)
        d = x.shape[1]
        w = {k: torch.tensor(step[k], dtype=torch.float64) if k in step else torch.eye(d, dtype=torch.float64)
             for k in ("w_q", "w_k", "w_v")}
        w_q = w["w_q"].clone().requires_grad_(True)
        q, k, v = x[step["query"]] @ w_q, x @ w["w_k"], x @ w["w_v"]
        p = torch.softmax(k @ q / math.sqrt(d), dim=-1)
        loss = torch.nn.functional.cross_entropy((p @ v)[None], torch.tensor([step["target"]]))
        loss.backward()
        grad = w_q.grad.detach().numpy().ravel().copy()
        torch.optim.SGD([w_q], lr=step["lr"]).step()
        ok = (close(got["before"]["loss"], loss.item(), 1e-12) and close(got["d_w_q"], grad, 1e-12)
              and close(got["w_q_after"], w_q.detach().numpy().ravel(), 1e-12))
        c.report(ok, f"by-hand torch {name}: loss, dL/dW_Q and the SGD step = autograd and torch.optim.SGD")
