#!/usr/bin/env python3
"""Independent numpy reference for Attention Lens.

Computes multi-head scaled dot-product self-attention step by step, in float64,
for a "scenario" JSON file, and prints the full trace as an "expected" JSON
file. The Rust engine's tests compare their own trace against these files.
This script deliberately shares no code with the Rust engine.

Usage
-----
    # one scenario -> expected trace on stdout
    python3 tools/numpy_reference.py scenario.json > expected.json

    # rewrite every tests/fixtures/NAME.expected.json from NAME.scenario.json
    python3 tools/numpy_reference.py --regenerate

    # re-create the fixture *scenarios* (seeded RNG), then regenerate them
    python3 tools/numpy_reference.py --make-scenarios
    python3 tools/numpy_reference.py --regenerate

Requires numpy (see tools/requirements.txt).

Scenario format (input)
-----------------------
    { "sentences": ["the cat sat", "a dog"], "d_model": 4, "n_heads": 2,
      "embeddings": {"the": [...d_model floats...], ..., "<pad>": [...optional...]},
      "projections": {"w_q": [[...]], "b_q": [...], ..., "w_o": [[...]], "b_o": [...]}
                     or "identity",
      "mask": {"causal": false, "padding": "none|keys|keys_and_queries",
               "fill": "neg_inf|large_negative"} }

Projections follow the paper: y = x @ W + b, with W[i][j], i = input dim.

Expected format (output)
------------------------
    { "tokens": [["the","cat","sat"], ["a","dog","<pad>"]],
      "mask": {"shape": [B,T,T], "blocked": [true, false, ...]},
      "fully_masked_rows": [[b, i], ...],
      "steps": [{"name": "x", "shape": [B,T,d_model], "data": [...C order...]}, ...] }

Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".
"""

import json
import math
import sys
from pathlib import Path

import numpy as np

PAD = "<pad>"
FILL_VALUES = {"neg_inf": -np.inf, "large_negative": -1e9}
PROJECTION_NAMES = ["q", "k", "v", "o"]
FIXTURE_DIR = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


# ---------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------

def tokenize(sentences):
    """Split on whitespace and pad every sentence at the end to the longest length."""
    tokens = [sentence.split() for sentence in sentences]
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


def load_projections(projections, d_model):
    """Return {"q": (W, b), "k": ..., "v": ..., "o": ...}, W of shape (d_model, d_model)."""
    if projections == "identity":
        return {n: (np.eye(d_model), np.zeros(d_model)) for n in PROJECTION_NAMES}
    result = {}
    for n in PROJECTION_NAMES:
        W = np.array(projections[f"w_{n}"], dtype=np.float64)
        b = np.array(projections[f"b_{n}"], dtype=np.float64)
        if W.shape != (d_model, d_model) or b.shape != (d_model,):
            raise ValueError(f"w_{n}/b_{n} have shapes {W.shape}/{b.shape}")
        result[n] = (W, b)
    return result


def blocked_mask(tokens, causal, padding):
    """Boolean (B,T,T) mask: True where query i may NOT attend to key j."""
    is_pad = np.array([[t == PAD for t in row] for row in tokens])  # (B,T)
    B, T = is_pad.shape
    blocked = np.zeros((B, T, T), dtype=bool)
    if causal:
        blocked |= np.triu(np.ones((T, T), dtype=bool), k=1)  # key j > query i
    if padding in ("keys", "keys_and_queries"):
        blocked |= is_pad[:, None, :]  # no query attends to a <pad> key
    if padding == "keys_and_queries":
        blocked |= is_pad[:, :, None]  # a <pad> query row is fully blocked
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
    """Run the scenario; return (tokens, blocked mask, list of (name, array) steps)."""
    d_model, h = scenario["d_model"], scenario["n_heads"]
    if d_model % h != 0:
        raise ValueError("d_model must be divisible by n_heads")
    d_k = d_model // h

    tokens = tokenize(scenario["sentences"])
    B, T = len(tokens), len(tokens[0])
    proj = load_projections(scenario["projections"], d_model)
    mask_cfg = scenario["mask"]
    blocked = blocked_mask(tokens, mask_cfg["causal"], mask_cfg["padding"])
    fill = FILL_VALUES[mask_cfg["fill"]]

    def split_heads(a):  # (B,T,d_model) -> (B,h,T,d_k)
        return a.reshape(B, T, h, d_k).transpose(0, 2, 1, 3)

    x = embed(tokens, scenario["embeddings"], d_model)
    q = x @ proj["q"][0] + proj["q"][1]
    k = x @ proj["k"][0] + proj["k"][1]
    v = x @ proj["v"][0] + proj["v"][1]
    q_heads, k_heads, v_heads = split_heads(q), split_heads(k), split_heads(v)
    scores = q_heads @ k_heads.swapaxes(-1, -2)
    scaled = scores / math.sqrt(d_k)
    # masked_fill: blocked scores are replaced (not added to); same mask for every head
    masked = np.where(blocked[:, None, :, :], fill, scaled)
    weights = softmax(masked)
    context = weights @ v_heads  # a NaN weights row gives a NaN context row
    concat = context.transpose(0, 2, 1, 3).reshape(B, T, d_model)
    output = concat @ proj["o"][0] + proj["o"][1]

    steps = [("x", x), ("q", q), ("k", k), ("v", v),
             ("q_heads", q_heads), ("k_heads", k_heads), ("v_heads", v_heads),
             ("scores", scores), ("scaled", scaled), ("masked", masked),
             ("weights", weights), ("context", context), ("concat", concat),
             ("output", output)]
    return tokens, blocked, steps


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
    tokens, blocked, steps = attention_trace(scenario)
    fully_masked = [[int(b), int(i)] for b, i in zip(*np.nonzero(blocked.all(axis=-1)))]
    return {
        "tokens": tokens,
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


def sanity_check(doc):
    """Assert basic invariants of an expected document (used by --regenerate)."""
    steps = {s["name"]: s for s in doc["steps"]}
    B, T, _ = doc["mask"]["shape"]
    blocked = np.array(doc["mask"]["blocked"]).reshape(B, T, T)
    w = steps["weights"]
    weights = np.array([np.nan if c == "NaN" else c for c in w["data"]], dtype=float).reshape(w["shape"])
    full = blocked.all(axis=-1)
    for b in range(B):
        for i in range(T):
            rows = weights[b, :, i, :]
            if full[b, i] and np.isnan(rows).all():
                continue  # fully masked with -inf: NaN row, as in PyTorch
            assert np.allclose(rows.sum(axis=-1), 1.0, atol=1e-12), (b, i)
            if not full[b, i]:
                assert np.all(rows[:, blocked[b, i]] == 0.0), (b, i)


def regenerate(fixture_dir=FIXTURE_DIR):
    for scenario_path in sorted(fixture_dir.glob("*.scenario.json")):
        name = scenario_path.name[: -len(".scenario.json")]
        doc = expected_document(json.loads(scenario_path.read_text()))
        sanity_check(doc)
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
