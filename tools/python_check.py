#!/usr/bin/env python3
"""Runs the engine's Python exports ("Take it to Python") and checks that they check.

For every scenario below it asks the engine's command line for the exported script
(`trace --python`) and the notebook (`trace --notebook`), then:

  1. runs the script: it must exit 0 and end with `K passed, 0 failed`, K >= 14;
  2. changes one number of EXPECTED["output"], and breaks the NumPy pipeline twice
     (no / sqrt(d_k); no transpose when splitting the heads): each must make the script
     fail (non-zero exit), so the check compares real computations, not EXPECTED with
     itself;
  3. runs the notebook's code cells in order (a plain JSON read and exec, no Jupyter).

With --torch, PyTorch must be installed: the scripts must also pass their PyTorch checks,
and tools/from_pytorch.py is tested against nn.MultiheadAttention and the seeds'
MultiHeadAttention (engine output vs module forward, to 1e-9), and every step's PyTorch
line is run in PyTorch on the step's inputs (check_pytorch_lines). It also records what
F.scaled_dot_product_attention returns for a fully masked row.

More than one layer (tools/layers_reference.py): every layer's steps and the residual stream
equal a NumPy forward to 1e-9, and with --torch PyTorch's `x = x + attn(x)`. The exports of
layered runs (layered_scenarios) run every layer and check the page's layer and the stream;
an export that forgets the residual add (in NumPy, or in PyTorch with --torch), runs every
layer with layer 1's seeded weights, or adds the positions again in every layer must fail.

Training (`trace --train`, tools/train_reference.py): a NumPy forward and hand-written
backward must reproduce `grads_first`, and NumPy SGD/Adam/AdamW the losses and
`params_final`; with --torch, torch autograd and torch.optim must too (all to 1e-9).

Usage:
    python3 tools/python_check.py --trace-bin target/debug/examples/trace [--torch]

Ends with the line `N passed, M failed`; exits 1 if anything failed.
"""

import argparse
import contextlib
import io
import json
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def explicit_projections(rng, d, scale=None, kv=None, q=None):
    """W_Q (d, q), W_O (q, d) and W_K, W_V (d, kv): kv = h_kv * d_k (d unless grouped),
    q = h * d_k (d unless the heads have a size of their own)."""
    scale = scale or 1.0 / math.sqrt(d)
    kv, q = kv or d, q or d
    p = {}
    for n in "qkvo":
        rows, cols = {"q": (d, q), "k": (d, kv), "v": (d, kv), "o": (q, d)}[n]
        p[f"w_{n}"] = np.round(rng.normal(0.0, scale, size=(rows, cols)), 4).tolist()
        p[f"b_{n}"] = np.round(rng.normal(0.0, 0.1, size=cols), 4).tolist()
    return p


def scenarios():
    rng = np.random.default_rng(20240615)
    odd = ["zorp blick fen zorp quell mib tarn", "blick mib yon", "quell yon zorp dax fen"]
    odd_words = sorted({w for s in odd for w in s.split()})
    return {
        # identity, causal + padding both sides, -inf: two NaN rows
        "bat_causal_pad_neg_inf": {
            "sentences": ["I bought a baseball bat", "the bat flew"], "d_model": 3, "n_heads": 1,
            "embeddings": {"baseball": [2, 0, 0], "bat": [1, 1, 0]}, "projections": "identity",
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
        # the same under -1e9: the blocked rows become uniform
        "bat_causal_pad_large_negative": {
            "sentences": ["I bought a baseball bat", "the bat flew"], "d_model": 3, "n_heads": 1,
            "embeddings": {"baseball": [2, 0, 0], "bat": [1, 1, 0]}, "projections": "identity",
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "large_negative"}},
        # seeded weights, lexicon embeddings, sinusoidal positions, key padding
        "seeded_sinusoidal_keys": {
            "sentences": ["the cat sat on the mat", "a dog barked"], "d_model": 8, "n_heads": 2,
            "projections": "seeded", "seed": 7, "positional": "sinusoidal",
            "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # cross-attention, T_q = 5 != T_k = 7, seeded, key padding
        "cross_keys": {
            "sentences": ["the cat sat down today", "dogs run"],
            "kv_sentences": ["le chat s'est assis", "les chiens courent vite dans le parc"],
            "d_model": 4, "n_heads": 2, "projections": "seeded", "seed": 3,
            "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # cross-attention with positions, causal on a T_q x T_k mask, pad queries: NaN rows
        "cross_sinusoidal_causal_nan": {
            "sentences": ["one two three four five six", "seven"],
            "kv_sentences": ["a b c", "d e f g"],
            "d_model": 6, "n_heads": 3, "projections": "seeded", "seed": 11, "positional": "sinusoidal",
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
        # odd sizes: B=3, T=7, h=3, d_k=5, explicit weights and biases, odd d_model with positions
        "odd_sizes_explicit": {
            "sentences": odd, "d_model": 15, "n_heads": 3,
            "embeddings": {w: np.round(rng.normal(0.0, 1.0, size=15), 4).tolist() for w in odd_words},
            "projections": explicit_projections(rng, 15), "positional": "sinusoidal",
            "mask": {"causal": True, "padding": "keys", "fill": "large_negative"}},
        # d_model 1
        "d_model_1": {
            "sentences": ["x y z", "y"], "d_model": 1, "n_heads": 1, "projections": "seeded", "seed": 1,
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
        # d_model 2, two heads of d_k = 1, positions
        "d_model_2": {
            "sentences": ["alpha beta gamma delta", "beta gamma"], "d_model": 2, "n_heads": 2,
            "projections": explicit_projections(rng, 2), "positional": "sinusoidal",
            "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # a bigger one whose arrays are written as text blocks (more than 16384 numbers)
        "text_blocks_d64_T40": {
            "sentences": [" ".join(f"w{i % 23}" for i in range(40)), " ".join(f"w{i}" for i in range(25))],
            "d_model": 64, "n_heads": 4, "projections": "seeded", "seed": 5, "positional": "sinusoidal",
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
        # today's models: GQA (4 query heads, 2 key/value heads), RoPE rotate_half, ALiBi and a
        # causal sliding window, seeded weights
        "gqa_rope_half_alibi_window": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000}, "alibi": True,
            "projections": "seeded", "seed": 9,
            "mask": {"causal": True, "padding": "keys", "fill": "neg_inf", "window": 3}},
        # causal self-attention with nothing else (no padding, window or ALiBi): PyTorch decodes it
        # with causal_lower_right; GQA 4 -> 2 and rotate_half RoPE
        "gqa_rope_causal_plain": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000}, "projections": "seeded", "seed": 2,
            "mask": {"causal": True, "padding": "none", "fill": "neg_inf"}},
        # MQA in cross-attention with interleaved RoPE (base 100) and sinusoidal positions too;
        # pad queries: NaN rows
        "mqa_cross_rope_interleaved": {
            "sentences": ["one two three four five", "six"], "kv_sentences": ["a b c", "d e f g h i"],
            "d_model": 12, "n_heads": 3, "n_kv_heads": 1, "rope": {"style": "interleaved", "base": 100},
            "positional": "sinusoidal", "projections": explicit_projections(rng, 12, kv=4),
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
        # Gemma 2's scores: a scale of its own and logit softcapping (c = 0.6, so every score is
        # capped visibly), with GQA, rotate_half RoPE, a causal window and padding
        "gemma2_scale_softcap": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000}, "scale": 0.3, "softcap": 0.6,
            "projections": "seeded", "seed": 6,
            "mask": {"causal": True, "padding": "keys", "fill": "neg_inf", "window": 4}},
        # QK-norm (Qwen3, Gemma 3): every query and key head RMS-normalised with its weight, before
        # interleaved RoPE, GQA 4 -> 2, causal with padding (NaN rows)
        "qk_norm_gqa_rope": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "interleaved", "base": 100},
            "qk_norm": {"q_weight": [1.5, 0.5], "k_weight": [0.75, 1.25], "eps": 0.01},
            "projections": "seeded", "seed": 12,
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf"}},
        # QK-norm over the whole projection (OLMo 2): each token's h·d_k query and h_kv·d_k key
        # numbers RMS-normalised together before the split, causal, padded keys
        "qk_norm_whole_gqa": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 100},
            "qk_norm": {"q_weight": [1.5, 0.5, 1.0, 2.0, 0.25, 1.25, 0.75, 1.0], "k_weight": [0.75, 1.25, 1.5, 0.5],
                        "eps": 0.01, "whole_projection": True},
            "projections": "seeded", "seed": 12,
            "mask": {"causal": True, "padding": "keys", "fill": "neg_inf"}},
        # a rotary fraction (GPT-NeoX's rotary_pct, Phi's partial_rotary_factor): the first half of
        # each head's dimensions turn, in both pairings
        "rope_fraction_half": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 16, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000, "fraction": 0.5}, "projections": "seeded",
            "seed": 13, "mask": {"causal": True, "padding": "keys", "fill": "neg_inf"}},
        "rope_fraction_interleaved_cross": {
            "sentences": ["one two three", "four"], "kv_sentences": ["a b c d", "e"], "d_model": 12, "n_heads": 2,
            "rope": {"style": "interleaved", "base": 500, "fraction": 0.34}, "projections": "seeded", "seed": 14,
            "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # RoPE's scaled frequencies: Llama 3.1's (of d_k = 8's pairs, 0 and 1 kept, 2 blended, 3
        # divided by the factor), and linear with a rotary fraction in cross-attention
        "rope_llama3_gqa": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 16, "n_heads": 2,
            "n_kv_heads": 1, "rope": {"style": "half", "base": 10000, "scaling": {
                "type": "llama3", "factor": 8, "low_freq_factor": 2, "high_freq_factor": 8,
                "original_max_position_embeddings": 2048}},
            "projections": "seeded", "seed": 15, "mask": {"causal": True, "padding": "keys", "fill": "neg_inf"}},
        "rope_linear_interleaved_cross": {
            "sentences": ["one two three", "four"], "kv_sentences": ["a b c d", "e"], "d_model": 12, "n_heads": 2,
            "rope": {"style": "interleaved", "base": 500, "fraction": 0.34, "scaling": {"type": "linear", "factor": 3}},
            "projections": "seeded", "seed": 16, "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # YaRN: d_k = 8's pairs 0, 1 kept, 2 blended, 3 divided, cos and sin times 0.1 ln 4 + 1;
        # not truncated, with a rotary fraction and an attention factor given, in cross-attention
        "rope_yarn_gqa": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 16, "n_heads": 2,
            "n_kv_heads": 1, "rope": {"style": "half", "base": 10000, "scaling": {
                "type": "yarn", "factor": 4, "original_max_position_embeddings": 4096}},
            "projections": "seeded", "seed": 17, "mask": {"causal": True, "padding": "keys", "fill": "neg_inf"}},
        "rope_yarn_untruncated_cross": {
            "sentences": ["one two three", "four"], "kv_sentences": ["a b c d", "e"], "d_model": 16, "n_heads": 2,
            "rope": {"style": "interleaved", "base": 100, "fraction": 0.5, "scaling": {
                "type": "yarn", "factor": 8, "original_max_position_embeddings": 64, "beta_fast": 8,
                "beta_slow": 0.25, "attention_factor": 1.25, "truncate": False}},
            "projections": "seeded", "seed": 18, "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
        # a softcap with ALiBi in cross-attention without causal (the symmetric bias after the cap)
        "softcap_alibi_cross": {
            "sentences": ["one two three four", "five"], "kv_sentences": ["a b c d e", "f g"],
            "d_model": 6, "n_heads": 2, "alibi": True, "softcap": 2.5, "projections": "seeded", "seed": 8,
            "mask": {"causal": False, "padding": "keys", "fill": "large_negative"}},
        # attention sinks (gpt-oss): one logit per head in each row's softmax, with GQA, RoPE, a
        # causal window and padding of keys and queries (a fully blocked row is 0, not NaN)
        "sinks_gqa_rope_window": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000}, "sinks": [0.5, -1.0, 2.0, 0.0],
            "projections": "seeded", "seed": 15,
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "neg_inf", "window": 3}},
        # sinks with every other score option, in cross-attention under -1e9
        "sinks_cross_softcap_norm_alibi": {
            "sentences": ["one two three four", "five"], "kv_sentences": ["a b c d e", "f g"],
            "d_model": 6, "n_heads": 3, "alibi": True, "softcap": 2.5, "scale": 0.45, "sinks": [1.0, -0.5, 0.25],
            "qk_norm": {"q_weight": [1.25, 0.75], "eps": 0.01}, "projections": "seeded", "seed": 16,
            "mask": {"causal": False, "padding": "keys_and_queries", "fill": "large_negative"}},
        # a head size of its own (Gemma's head_dim): h * d_head = 16 from d_model = 6, GQA, RoPE, sinks
        "d_head_gqa_rope_sinks": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 6, "n_heads": 4, "d_head": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000}, "sinks": [0.5, -1.0, 2.0, 0.0],
            "projections": "seeded", "seed": 17,
            "mask": {"causal": True, "padding": "keys", "fill": "neg_inf", "window": 4}},
        # h * d_head = 3 from d_model = 8 (narrower than d_model), cross-attention, ALiBi, QK-norm
        "d_head_narrow_cross_alibi_norm": {
            "sentences": ["one two three four", "five"], "kv_sentences": ["a b c d e", "f g"],
            "d_model": 8, "n_heads": 3, "d_head": 1, "alibi": True, "qk_norm": {"q_weight": [1.5], "eps": 0.01},
            "projections": "seeded", "seed": 18,
            "mask": {"causal": False, "padding": "keys_and_queries", "fill": "large_negative"}},
        # StreamingLLM's kept first keys beside a causal window of 2, with GQA, RoPE and sinks: the
        # decoding cache keeps keys 0 and 1 while the window slides
        "streaming_keep_first_gqa_rope_sinks": {
            "sentences": ["the cat sat on the warm mat by the door", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "rope": {"style": "half", "base": 10000}, "sinks": [0.5, -1.0, 2.0, 0.0],
            "projections": "seeded", "seed": 19,
            "mask": {"causal": True, "padding": "keys", "fill": "neg_inf", "window": 2, "keep_first": 2}},
        # the kept first key without causal (every query sees it), ALiBi, -1e9
        "streaming_keep_first_both_sides_alibi": {
            "sentences": ["alpha beta gamma delta epsilon zeta eta", "beta gamma"], "d_model": 6, "n_heads": 3,
            "alibi": True, "projections": "seeded", "seed": 20,
            "mask": {"causal": False, "padding": "keys_and_queries", "fill": "large_negative", "window": 2,
                     "keep_first": 1}},
        # ALiBi with h = 6 (not a power of two: the paper's interleaved slopes), a window without
        # causal, GQA 6 -> 3, -1e9
        "alibi_h6_window_both_sides": {
            "sentences": ["alpha beta gamma delta epsilon zeta eta", "beta gamma"], "d_model": 12, "n_heads": 6,
            "n_kv_heads": 3, "alibi": True, "projections": "seeded", "seed": 4,
            "mask": {"causal": False, "padding": "keys_and_queries", "fill": "large_negative", "window": 2}},
    }


def layered_scenarios():
    """Runs of more than one layer, exported: every layer runs in the file, the page's layer's
    steps and the whole residual stream are checked (and the mutations below must fail)."""
    rng = np.random.default_rng(20261127)
    s3 = ["one two three four five six", "seven eight nine", "ten eleven"]
    return {
        # two layers, the first shown; seeded weights (seed + l per layer), GQA 4 -> 2,
        # rotate_half RoPE, positions, causal window of 3, padding both sides under -1e9
        "layers2_seeded_gqa_rope_window_pad": {
            "sentences": ["the cat sat on the warm mat", "a dog barked"], "d_model": 8, "n_heads": 4,
            "n_kv_heads": 2, "n_layers": 2, "layer": 1, "projections": "seeded", "seed": 5,
            "positional": "sinusoidal", "rope": {"style": "half", "base": 10000},
            "mask": {"causal": True, "padding": "keys_and_queries", "fill": "large_negative", "window": 3}},
        # three layers, the second shown; explicit weights (the same in every layer), B = 3,
        # GQA 4 -> 2, interleaved RoPE, ALiBi, a causal window of 2, key padding
        "layers3_explicit_gqa_alibi_rope_window": {
            "sentences": s3, "d_model": 8, "n_heads": 4, "n_kv_heads": 2, "n_layers": 3, "layer": 2,
            "embeddings": {w: np.round(rng.normal(0.0, 1.0, size=8), 4).tolist()
                           for w in sorted({w for t in s3 for w in t.split()})},
            "projections": explicit_projections(rng, 8, kv=4), "alibi": True,
            "rope": {"style": "interleaved", "base": 100},
            "mask": {"causal": True, "padding": "keys", "fill": "large_negative", "window": 2}},
        # three layers, the last shown; seeded MQA (h_kv = 1), bidirectional ALiBi, key padding
        # under -inf (no row fully masked), sinks and a softcap
        "layers3_seeded_mqa_alibi_sinks_softcap": {
            "sentences": ["alpha beta gamma delta", "beta gamma"], "d_model": 6, "n_heads": 3,
            "n_kv_heads": 1, "n_layers": 3, "projections": "seeded", "seed": 9, "alibi": True,
            "softcap": 3.0, "sinks": [0.5, -1.0, 0.25],
            "mask": {"causal": False, "padding": "keys", "fill": "neg_inf"}},
    }


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def report(self, ok, what, detail=""):
        self.passed += bool(ok)
        self.failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'}  {what}{'  ' + detail if detail else ''}", flush=True)


def export(trace_bin, flag, scenario_path):
    return subprocess.run([trace_bin, flag, str(scenario_path)], check=True, capture_output=True, text=True).stdout


def run_script(path):
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True)


SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$")


def summary(stdout):
    lines = stdout.strip().splitlines()
    m = SUMMARY.match(lines[-1]) if lines else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def change_first_output_number(script):
    """The first number of EXPECTED["output"], moved by 1e-3 of itself (or NaN -> 0)."""
    m = re.search(r'EXPECTED\["output"\] = (?:np\.array\(\[|numbers\(""")\n\s*([^,\s]+)', script)
    if not m:
        return None
    text = m.group(1)
    value = 0.0 if "nan" in text else float(text) * (1 + 1e-3) + 1e-3
    return script[: m.start(1)] + repr(value) + script[m.end(1):]


def exec_notebook(path):
    """Runs the code cells in order in one namespace; returns (ok, printed text)."""
    nb = json.loads(Path(path).read_text())
    assert nb["nbformat"] == 4, nb["nbformat"]
    namespace = {"__name__": "__main__"}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            for cell in nb["cells"]:
                assert {"cell_type", "source", "metadata"} <= set(cell), cell.keys()
                if cell["cell_type"] == "code":
                    assert cell["outputs"] == [] and cell["execution_count"] is None
                    exec(compile("".join(cell["source"]), str(path), "exec"), namespace)
    except BaseException as e:  # noqa: BLE001 - an assert or SystemExit is a failure too
        return False, out.getvalue() + f"\n{type(e).__name__}: {e}"
    return True, out.getvalue()


def check_mutations(c, work, name, script, mutations, export=False):
    """Runs each broken copy of `script` in `mutations` (what was broken -> the script, or
    None where the mutation does not apply to this scenario) and reports that it fails: a
    check that fails, or, where the shapes no longer fit ("d_head ignored"), an error. A
    mutation that leaves the script as it was fails the check. `export` names the reports
    and files of the MLA export's scripts."""
    label, prefix = ("export, ", "export_") if export else ("", "")
    for what, broken in mutations.items():
        if broken is None:
            continue
        if broken == script:
            c.report(False, f"{name}: {label}{what}", "the mutation did not apply")
            continue
        broken_path = work / f"{prefix}{name}.broken.py"
        broken_path.write_text(broken)
        run = run_script(broken_path)
        counts = summary(run.stdout)
        stopped = counts is None and "Error" in run.stderr and what == "d_head ignored"
        last = (run.stdout.strip().splitlines() or run.stderr.strip().splitlines() or [""])[-1]
        c.report(run.returncode != 0 and (stopped or (counts is not None and counts[1] > 0)),
                 f"{name}: {label}{what} -> fails", f"exit {run.returncode}, {last}")


def check_scenario(c, trace_bin, name, scenario, work, torch):
    scenario_path = work / f"{name}.json"
    scenario_path.write_text(json.dumps(scenario))
    script = export(trace_bin, "--python", scenario_path)
    script_path = work / f"{name}.py"
    script_path.write_text(script)
    start = time.time()
    run = run_script(script_path)
    counts = summary(run.stdout)
    wanted_torch = "torch" in run.stdout and "PyTorch check skipped" not in run.stdout
    ok = run.returncode == 0 and counts is not None and counts[1] == 0 and counts[0] >= 14
    ok = ok and run.stderr.strip() == ""  # no warning either (NaN rows are expected, not warned about)
    if torch:
        ok = ok and wanted_torch and counts[0] >= 28
    c.report(ok, f"{name}: script", f"{run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ''}"
             f" ({len(script) / 1e3:.0f} kB, {time.time() - start:.1f} s)")
    if not ok:
        print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")

    # A changed number, and two real mistakes in the NumPy code, must each fail.
    d_k = scenario.get("d_head", scenario["d_model"] // scenario["n_heads"])
    mutations = {
        "EXPECTED changed": change_first_output_number(script),
        "no / sqrt(d_k)": script.replace("scaled = scores / math.sqrt(d_k)", "scaled = scores")
        if d_k > 1 and "scale" not in scenario else None,
        # a scale of its own ignored: 1 / sqrt(d_k) as usual
        "scale ignored": script.replace("scaled = scores * scale", "scaled = scores / math.sqrt(d_k)")
        if "scale" in scenario else None,
        # the rotary fraction ignored: every dimension turned
        "rope fraction ignored": re.sub(r"rope_dims = \d+", "rope_dims = d_k", script)
        if scenario.get("rope", {}).get("fraction") else None,
        # RoPE's scaling ignored: the unscaled frequencies
        "rope scaling ignored": script.replace("inv_freq = scale_inv_freq(", "inv_freq = (")
        if scenario.get("rope", {}).get("scaling") else None,
        # the head size of its own ignored: d_k = d_model // h, as without one
        "d_head ignored": re.sub(r"d_k = \d+  # a head size of its own", "d_k = d_model // h  #", script)
        if "d_head" in scenario else None,
        # QK-norm's weight left out
        "qk_norm without weight": script.replace("return w * (x / np.sqrt(", "return (x / np.sqrt(")
        if "qk_norm" in scenario else None,
        # OLMo 2's whole-projection norm over (heads, T) mixed up: the split's transpose left out
        "whole qk_norm without the transpose": script.replace(
            "flat = x.transpose(0, 2, 1, 3).reshape(b, t, heads * d)", "flat = x.reshape(b, t, heads * d)")
        if scenario.get("qk_norm", {}).get("whole_projection") else None,
        # the sinks left out of the NumPy softmax
        "sinks ignored": script.replace("both = with_sinks(masked)", "both = masked")
        .replace("weights = (e / e.sum(axis=-1, keepdims=True))[..., :-1]", "weights = e / e.sum(axis=-1, keepdims=True)")
        if "sinks" in scenario else None,
        # the softcap left out of the NumPy step
        "softcap without tanh": script.replace("capped = softcap * np.tanh(scaled / softcap)", "capped = scaled")
        if "softcap" in scenario else None,
        "heads without transpose": script.replace(
            "q_heads = q.reshape(B, T, h, d_k).transpose(0, 2, 1, 3)", "q_heads = q.reshape(B, h, T, d_k)"
        ) if scenario["n_heads"] > 1 else None,
        # grouped heads tiled (0, 1, 0, 1) instead of repeated (0, 0, 1, 1): a classic bug
        "repeat_kv as tile": re.sub(
            r"np\.repeat\((\w+), h // h_kv, axis=1\)", r"np.concatenate([\1] * (h // h_kv), axis=1)", script
        ) if scenario.get("n_kv_heads", scenario["n_heads"]) not in (1, scenario["n_heads"]) else None,
        # rotate_half without its minus sign
        "rotation without the minus": script.replace(
            "rotated = np.concatenate([-x[..., d_k // 2:]", "rotated = np.concatenate([x[..., d_k // 2:]"
        ) if scenario.get("rope", {}).get("style") == "half" else script.replace(
            "rotated = np.stack([-x[..., 1::2]", "rotated = np.stack([x[..., 1::2]"
        ) if "rope" in scenario else None,
        # the online softmax without its correction e^(m - m'): wrong once a later tile raises a maximum
        "tiles without the correction": script.replace("o = c * o + p @", "o = o + p @"),
        # a decoding step's query turned at position 0 instead of its own
        "decode: RoPE at 0": script.replace("q_t = rope(q_t, start=t)", "q_t = rope(q_t)")
        if "rope" in scenario and (scenario.get("mask", {}).get("causal") or scenario.get("kv_sentences")) else None,
        # PyTorch's is_causal=True for one query against the cache: its top-left diagonal sees key 0 only
        "decode with is_causal": script.replace("attn_mask=causal_lower_right(1, t + 1)", "is_causal=True")
        if torch and scenario["mask"].get("causal") and scenario["mask"].get("padding") == "none"
        and not scenario["mask"].get("window") and not scenario.get("alibi") and "kv_sentences" not in scenario
        else None,
        # the kept first keys left out of the mask: the plain window's
        "keep_first ignored": script.replace(" & (j >= keep_first)", "")
        if scenario["mask"].get("keep_first") else None,
        # ALiBi's distance the wrong way round, i - j
        "alibi i - j": script.replace(
            "(np.arange(T_k)[None, :] - np.arange(T)[:, None])", "(np.arange(T)[:, None] - np.arange(T_k)[None, :])"
        ) if scenario.get("alibi") and scenario["mask"].get("causal") else None,
        # without a causal mask, the paper's j - i instead of the symmetric -|i - j|: a reward for later keys
        "alibi not symmetric": script.replace(
            "return j_minus_i if causal else -abs(j_minus_i)", "return j_minus_i"
        ) if scenario.get("alibi") and not scenario["mask"].get("causal") else None,
    }
    check_mutations(c, work, name, script, mutations)
    if scenario.get("n_layers", 1) > 1:
        mutations = {
            # resid[l + 1] = attn_l(resid[l]): the residual add forgotten, in NumPy and in PyTorch
            "no residual add": script.replace("resid_out = resid_in + output", "resid_out = output"),
            "torch: no residual add": script.replace(
                "torch_resid.append(torch_resid[-1] + output)", "torch_resid.append(output)") if torch else None,
            # every layer run with the first layer's seeded weights
            "layer 1's weights in every layer": script.replace(
                "= layer_weights[l]", "= layer_weights[0]") if scenario["projections"] == "seeded" else None,
            # the positions added again before every layer
            "positions in every layer": script.replace(
                "layer_steps.append(attention_layer(l, resid[-1]))",
                "layer_steps.append(attention_layer(l, resid[-1] + (pe if l else 0)))")
            if scenario.get("positional") == "sinusoidal" else None,
        }
        check_mutations(c, work, name, script, mutations)

    notebook_path = work / f"{name}.ipynb"
    notebook_path.write_text(export(trace_bin, "--notebook", scenario_path))
    ok, printed = exec_notebook(notebook_path)
    counts = summary(printed)
    ok = ok and counts is not None and counts[1] == 0 and counts[0] >= 14
    c.report(ok, f"{name}: notebook cells", printed.strip().splitlines()[-1] if printed.strip() else "")
    if not ok:
        print(printed[-3000:])


# ---------------------------------------------------------------------------
# PyTorch only (make check-torch)
# ---------------------------------------------------------------------------

def check_from_pytorch(c, trace_bin, work):
    import torch
    import torch.nn as nn

    sys.path.insert(0, str(ROOT / "tools"))
    from from_pytorch import scenario_from_module

    torch.manual_seed(0)
    d_model, n_heads = 8, 2
    sentences = ["the cat sat on the mat", "a dog ran"]
    words = sorted({w for s in sentences for w in s.split()})
    embeddings = {w: torch.randn(d_model, dtype=torch.float64) for w in words}
    B, T = len(sentences), max(len(s.split()) for s in sentences)
    x = torch.zeros(B, T, d_model, dtype=torch.float64)
    for b, s in enumerate(sentences):
        for i, w in enumerate(s.split()):
            x[b, i] = embeddings[w]
    key_pad = torch.tensor([[i >= len(s.split()) for i in range(T)] for s in sentences])
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)

    def engine(scenario, name):
        path = work / f"{name}.json"
        path.write_text(json.dumps(scenario))
        trace = json.loads(subprocess.run([trace_bin, str(path)], check=True, capture_output=True, text=True).stdout)
        # float() reads the trace's "NaN", "Infinity" and "-Infinity" strings too.
        return {s["name"]: np.array([float(v) for v in s["data"]]).reshape(s["shape"]) for s in trace["steps"]}

    def close(got, want):
        got, want = np.asarray(got), np.asarray(want)
        err = float(np.abs(got - want).max())
        return got.shape == want.shape and err <= 1e-9 * max(1.0, float(np.abs(want).max())), f"max |error| {err:.1e}"

    # nn.MultiheadAttention, key padding, then key padding + causal.
    mha = nn.MultiheadAttention(d_model, n_heads, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():
        mha.in_proj_bias.normal_(0.0, 0.1)
        mha.out_proj.bias.normal_(0.0, 0.1)
    for label, attn_mask, causal_flag in [("keys", None, False), ("causal+keys", causal, True)]:
        scenario = scenario_from_module(mha, sentences, embeddings,
                                        mask={"causal": causal_flag, "padding": "keys", "fill": "neg_inf"})
        steps = engine(scenario, f"mha_{label}")
        with torch.no_grad():
            out, w = mha(x, x, x, key_padding_mask=key_pad, attn_mask=attn_mask,
                         need_weights=True, average_attn_weights=False)
        ok, detail = close(steps["output"], out.numpy())
        c.report(ok, f"from_pytorch: nn.MultiheadAttention ({label}) output vs engine", detail)
        ok, detail = close(steps["weights"], w.numpy())
        c.report(ok, f"from_pytorch: nn.MultiheadAttention ({label}) weights vs engine", detail)

    # The seeds' MultiHeadAttention (seed 002): w_q, w_k, w_v, w_o nn.Linear layers.
    class MultiHeadAttention(nn.Module):
        def __init__(self, d_model=512, n_heads=8):
            super().__init__()
            self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_model // n_heads
            self.w_q = nn.Linear(d_model, d_model, dtype=torch.float64)
            self.w_k = nn.Linear(d_model, d_model, dtype=torch.float64)
            self.w_v = nn.Linear(d_model, d_model, dtype=torch.float64)
            self.w_o = nn.Linear(d_model, d_model, dtype=torch.float64)

        def forward(self, X, mask=None):
            B, T = X.shape[0], X.shape[-2]
            q = self.w_q(X).view(B, T, self.n_heads, self.d_k).permute(0, 2, 1, 3)
            k = self.w_k(X).view(B, T, self.n_heads, self.d_k).permute(0, 2, 1, 3)
            v = self.w_v(X).view(B, T, self.n_heads, self.d_k).permute(0, 2, 1, 3)
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_k)
            if mask is not None:
                scores = scores.masked_fill(mask, float("-inf"))
            sdpa = torch.softmax(scores, dim=-1) @ v
            return self.w_o(sdpa.permute(0, 2, 1, 3).reshape(B, T, self.d_model))

    seed_mha = MultiHeadAttention(d_model, n_heads)
    scenario = scenario_from_module(seed_mha, sentences, embeddings,
                                    mask={"causal": True, "padding": "none", "fill": "neg_inf"})
    steps = engine(scenario, "seed_mha")
    with torch.no_grad():
        out = seed_mha(x, mask=causal)
    ok, detail = close(steps["output"], out.numpy())
    c.report(ok, "from_pytorch: seed 002 MultiHeadAttention (causal) output vs engine", detail)


def check_llama_module(c, trace_bin, work):
    """tools/from_pytorch.py on transformers' own LlamaAttention with grouped heads (4 query,
    2 key/value) and its RoPE: the module's forward (its "sdpa" implementation, causal)
    against the engine's output. Its "eager" implementation takes the softmax in float32
    (`softmax(..., dtype=torch.float32)`), 1e-8 from float64, so its weights are compared
    to 1e-6 only."""
    import torch
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

    sys.path.insert(0, str(ROOT / "tools"))
    from from_pytorch import scenario_from_module

    torch.manual_seed(1)
    cfg = LlamaConfig(hidden_size=8, num_attention_heads=4, num_key_value_heads=2, intermediate_size=16,
                      vocab_size=16, attention_bias=True)
    cfg._attn_implementation = "sdpa"
    attn = LlamaAttention(cfg, 0).double().eval()
    sentences = ["the cat sat on the mat"]
    words = sorted(set(sentences[0].split()))
    embeddings = {w: torch.randn(8, dtype=torch.float64) for w in words}
    scenario = scenario_from_module(attn, sentences, embeddings, mask={"causal": True, "padding": "none", "fill": "neg_inf"})
    path = work / "llama_attention.json"
    path.write_text(json.dumps(scenario))
    trace = json.loads(subprocess.run([trace_bin, str(path)], check=True, capture_output=True, text=True).stdout)
    steps = {s["name"]: np.array([float(v) for v in s["data"]]).reshape(s["shape"]) for s in trace["steps"]}
    x = torch.stack([embeddings[w] for w in sentences[0].split()]).unsqueeze(0)
    T = x.shape[1]
    # LlamaRotaryEmbedding computes its angles in float32 whatever the dtype (autocast off,
    # .float()), which is 1e-8 from float64; its formula, in float64, is used instead, and
    # the module's own apply_rotary_pos_emb turns q and k.
    rotary = LlamaRotaryEmbedding(cfg)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, 2, 2, dtype=torch.float64) / 2))
    assert torch.allclose(rotary.inv_freq.double(), inv_freq.to(rotary.inv_freq.dtype).double())
    emb = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    emb = torch.cat((emb, emb), dim=-1).unsqueeze(0)  # (1, T, head_dim)
    cos, sin = emb.cos(), emb.sin()
    causal = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1).view(1, 1, T, T)
    with torch.no_grad():
        out, _ = attn(x, position_embeddings=(cos, sin), attention_mask=causal)
        attn.config._attn_implementation = "eager"
        _, weights = attn(x, position_embeddings=(cos, sin), attention_mask=causal)
    ok = scenario.get("n_kv_heads") == 2 and scenario.get("rope", {}).get("style") == "half"
    ok = ok and np.allclose(steps["output"], out.numpy(), rtol=1e-9, atol=1e-12)
    ok = ok and np.allclose(steps["weights"], weights.numpy(), rtol=1e-6, atol=1e-7)
    c.report(ok, "from_pytorch: transformers' LlamaAttention (GQA 4/2, RoPE) output and weights vs engine",
             f"max |error| {float(np.abs(steps['output'] - out.numpy()).max()):.1e}")


def check_against_hugging_face(c, trace_bin, work):
    """Grouped heads, RoPE and ALiBi as Hugging Face's `transformers` writes them
    (modeling_llama's rotate_half, apply_rotary_pos_emb and repeat_kv; modeling_bloom's
    build_alibi_tensor, which adds m·j instead of m·(j − i): the same weights, because a
    softmax does not change when a row is shifted by a constant), Meta's complex-number
    RoPE for the interleaved pairing, and F.scaled_dot_product_attention(enable_gqa=True),
    against the engine's trace on random scenarios: weights and output to 1e-9."""
    import torch
    import torch.nn.functional as F
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

    sys.path.insert(0, str(ROOT / "tools"))
    from numpy_reference import alibi_slopes as paper_slopes

    rng = np.random.default_rng(20261124)
    words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu"]
    checked = 0
    for case in range(24):
        h = int(rng.choice([2, 4, 6, 8]))
        h_kv = int(rng.choice([g for g in range(1, h + 1) if h % g == 0]))
        d_k = int(rng.choice([2, 4]))
        d = h * d_k
        rope = [None, "half", "interleaved"][case % 3]
        alibi = bool(case % 2)
        causal = bool(rng.integers(2))
        window = int(rng.integers(1, 5)) if rng.integers(2) else None
        fill = "neg_inf" if rng.integers(2) else "large_negative"
        lens = [int(rng.integers(1, 7)) for _ in range(int(rng.integers(1, 4)))]
        sentences = [" ".join(rng.choice(words, n)) for n in lens]
        scenario = {
            "sentences": sentences, "d_model": d, "n_heads": h, "n_kv_heads": h_kv,
            "embeddings": {w: rng.normal(0, 1, d).tolist() for w in words},
            "projections": explicit_projections(rng, d, kv=h_kv * d_k),
            "mask": {"causal": causal, "padding": "keys", "fill": fill, "window": window}, "alibi": alibi}
        if rope:
            scenario["rope"] = {"style": rope, "base": float(rng.choice([10000.0, 500.0]))}
        path = work / f"hf_{case}.json"
        path.write_text(json.dumps(scenario))
        trace = json.loads(subprocess.run([trace_bin, str(path)], check=True, capture_output=True, text=True).stdout)
        steps = {st["name"]: np.array([float(v) for v in st["data"]]).reshape(st["shape"]) for st in trace["steps"]}
        blocked = torch.tensor(trace["mask"]["blocked"]).view(trace["mask"]["shape"])  # (B, T, T)
        B, T = blocked.shape[0], blocked.shape[1]

        P = {k: torch.tensor(v, dtype=torch.float64) for k, v in scenario["projections"].items()}
        x = torch.tensor(steps["x"])
        q = (x @ P["w_q"] + P["b_q"]).view(B, T, h, d_k).transpose(1, 2)
        k = (x @ P["w_k"] + P["b_k"]).view(B, T, h_kv, d_k).transpose(1, 2)
        v = (x @ P["w_v"] + P["b_v"]).view(B, T, h_kv, d_k).transpose(1, 2)
        if rope:
            base = scenario["rope"]["base"]
            inv_freq = 1.0 / (base ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))
            freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)  # (T, d_k/2)
            if rope == "half":  # transformers' Llama
                emb = torch.cat((freqs, freqs), dim=-1)[None]  # (1, T, d_k)
                q, k = apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
            else:  # Meta's reference Llama (llama/model.py, apply_rotary_emb)
                freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
                turn = lambda t: torch.view_as_real(  # noqa: E731
                    torch.view_as_complex(t.reshape(*t.shape[:-1], -1, 2).contiguous()) * freqs_cis).flatten(-2)
                q, k = turn(q), turn(k)
        scores = q @ repeat_kv(k, h // h_kv).transpose(-2, -1) / math.sqrt(d_k)
        slopes = torch.tensor(paper_slopes(h), dtype=torch.float64) if alibi else None  # the paper's code
        if alibi and causal:  # BLOOM: m * j for the keys j a row may see
            ones = torch.ones(B, T, dtype=torch.float64)
            scores = scores + build_alibi_tensor(ones, h, torch.float64).view(B, h, 1, T)
        elif alibi:  # bidirectional ALiBi (MosaicBERT): -m |i - j|
            scores = scores - slopes.view(1, h, 1, 1) * (torch.arange(T).view(1, T) - torch.arange(T).view(T, 1)).abs()
        scores = scores.masked_fill(blocked.unsqueeze(1), float("-inf") if fill == "neg_inf" else -1e9)
        weights = scores.softmax(dim=-1)
        context = weights @ repeat_kv(v, h // h_kv)
        out = context.transpose(1, 2).reshape(B, T, d) @ P["w_o"] + P["b_o"]
        live = ~blocked.all(dim=-1)  # rows with a key to attend to (a fully blocked one is NaN or uniform)
        w_ok = np.allclose(np.where(live[:, None, :, None], weights, 0), np.where(live[:, None, :, None], steps["weights"], 0),
                           rtol=1e-9, atol=1e-12)
        o_ok = np.allclose(np.where(live[..., None], out, 0), np.where(live[..., None], steps["output"], 0),
                           rtol=1e-9, atol=1e-12)
        # PyTorch's fused attention with grouped heads: ALiBi as m·(j − i) in a float mask
        bias = torch.zeros(1, h, T, T, dtype=torch.float64)
        if alibi:
            distance = torch.arange(T).view(1, T) - torch.arange(T).view(T, 1)
            bias = slopes.view(1, h, 1, 1) * (distance if causal else -distance.abs())
        sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=bias.masked_fill(blocked.unsqueeze(1), float("-inf")),
                                              enable_gqa=True)
        s_ok = np.allclose(np.where(live[:, None, :, None], sdpa, 0), np.where(live[:, None, :, None], steps["context"], 0),
                           rtol=1e-9, atol=1e-12)
        label = f"h={h} h_kv={h_kv} d_k={d_k} rope={rope} alibi={alibi} causal={causal} window={window} {fill}"
        c.report(w_ok and o_ok and s_ok, f"hugging face {case}: {label}",
                 f"weights {w_ok}, output {o_ok}, SDPA(enable_gqa) context {s_ok}")
        checked += 1
    return checked


# Each family's real transformers classes, one small model of two layers: (module of
# transformers.models, config class, model class, config fields, layer, what a refusal
# must name or None when the engine must match the layer's forward). The layer's own
# config, mask, window and RoPE are what the model builds for it.
HF_SMALL = dict(hidden_size=8, num_attention_heads=4, num_key_value_heads=2, intermediate_size=16,
                vocab_size=16, num_hidden_layers=2, attn_implementation="eager", pad_token_id=0, bos_token_id=1,
                eos_token_id=2)
# A small DeepSeek-V3: latent 4, heads of 3 + 2 for queries and keys, values 3, two experts
DEEPSEEK = dict(kv_lora_rank=4, qk_rope_head_dim=2, qk_nope_head_dim=3, v_head_dim=3, n_routed_experts=2,
                num_experts_per_tok=1, n_group=1, topk_group=1, first_k_dense_replace=2)
HF_FAMILIES = {
    "Llama": ("llama", "LlamaConfig", "LlamaModel", dict(attention_bias=True), 0, None),
    # head_dim 8 at base 500000: wavelengths 6.3, 167, 4450 and 118 000, so with 8192 / 32 = 256
    # and 8192 / 1 the first two pairs are kept, the third blended and the fourth divided by 8
    "Llama (llama3 RoPE)": ("llama", "LlamaConfig", "LlamaModel", dict(head_dim=8, max_position_embeddings=16384, rope_parameters={
        "rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
        "high_freq_factor": 32.0, "original_max_position_embeddings": 8192}), 0, None),
    "Llama (linear RoPE)": ("llama", "LlamaConfig", "LlamaModel", dict(head_dim=4, rope_parameters={
        "rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}), 0, None),
    "Llama (head_dim 4, h·head_dim = 16 ≠ 8)": ("llama", "LlamaConfig", "LlamaModel", dict(head_dim=4), 0, None),
    # Gemma 2 and 3 with a head size of their own, as the released models have (h·head_dim ≠ hidden_size)
    "Gemma 2 (head_dim 6, h·head_dim = 24 ≠ 8)": ("gemma2", "Gemma2Config", "Gemma2Model", dict(
        head_dim=6, query_pre_attn_scalar=3, attn_logit_softcapping=0.8, sliding_window=3), 0, None),
    "Gemma 3 (head_dim 4, h·head_dim = 16 ≠ 8, full layer)": ("gemma3", "Gemma3TextConfig", "Gemma3TextModel", dict(
        head_dim=4, query_pre_attn_scalar=3, sliding_window=3, sliding_window_pattern=2), 1, None),
    "Mistral (window 3)": ("mistral", "MistralConfig", "MistralModel", dict(sliding_window=3), 0, None),
    "Qwen2 (biases, sliding layer)": ("qwen2", "Qwen2Config", "Qwen2Model",
                                      dict(use_sliding_window=True, sliding_window=3, max_window_layers=1), 1, None),
    "Qwen2 (full layer)": ("qwen2", "Qwen2Config", "Qwen2Model",
                           dict(use_sliding_window=True, sliding_window=3, max_window_layers=1), 0, None),
    "Qwen3 (QK-norm)": ("qwen3", "Qwen3Config", "Qwen3Model", dict(head_dim=2), 0, None),
    # query_pre_attn_scalar 3 (scale 3^-1/2, not head_dim^-1/2) and a softcap of 0.8, small enough
    # to bend every score; layer 0 is a sliding layer of window 3, layer 1 a full one
    "Gemma 2 (sliding layer)": ("gemma2", "Gemma2Config", "Gemma2Model", dict(
        head_dim=2, query_pre_attn_scalar=3, attn_logit_softcapping=0.8, sliding_window=3), 0, None),
    "Gemma 2 (full layer)": ("gemma2", "Gemma2Config", "Gemma2Model", dict(
        head_dim=2, query_pre_attn_scalar=3, attn_logit_softcapping=0.8, sliding_window=3), 1, None),
    # Gemma 3: QK-norm (1 + weight), query_pre_attn_scalar, and each layer type's own RoPE base
    # (sliding layers 10 000, full layers 1 000 000); layer 0 is sliding, layer 1 full (pattern 2)
    "Gemma 3 (sliding layer)": ("gemma3", "Gemma3TextConfig", "Gemma3TextModel", dict(
        head_dim=2, query_pre_attn_scalar=3, sliding_window=3, sliding_window_pattern=2), 0, None),
    "Gemma 3 (full layer)": ("gemma3", "Gemma3TextConfig", "Gemma3TextModel", dict(
        head_dim=2, query_pre_attn_scalar=3, sliding_window=3, sliding_window_pattern=2), 1, None),
    # YaRN at head_dim 8, base 10000, 4096 original positions: pairs 0 and 1 kept, 2 half
    # divided by the factor 4, 3 divided (the ramp's ends 1.31 and 2.81 rounded out), cos and
    # sin times 0.1 ln 4 + 1; then DeepSeek-V3's attention factor from mscale / mscale_all_dim
    "Llama (YaRN RoPE)": ("llama", "LlamaConfig", "LlamaModel", dict(head_dim=8, max_position_embeddings=16384, rope_parameters={
        "rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 4096}), 0, None),
    "Llama (YaRN RoPE, mscale 1 / mscale_all_dim 0.5)": ("llama", "LlamaConfig", "LlamaModel", dict(
        head_dim=8, max_position_embeddings=16384, rope_parameters={
            "rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 4096,
            "mscale": 1.0, "mscale_all_dim": 0.5, "beta_fast": 16.0, "beta_slow": 2.0}), 0, None),
    # gpt-oss's own YaRN (factor 32, untruncated, base 150000, 4096 original positions): at
    # head_dim 8 the ramp runs from 1.01 to 2.17, so pair 2 is blended; with its sinks on the
    # full layer. With the default RoPE its sinks import on the sliding layer (window 3) and on
    # the full one (no window, not the config's)
    "gpt-oss (its YaRN RoPE, full layer)": ("gpt_oss", "GptOssConfig", "GptOssModel", dict(
        head_dim=8, num_local_experts=2, num_experts_per_tok=1, experts_implementation="eager"), 1, None),
    "gpt-oss (sinks, sliding layer)": ("gpt_oss", "GptOssConfig", "GptOssModel", dict(
        head_dim=2, num_local_experts=2, num_experts_per_tok=1, sliding_window=3, experts_implementation="eager",
        rope_parameters={"rope_type": "default", "rope_theta": 150000.0}), 0, None),
    "gpt-oss (sinks, full layer)": ("gpt_oss", "GptOssConfig", "GptOssModel", dict(
        head_dim=2, num_local_experts=2, num_experts_per_tok=1, sliding_window=3, experts_implementation="eager",
        rope_parameters={"rope_type": "default", "rope_theta": 150000.0}), 1, None),
    # OLMo 2: QK-norm over the whole projection (h·head_dim = 8 query and h_kv·head_dim = 4 key
    # numbers), before the split into heads
    "OLMo 2 (whole-projection QK-norm)": ("olmo2", "Olmo2Config", "Olmo2Model", {}, 0, None),
    "Phi-3 (fused qkv_proj, window 3)": ("phi3", "Phi3Config", "Phi3Model", dict(sliding_window=3), 0, None),
    "GPT-NeoX (fused per head, rotary_pct 1)": ("gpt_neox", "GPTNeoXConfig", "GPTNeoXModel", dict(rotary_pct=1.0), 0,
                                                None),
    # a rotary fraction needs heads wide enough to leave an even number of turning dimensions
    "GPT-NeoX (rotary_pct 0.25, its default)": ("gpt_neox", "GPTNeoXConfig", "GPTNeoXModel",
                                                dict(hidden_size=16, num_attention_heads=2), 0, None),
    "Phi-3 (partial_rotary_factor 0.5)": ("phi3", "Phi3Config", "Phi3Model", dict(
        hidden_size=16, num_attention_heads=2, num_key_value_heads=1, partial_rotary_factor=0.5), 0, None),
    # DeepSeek-V3's multi-head latent attention: query compression and interleaved RoPE; one
    # projection for the query with rotate_half RoPE, YaRN and mscale_all_dim on the scale; and
    # grouped key/value heads, which repeat_kv would apply to the heads the latent already made
    "DeepSeek-V3 (MLA, q_lora_rank, interleaved RoPE)": ("deepseek_v3", "DeepseekV3Config", "DeepseekV3Model", dict(
        DEEPSEEK, num_key_value_heads=4, q_lora_rank=6, rope_interleave=True, qk_rope_head_dim=4,
        attention_bias=True), 0, None),
    "DeepSeek-V3 (MLA, q_proj, YaRN mscale_all_dim)": ("deepseek_v3", "DeepseekV3Config", "DeepseekV3Model", dict(
        DEEPSEEK, num_key_value_heads=4, q_lora_rank=None, rope_interleave=False, qk_rope_head_dim=4,
        max_position_embeddings=16384, rope_parameters={
            "rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 4096,
            "mscale": 1.0, "mscale_all_dim": 1.0}), 0, None),
    "DeepSeek-V3 (MLA, num_key_value_heads 2)": ("deepseek_v3", "DeepseekV3Config", "DeepseekV3Model", dict(
        DEEPSEEK, q_lora_rank=None), 0, "num_key_value_heads"),
    # DeepSeek-V2's complex-number RoPE turns the pairs where they lie (rope_in_place), without
    # and with query compression
    "DeepSeek-V2 (MLA, apply_rotary_emb)": ("deepseek_v2", "DeepseekV2Config", "DeepseekV2Model", dict(
        DEEPSEEK, num_key_value_heads=4, q_lora_rank=None, qk_rope_head_dim=4), 0, None),
    "DeepSeek-V2 (MLA, q_lora_rank, apply_rotary_emb)": ("deepseek_v2", "DeepseekV2Config", "DeepseekV2Model", dict(
        DEEPSEEK, num_key_value_heads=4, q_lora_rank=6, qk_rope_head_dim=4, attention_bias=True), 0, None),
}


def hf_layer_output(model, attn, x):
    """The attention layer's own output on hidden states `x`, with the mask and RoPE its
    model builds for it: the layer's input is replaced by `x` and its output kept."""
    import torch

    got = {}

    def pre(_module, args, kwargs):
        if args:  # GPT-NeoX's layer passes the hidden states by position
            return (x,) + tuple(args[1:]), kwargs
        kwargs["hidden_states"] = x
        return args, kwargs

    def post(_module, _args, output):
        got["output"] = output[0]

    hooks = [attn.register_forward_pre_hook(pre, with_kwargs=True), attn.register_forward_hook(post)]
    try:
        with torch.no_grad():
            model(input_ids=torch.zeros(x.shape[:2], dtype=torch.long))
    finally:
        for h in hooks:
            h.remove()
    return got["output"]


def recording(fn, calls):
    """`fn`, appending what each call returns to `calls` before returning it."""
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        calls.append(result)
        return result
    return wrapper


def check_hf_families(c, trace_bin, work, only=None):
    """tools/from_pytorch.py on each family's transformers classes (HF_FAMILIES): a layer of
    a two-layer model in float64 with weights drawn so the scores are O(1) (random init,
    nothing downloaded) either matches the engine's output, or is refused with its feature
    named. RoPE's angles are Hugging Face's own, computed in float32 whatever the model's
    dtype (and Qwen3's and Gemma 3's QK-norm RMSNorm is taken in float32 too), so a layer
    agrees to float32 precision (about 1e-7), not 1e-12; the tolerance is 1e-6. The
    float64 exactness of the same formulas is what the NumPy reference and the scripts
    check. Returns {family: max |difference| or the refusal}."""
    import importlib

    import torch

    sys.path.insert(0, str(ROOT / "tools"))
    from from_pytorch import Unsupported, scenario_from_module

    results = {}
    sentences = ["the cat sat on the warm mat today"]
    words = sorted(set(sentences[0].split()))
    for family, (mod, config_cls, model_cls, fields, layer, refusal) in HF_FAMILIES.items():
        if only is not None and only not in family:
            continue
        torch.manual_seed(7)
        m = importlib.import_module(f"transformers.models.{mod}")
        try:
            config = getattr(m, config_cls)(**dict(HF_SMALL, **fields))
            model = getattr(m, model_cls)(config).double().eval()
        except Exception as e:  # noqa: BLE001 - a config this check cannot build is a failure of the check
            c.report(False, f"from_pytorch family {family}: build the model", f"{type(e).__name__}: {e}")
            continue
        block = model.layers[layer]
        attn = block.self_attn if hasattr(block, "self_attn") else block.attention  # GPT-NeoX: attention
        d = config.hidden_size
        with torch.no_grad():
            for name, p in attn.named_parameters():
                if p.dim() == 2:
                    p.normal_(0.0, d ** -0.5)
                elif "norm" in name:
                    p.copy_(1.0 + 0.2 * torch.randn_like(p))
                else:
                    p.normal_(0.0, 0.5)
        embeddings = {w: torch.randn(d, dtype=torch.float64) for w in words}
        # The embeddings as a tensor, a NumPy array and a plain list: each must work.
        kinds = [lambda v: v, lambda v: v.numpy(), lambda v: v.tolist()]
        embeddings_mixed = {w: kinds[i % 3](v) for i, (w, v) in enumerate(embeddings.items())}
        try:
            scenario = scenario_from_module(attn, sentences, embeddings_mixed)
        except Unsupported as e:
            ok = refusal is not None and refusal in str(e)
            results[family] = f"refused: {e}"
            c.report(ok, f"from_pytorch family {family}: refused by name", str(e))
            continue
        if refusal is not None:
            c.report(False, f"from_pytorch family {family}: must be refused ({refusal})", "it was not")
            continue
        path = work / f"family_{mod}_{layer}.json"
        path.write_text(json.dumps(scenario))
        run = subprocess.run([trace_bin, str(path)], capture_output=True, text=True)
        if run.returncode != 0:
            c.report(False, f"from_pytorch family {family}: the engine runs its scenario", run.stderr.strip())
            continue
        steps = {st["name"]: json_numbers(st["data"]).reshape(st["shape"]) for st in json.loads(run.stdout)["steps"]}
        x = torch.stack([embeddings[w] for w in sentences[0].split()]).unsqueeze(0)
        # DeepSeek's rotated parts as its own RoPE function returns them (V2's apply_rotary_emb keeps
        # the pairs where they turned, V3's interleaved form gathers them): the q_rot and k_rot steps
        # must be those tensors, in that order, not only give the same scores
        turned, originals = [], {}
        modeling = importlib.import_module(f"transformers.models.{mod}.modeling_{mod}")
        for fn in ("apply_rotary_emb", "apply_rotary_pos_emb_interleave", "apply_rotary_pos_emb"):
            if mod.startswith("deepseek") and hasattr(modeling, fn):
                originals[fn] = getattr(modeling, fn)
                setattr(modeling, fn, recording(originals[fn], turned))
        try:
            want = hf_layer_output(model, attn, x).numpy()
        finally:
            for fn, original in originals.items():
                setattr(modeling, fn, original)
        err = float(np.abs(steps["output"] - want).max())
        results[family] = err
        c.report(steps["output"].shape == want.shape and err <= 1e-6,
                 f"from_pytorch family {family}: engine = the layer's forward",
                 f"max |diff| {err:.1e} (output max {float(np.abs(want).max()):.2f}; RoPE angles in float32)")
        if mod.startswith("deepseek"):
            # the model runs its layers in order, each calling its RoPE once: the layer's call is at its index
            q_pe, k_pe = (t.detach().numpy() for t in turned[layer]) if len(turned) > layer else (np.zeros(0),) * 2
            pairs = ((steps["q_rot"], q_pe), (steps["k_rot"], k_pe))
            worst = max(float(np.abs(a - b).max()) if a.shape == b.shape else math.inf for a, b in pairs)
            c.report(worst <= 1e-6, f"from_pytorch family {family}: q_rot and k_rot = its RoPE's own tensors",
                     f"max |diff| {worst:.1e}")
    print("note  from_pytorch families: " + "; ".join(
        f"{f}: {r:.1e}" if isinstance(r, float) else f"{f}: {r}" for f, r in results.items()))
    return results


def mla_scenarios():
    """The NumPy fixtures of multi-head latent attention (their weights are in mla.weights)."""
    fixtures = ROOT / "crates/engine/tests/fixtures"
    return {p.name.removesuffix(".scenario.json"): json.loads(p.read_text())
            for p in sorted(fixtures.glob("mla_*.scenario.json"))}


def check_mla_numpy(c, trace_bin, work, torch=False):
    """Multi-head latent attention in NumPy (make test): every step of the engine's trace of
    each MLA fixture equals tools/numpy_reference.py's to 1e-12 relative; the absorbed form,
    W_UK folded into the query ((q_nope W_UKᵀ) · c_KV + q_rot · k_rot, never forming a key),
    gives the engine's scores to 1e-12; and the reference with the shared RoPE key dropped, or
    mscale applied once, must disagree (so the comparison can fail)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import numpy_reference

    for name, scenario in mla_scenarios().items():
        path = work / f"numpy_{name}.json"
        path.write_text(json.dumps(scenario))
        trace = json.loads(subprocess.run([trace_bin, str(path)], check=True, capture_output=True, text=True).stdout)
        got = {st["name"]: json_numbers(st["data"]).reshape(st["shape"]) for st in trace["steps"]}
        _, _, _, steps = numpy_reference.attention_trace(scenario)
        want = dict(steps)

        def worst(a, b):  # relative, where b is finite; infinite where a and b are not alike
            finite = np.isfinite(b)
            if not (np.isnan(a) == np.isnan(b)).all():
                return math.inf
            return float((np.abs(a[finite] - b[finite]) / np.maximum(np.abs(b[finite]), 1.0)).max())

        same_names = list(got) == [n for n, _ in steps]
        errs = {n: worst(got[n], want[n]) for n in got if n in want and got[n].shape == want[n].shape}
        ok = same_names and len(errs) == len(got) and max(errs.values()) <= 1e-12
        c.report(ok, f"{name}: every step = NumPy's", f"{len(got)} steps, max rel diff {max(errs.values()):.1e}")

        mla = scenario["mla"]
        d_nope, d_v, h = mla["qk_nope_head_dim"], mla["v_head_dim"], scenario["n_heads"]
        w_kv_b = np.array(mla["weights"]["w_kv_b"]).reshape(mla["kv_lora_rank"], h, d_nope + d_v)
        w_uk = w_kv_b[:, :, :d_nope]                                   # (r_kv, h, d_nope)
        b_uk = np.array(mla["weights"].get("b_kv_b") or np.zeros(h * (d_nope + d_v))).reshape(h, -1)[:, :d_nope]
        q = want.get("q_cat", want["q_heads"])
        q_nope, q_rot = q[..., :d_nope], q[..., d_nope:]
        k_rot = want.get("k_rot", want["k_pe"])
        absorbed_q = np.einsum("bhtn,rhn->bhtr", q_nope, w_uk)          # the query in the latent's space
        absorbed = (np.einsum("bhtr,bsr->bhts", absorbed_q, want["c_kv"]) + np.einsum("bhtn,hn->bht", q_nope, b_uk)[..., None]
                    + q_rot @ k_rot.swapaxes(-1, -2))
        err = worst(absorbed, got["scores"])
        c.report(err <= 1e-12, f"{name}: absorbed W_UK gives the scores",
                 f"r_kv = {mla['kv_lora_rank']} wide queries against c_KV, max rel diff {err:.1e}")

        mutations = {"shared RoPE key dropped": lambda st: dict(st, k_cat=np.concatenate(
            [st["k_nope"], np.zeros_like(st["k_cat"][..., d_nope:])], axis=-1))}
        for what, mutate in mutations.items():
            bad = mutate(want)
            scores = bad.get("q_cat", bad["q_heads"]) @ bad["k_cat"].swapaxes(-1, -2)
            c.report(worst(scores, got["scores"]) > 1e-6, f"{name}: {what} -> differs",
                     f"max rel diff {worst(scores, got['scores']):.1e}")
        check_mla_export(c, trace_bin, work, name, path, scenario, torch)
        if mla.get("mscale_all_dim"):
            factor = scenario["rope"]["scaling"]["factor"]
            m = 0.1 * mla["mscale_all_dim"] * math.log(factor) + 1.0
            once = got["scores"] * (len(q[0, 0, 0]) ** -0.5) * m
            c.report(worst(once, got["scaled"]) > 1e-6, f"{name}: mscale once, not squared -> differs",
                     f"m = {m:.4f}, max rel diff {worst(once, got['scaled']):.1e}")


def exec_script(path):
    """Runs a script in one namespace (its `sys.exit` caught); returns (namespace, printed text)."""
    namespace = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(Path(path).read_text(), str(path), "exec"), namespace)  # noqa: S102 - our own export
        except SystemExit:
            pass
    return namespace, out.getvalue()


def check_mla_export(c, trace_bin, work, name, scenario_path, scenario, torch=False):
    """The Python export of an MLA scenario (`trace --python` and `--notebook`): the script
    recomputes every step in NumPy from its own weights and checks each against the page
    (0 failed, one check per step and the mask), the context tile by tile with the online
    softmax, and decodes token by token with a cache of latents c_KV and RoPE keys k_rot
    (checks: every decoded row, the cache, and the scores with W_UK absorbed). With PyTorch
    (required with --torch) its model of the whole run, DeepseekV3Attention's forward, gives
    every step, F.scaled_dot_product_attention the context (without a softcap or sinks), and
    the absorbed decoding its rows and cache.
    The script's decoding, position by position (its cache, masked scores and output row),
    equals `trace --decode`'s to 1e-9. The notebook's cells do the same, and each of MLA's
    own parts broken in the script must make it fail."""
    steps = len(json.loads(subprocess.run([trace_bin, str(scenario_path)], check=True, capture_output=True,
                                          text=True).stdout)["steps"])
    script = export(trace_bin, "--python", scenario_path)
    script_path = work / f"export_{name}.py"
    script_path.write_text(script)
    run = run_script(script_path)
    counts = summary(run.stdout)
    decodes = "kv_sentences" in scenario or scenario["mask"].get("causal")
    torch_ran = "PyTorch check skipped" not in run.stdout
    sdpa = "softcap" not in scenario and "sinks" not in scenario  # F.scaled_dot_product_attention has neither
    # NumPy: every step, the mask, the tiles, the decoding; PyTorch: every step, SDPA, the decoding
    want = steps + 2 + (4 if decodes else 0) + ((steps + sdpa + (2 if decodes else 0)) if torch_ran else 0)
    ok = run.returncode == 0 and counts == (want, 0) and run.stderr.strip() == "" and torch_ran >= torch
    c.report(ok, f"{name}: exported script", (run.stdout.strip().splitlines() or [""])[-1]
             + ("" if torch_ran else " (PyTorch not run)"))
    if not ok:
        print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
    if decodes:
        ns, _ = exec_script(script_path)
        positions = json.loads(subprocess.run([trace_bin, "--decode", str(scenario_path)], check=True,
                                              capture_output=True, text=True).stdout)["positions"]
        mine = ns.get("mla_decode_steps") or []
        fine = len(mine) == len(positions) > 0
        for p, m in zip(positions, mine):
            engine = {k: json_numbers(p[k]["data"]).reshape(p[k]["shape"]) for k in ("c_kv", "k_rope", "scores", "output")}
            fine = fine and close(m["c_kv"][:, None], engine["c_kv"], 1e-9) and close(m["k_rot"], engine["k_rope"], 1e-9)
            fine = fine and close(m["scores"], engine["scores"], 1e-9) and close(m["output"], engine["output"][:, 0], 1e-9)
        c.report(fine, f"{name}: exported decoding = trace --decode",
                 f"{len(mine)} positions: cache (c_KV, k_rot), masked scores and output row, to 1e-9")
    mla = scenario["mla"]
    rope = "rope" in scenario
    mutations = {
        # the latent without its RMSNorm
        "c_kv without RMSNorm": script.replace("c_kv = rms_norm_rows(kv_a[..., :r_kv], kv_a_norm_weight)",
                                               "c_kv = kv_a[..., :r_kv]"),
        # every head's key without the shared RoPE part
        "k_cat without the shared RoPE key": re.sub(r"np\.broadcast_to\((k_rot|k_pe), ",
                                                    r"np.zeros_like(np.broadcast_to(\1, ", script)
        .replace("(B, h, T_k, d_rope))], axis=-1)", "(B, h, T_k, d_rope)))], axis=-1)"),
        # the values read from the keys' half of kv_b
        "v from k_nope's columns": script.replace("transpose(0, 2, 1, 3)[..., d_nope:]  # (B, h, T_k, d_v)",
                                                  "transpose(0, 2, 1, 3)[..., :d_v]  # (B, h, T_k, d_v)"),
        # DeepSeek's interleaved pairs turned as they lie
        "interleaved not gathered": script.replace("rope(deinterleave(q_heads[..., d_nope:]))", "rope(q_heads[..., d_nope:])")
        if scenario.get("rope", {}).get("style") == "interleaved" and not mla.get("rope_in_place") else None,
        # DeepSeek-V2's pairs, turned in place, gathered as V3's would be
        "in place but gathered": script.replace("rope(q_heads[..., d_nope:])", "rope(q_heads[..., d_nope:])[..., np.r_[0:d_rope:2, 1:d_rope:2]]")
        if mla.get("rope_in_place") else None,
        # the query's latent without its RMSNorm
        "q_a without RMSNorm": script.replace("q_a_norm = rms_norm_rows(q_a, q_a_norm_weight)", "q_a_norm = q_a")
        if mla.get("q_lora_rank") else None,
        # the decoding: the latent cached before its RMSNorm
        "decode: c_KV cached without RMSNorm": script.replace(
            "c_t = rms_norm_rows(kv_a_t[..., :r_kv], kv_a_norm_weight)", "c_t = kv_a_t[..., :r_kv]") if decodes else None,
        # the decoding: each new token's RoPE key turned at position 0, not its own (a cross-attention
        # cache is computed once, from position 0)
        "decode: k_rot turned at 0": re.sub(r"(k_pe_t\)?), start=start\)", r"\1, start=0)", script)
        if decodes and rope and "kv_sentences" not in scenario else None,
        # the decoding's absorbed scores without the key bias's term q_nope . b_UK
        "decode: absorbed without q_nope . b_UK": script.replace(
            "+ (q_t[..., :d_nope] * b_uk[None, :, None]).sum(axis=-1, keepdims=True)", "")
        if decodes and any(mla["weights"].get("b_kv_b") or []) else None,
        # the online softmax without its correction e^(m - m'), or its running sum off by 1e-6
        "tiles without the correction": script.replace("o = c * o + p @", "o = o + p @"),
        "tiles: 1e-6 added to the running sum": script.replace(
            "l = c * l + p.sum(axis=-1, keepdims=True)", "l = c * l + p.sum(axis=-1, keepdims=True) + 1e-6"),
        # PyTorch's model of the whole run: its input, its latent or SDPA's values off by 1e-6
        "torch: 1e-6 added to the input": script.replace(
            "output = mla_attn(x, x_kv, mask_t, torch_steps)", "output = mla_attn(x + 1e-6, x_kv + 1e-6, mask_t, torch_steps)")
        if torch else None,
        "torch: 1e-6 added to c_kv": script.replace(
            "c_kv = self.kv_a_layernorm(c_kv)", "c_kv = self.kv_a_layernorm(c_kv) + 1e-6") if torch else None,
        "torch: 1e-6 added to SDPA's values": script.replace(
            "F.scaled_dot_product_attention(q_sdpa, k_sdpa, v_sdpa,", "F.scaled_dot_product_attention(q_sdpa, k_sdpa, v_sdpa + 1e-6,")
        if torch and sdpa else None,
        # PyTorch's absorbed decoding: the new query's RoPE part turned at position 0
        "torch decode: q_pe turned at 0": script.replace("q_pe = torch_turn(q_pe, t)", "q_pe = torch_turn(q_pe, 0)")
        if torch and decodes and rope else None,
        # PyTorch's absorbed decoding: W_UV's bias added whole although the sinks take some weight
        "torch decode: W_UV's bias not weighted": script.replace(
            "+ w.sum(-1, keepdim=True) * bkv_b[:, d_nope:]", "+ bkv_b[:, d_nope:]")
        if torch and decodes and "sinks" in scenario and any(mla["weights"].get("b_kv_b") or []) else None,
    }
    check_mutations(c, work, name, script, mutations, export=True)
    notebook_path = work / f"export_{name}.ipynb"
    notebook_path.write_text(export(trace_bin, "--notebook", scenario_path))
    ok, printed = exec_notebook(notebook_path)
    counts = summary(printed)
    c.report(ok and counts == (want, 0), f"{name}: exported notebook cells",
             printed.strip().splitlines()[-1] if printed.strip() else "")


def mla_module(mla, d):
    """DeepseekV3Attention's sub-modules with a scenario's mla.weights (nn.Linear with
    weight = W.T; nn.RMSNorm, whose x * rsqrt(mean(x²) + eps) * weight is DeepseekV3RMSNorm's)."""
    import torch
    import torch.nn as nn

    w = mla["weights"]

    def linear(name_w, name_b):
        W = torch.tensor(w[name_w], dtype=torch.float64)
        layer = nn.Linear(*W.shape, dtype=torch.float64)
        with torch.no_grad():
            layer.weight.copy_(W.T)
            layer.bias.copy_(torch.tensor(w.get(name_b) or [0.0] * W.shape[1], dtype=torch.float64))
        return layer

    def norm(name, n):
        layer = nn.RMSNorm(n, eps=mla.get("eps", 1e-6), dtype=torch.float64)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(w.get(name) or [1.0] * n, dtype=torch.float64))
        return layer

    parts = {"kv_a_proj_with_mqa": linear("w_kv_a", "b_kv_a"), "kv_a_layernorm": norm("kv_a_norm", mla["kv_lora_rank"]),
             "kv_b_proj": linear("w_kv_b", "b_kv_b"), "o_proj": linear("w_o", "b_o")}
    if mla.get("q_lora_rank"):
        parts |= {"q_a_proj": linear("w_q_a", "b_q_a"), "q_a_layernorm": norm("q_a_norm", mla["q_lora_rank"]),
                  "q_b_proj": linear("w_q_b", "b_q_b")}
    else:
        parts["q_proj"] = linear("w_q", "b_q")
    return parts


def check_pytorch_lines(c, trace_bin, work, cases=None):
    """Every step's PyTorch line, as the page and the export show it, run in PyTorch: the
    lines of a trace are executed in order in one namespace that holds what a tutorial's
    module holds (`self.w_q` … as nn.Linear with the scenario's weights, `self.pe` the
    paper's sinusoids computed here, `embedding` an nn.Embedding of the trace's token
    vectors, `mask`, `slopes`, RoPE's `cos`, `sin` and `freqs_cis` at the step's
    positions, computed here from the base), and after each line the tensor it assigns
    must be the step's, to 1e-9. Every scenario of `scenarios()` is run with explicit
    weights, so the lines meet GQA, MQA, cross-attention, RoPE of both styles and ALiBi."""
    import types

    import torch
    import torch.nn as nn
    from transformers.models.llama.modeling_llama import rotate_half

    rng = np.random.default_rng(20261126)
    for name, scenario in (cases or scenarios()).items():
        scenario = dict(scenario)
        d, h = scenario["d_model"], scenario["n_heads"]
        h_kv = scenario.get("n_kv_heads", h)
        d_k = scenario.get("d_head", d // h)
        mla = scenario.get("mla")
        if mla is not None:  # its weights are its own; the query/key heads are d_nope + d_rope
            d_k = mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"]
            scenario["projections"] = explicit_projections(rng, d)  # for the namespace; the run reads mla.weights
        else:
            scenario["projections"] = explicit_projections(rng, d, kv=h_kv * d_k, q=h * d_k)
        path = work / f"lines_{name}.json"
        path.write_text(json.dumps(dict(scenario, projections="seeded") if mla else scenario))
        trace = json.loads(subprocess.run([trace_bin, str(path)], check=True, capture_output=True, text=True).stdout)
        steps = {st["name"]: st for st in trace["steps"]}
        data = {n: torch.tensor(json_numbers(st["data"]).reshape(st["shape"])) for n, st in steps.items()}
        B, T = trace["sizes"]["B"], trace["sizes"]["T"]
        T_k = trace["sizes"].get("T_k") or T
        P = {k: torch.tensor(v, dtype=torch.float64) for k, v in scenario["projections"].items()}

        def linear(n):
            layer = nn.Linear(*P[f"w_{n}"].shape, dtype=torch.float64)
            with torch.no_grad():
                layer.weight.copy_(P[f"w_{n}"].T)
                layer.bias.copy_(P[f"b_{n}"])
            return layer

        pos, col = np.arange(max(T, T_k))[:, None], np.arange(d)[None, :]
        angle = pos / 10000.0 ** ((col - col % 2) / d)
        pe = torch.tensor(np.where(col % 2 == 0, np.sin(angle), np.cos(angle)))[None]
        module = types.SimpleNamespace(**{f"w_{n}": linear(n) for n in "qkvo"}, pe=pe,
                                       **(mla_module(mla, d) if mla else {}))
        if "qk_norm" in scenario:  # nn.RMSNorm over d_k (or the whole projection) with the scenario's weights
            whole = scenario["qk_norm"].get("whole_projection", False)
            heads = {"q": scenario["n_heads"], "k": scenario.get("n_kv_heads", scenario["n_heads"])}
            for n in "qk":
                width = heads[n] * d_k if whole else d_k
                norm = nn.RMSNorm(width, eps=scenario["qk_norm"].get("eps", 1e-6), dtype=torch.float64)
                with torch.no_grad():
                    norm.weight.copy_(torch.tensor(scenario["qk_norm"].get(f"{n}_weight") or [1.0] * width))
                setattr(module, f"{n}_norm", norm)
        vocab, rows = {}, []
        for tokens, x in [(trace["tokens"], data["x"]), (trace.get("kv_tokens"), data.get("x_kv"))]:
            for b, sentence in enumerate(tokens or []):
                for i, token in enumerate(sentence):
                    if token not in vocab:
                        vocab[token] = len(rows)
                        rows.append(x[b, i])
        ids = lambda tokens: torch.tensor([[vocab[t] for t in s] for s in tokens])  # noqa: E731
        ns = {
            "torch": torch, "math": math, "rotate_half": rotate_half, "self": module,
            "embedding": nn.Embedding.from_pretrained(torch.stack(rows)), "tokens": ids(trace["tokens"]),
            "B": B, "T": T, "T_q": T, "T_k": T_k, "h": h, "h_kv": h_kv, "d_k": d_k, "d_model": d,
            "mask": torch.tensor(trace["mask"]["blocked"]).view(trace["mask"]["shape"]),
            "slopes": torch.tensor(trace.get("alibi_slopes", []), dtype=torch.float64),
            "scale": scenario.get("scale"), "softcap": scenario.get("softcap"),
            "sinks": torch.tensor(trace.get("sinks", []), dtype=torch.float64),
        }
        if trace.get("kv_tokens"):
            ns["kv_tokens"] = ids(trace["kv_tokens"])
        if mla:  # DeepSeek's sizes, and the scale the trace used (times YaRN's mscale² with mscale_all_dim)
            ns |= {"d_nope": mla["qk_nope_head_dim"], "d_rope": mla["qk_rope_head_dim"], "d_v": mla["v_head_dim"],
                   "kv_lora_rank": mla["kv_lora_rank"], "scale": trace.get("scale")}
        if "rope" in scenario:
            base = scenario["rope"]["base"]
            fraction = scenario["rope"].get("fraction")
            r = int(d_k * fraction) if fraction is not None else d_k  # the dimensions that turn
            r = mla["qk_rope_head_dim"] if mla else r  # MLA: the rope parts
            ns["r"] = r
            inv_freq = 1.0 / (base ** (torch.arange(0, r, 2, dtype=torch.float64) / r))
            if scenario["rope"].get("scaling"):  # scaled frequencies, by the NumPy reference's formula
                sys.path.insert(0, str(ROOT / "tools"))
                from numpy_reference import rope_attention_factor, rope_scaled
                inv_freq = torch.from_numpy(rope_scaled(inv_freq.numpy(), scenario["rope"]["scaling"], base))
                amp = rope_attention_factor(scenario["rope"]["scaling"])  # YaRN's, on cos and sin as in transformers
            else:
                amp = 1.0

            def at(n):  # RoPE's tables at the positions 0 .. n - 1
                freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
                emb = torch.cat((freqs, freqs), dim=-1)
                return {"cos": emb.cos() * amp, "sin": emb.sin() * amp,
                        "freqs_cis": torch.polar(torch.full_like(freqs, amp), freqs)}
        if "x_kv" not in steps:
            ns["x_kv"] = None  # self-attention: no key/value sentences
        cells = {}  # the explanation panel's cells, by step: each line is run just before its step's
        explained = subprocess.run([trace_bin, "--explain", str(path)], check=True, capture_output=True, text=True)
        for cell in json.loads(explained.stdout)["cells"]:
            cells.setdefault(cell["step"], []).append(cell)
        failures, worst, n_cells = [], 0.0, 0
        for st in trace["steps"]:
            line = st["pytorch"]
            if st["name"] in ("q_rot", "k_rot"):
                ns.update(at(T if st["name"] == "q_rot" else T_k))
            for cell in cells.get(st["name"], []):
                n_cells += 1
                want = json_numbers([cell["result"]])[0]
                try:
                    with torch.no_grad():
                        got = float(eval(cell["pytorch"], ns))  # noqa: S307 - the panel's own line, the point
                except Exception as e:  # noqa: BLE001
                    failures.append(f"panel {st['name']}{cell['index']}: {cell['pytorch']!r} raised {type(e).__name__}: {e}")
                    continue
                if not (got == want or (math.isnan(got) and math.isnan(want)) or abs(got - want) <= 1e-9 * max(abs(want), 1)):
                    failures.append(f"panel {st['name']}{cell['index']}: {cell['pytorch']!r} gives {got}, the cell {want}")
            target = line.split(" = ", 1)[0]
            try:
                with torch.no_grad():
                    exec(line, ns)  # noqa: S102 - the engine's own line, the point of the check
            except Exception as e:  # noqa: BLE001
                failures.append(f"{st['name']}: {line!r} raised {type(e).__name__}: {e}")
                break
            got, want = ns[target], data[st["name"]]
            finite = torch.isfinite(want)
            ok = tuple(got.shape) == tuple(want.shape) and bool(
                ((got == want) | (got.isnan() & want.isnan()) | ((got - want).abs() <= 1e-9 * want.abs().clamp(min=1))).all())
            if finite.any() and tuple(got.shape) == tuple(want.shape):
                worst = max(worst, float((got - want)[finite].abs().max()))
            if not ok:
                failures.append(f"{st['name']}: {line!r} gives {tuple(got.shape)}, the step {tuple(want.shape)}")
        c.report(not failures, f"{name}: every PyTorch line run in PyTorch gives its step, and the panel's its cell",
                 "; ".join(failures) or f"{len(trace['steps'])} lines and {n_cells} cells, max |diff| {worst:.1e}")


def observe_sdpa():
    """What F.scaled_dot_product_attention gives for a fully masked row (recorded, not judged)."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 1, 3, 4, dtype=torch.float64) for _ in range(3))
    allowed = torch.ones(3, 3, dtype=torch.bool)
    allowed[1] = False  # query 1 may attend to nothing (SDPA's bool mask: True = may attend)
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)[0, 0, 1]
    manual = ((q @ k.transpose(-2, -1) / math.sqrt(4)).masked_fill(~allowed, float("-inf"))
              .softmax(dim=-1) @ v)[0, 0, 1]
    print(f"note  torch {torch.__version__}: F.scaled_dot_product_attention, fully masked row -> "
          f"{sdpa.tolist()}; manual masked_fill(-inf) + softmax -> {manual.tolist()}")


def json_numbers(values):
    return np.array([{"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(v, v) if isinstance(v, str) else v
                     for v in values], dtype=np.float64)


def close(got, want, rtol=1e-12):
    """Equal within rtol relative (absolute floor rtol), NaN equal to NaN, infinities exact."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return False
    with np.errstate(invalid="ignore"):
        ok = np.abs(got - want) <= rtol * np.maximum(1.0, np.abs(want))
    return bool(np.all(ok | (np.isnan(got) & np.isnan(want)) | (got == want)))


def check_decode_and_tiles(c, trace_bin, work, only=None):
    """`trace --decode` and `trace --tiled BLOCK` against the NumPy reference's full run
    (tools/numpy_reference.py, which shares no code with the engine): every decoded output
    row is row t of the full output, the cache has the size it should (under MLA it holds
    NumPy's latents c_kv and RoPE keys), and the tiled
    context is the full context for every block size, with each tile's running maximum
    and sum recomputed from NumPy's masked scores."""
    sys.path.insert(0, str(ROOT / "tools"))
    import numpy_reference as ref

    fixtures = ROOT / "crates" / "engine" / "tests" / "fixtures"
    for name in ["gqa_rope_half_window", "gqa_rope_interleaved_alibi", "mqa_cross_rope_window",
                 "causal_pad_large_negative", "alibi_h3_window_both_sides", "gemma2_scale_softcap_window",
                 "softcap_alibi_cross_both_sides", "qk_norm_gqa_rope_interleaved", "rope_fraction_half_gqa",
                 "sinks_gqa_rope_window_pad", "sinks_cross_alibi_norm_softcap",
                 "d_head_gqa_rope_sinks_window", "d_head_cross_alibi_norm_softcap",
                 "streaming_keep_first_gqa_rope", "streaming_keep_first_both_sides_alibi",
                 "mla_cross_sinks_softcap_window", "mla_q_lora_yarn_interleaved_causal",
                 "mla_v2_q_lora_yarn_in_place_causal"]:
        if only is not None and only not in name:
            continue
        path = fixtures / f"{name}.scenario.json"
        scenario = json.loads(path.read_text())
        tokens, kv_tokens, blocked, steps = ref.attention_trace(scenario)
        steps = dict(steps)
        cross = kv_tokens is not None
        B, T = len(tokens), len(tokens[0])
        T_k = len(kv_tokens[0]) if cross else T
        window = scenario["mask"].get("window")
        keep_first = scenario["mask"].get("keep_first") or 0
        full_rows = blocked.all(axis=-1)  # (B, T)
        large_negative = scenario["mask"]["fill"] == "large_negative"

        run = subprocess.run([trace_bin, "--decode", str(path)], capture_output=True, text=True)
        if not cross and not scenario["mask"]["causal"]:
            c.report(run.returncode != 0 and "decoding needs a causal mask" in run.stderr,
                     f"{name}: --decode refuses a scenario without a causal mask", run.stderr.strip())
        else:
            decoded = json.loads(run.stdout)["positions"]
            ok, worst = len(decoded) == T, 0.0
            for p in decoded:
                t = p["t"]
                # the cache: every key so far, the window's most recent ones and the kept first keys
                want_positions = list(range(T_k)) if cross else [
                    j for j in range(t + 1) if window is None or j > t - window or j < keep_first]
                L = len(want_positions)
                ok = ok and p["k_cache_shape"][2] == L and p["v_cache_shape"][:3] == p["k_cache_shape"][:3]
                mla = scenario.get("mla")
                if mla is None:
                    ok = ok and p["v_cache_shape"] == p["k_cache_shape"] and "c_kv" not in p
                else:
                    # what MLA caches: the latent and the shared RoPE key of each cached token
                    ok = ok and p["v_cache_shape"][3] == mla["v_head_dim"]
                    c_kv = json_numbers(p["c_kv"]["data"]).reshape(p["c_kv"]["shape"])
                    k_rope = json_numbers(p["k_rope"]["data"]).reshape(p["k_rope"]["shape"])
                    k_ref = steps["k_rot"] if "k_rot" in steps else steps["k_pe"]
                    ok = ok and c_kv.shape == (B, 1, L, mla["kv_lora_rank"])
                    ok = ok and k_rope.shape == (B, 1, L, mla["qk_rope_head_dim"])
                    ok = ok and close(c_kv[:, 0], steps["c_kv"][:, want_positions])
                    ok = ok and close(k_rope, k_ref[:, :, want_positions])
                ok = ok and p["kept"] == (0 if cross else sum(j < keep_first for j in want_positions))
                ok = ok and p["cache_positions"] == want_positions
                out = json_numbers(p["output"]["data"]).reshape(p["output"]["shape"])[:, 0]
                for b in range(B):
                    if full_rows[b, t] and large_negative and not cross:
                        continue  # uniform over the cached keys, not over all T: see decode.rs
                    ok = ok and close(out[b], steps["output"][b, t])
                    finite = np.isfinite(out[b]) & np.isfinite(steps["output"][b, t])
                    if finite.any():
                        worst = max(worst, float(np.abs(out[b] - steps["output"][b, t])[finite].max()))
            c.report(ok, f"{name}: --decode rows = NumPy's full run", f"{T} positions, max |diff| {worst:.1e}")

        masked = steps["masked"]  # (B, h, T, T_k)
        for block in range(1, max(T, T_k) + 2):
            out = json.loads(subprocess.run([trace_bin, "--tiled", str(block), str(path)], check=True,
                                            capture_output=True, text=True).stdout)
            ctx = json_numbers(out["context"]["data"]).reshape(out["context"]["shape"])
            ok = close(ctx, steps["context"])
            for tile in out["tiles"]:
                (q0, q1), (k0, k1) = tile["q"], tile["k"]
                seen = masked[tile["b"], tile["head"], q0:q1, :k1]  # every key folded in so far
                m = seen.max(axis=-1)
                with np.errstate(invalid="ignore"):
                    l = np.where(np.isneginf(m), 0.0, np.exp(seen - m[:, None]).sum(axis=-1))
                ok = ok and close(json_numbers(tile["m"]), m) and close(json_numbers(tile["l"]), l, 1e-11)
                ok = ok and q1 - q0 <= block and k1 - k0 <= block
            c.report(ok, f"{name}: --tiled {block}: context, m and l = NumPy's", f"{len(out['tiles'])} tiles")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace-bin", required=True)
    parser.add_argument("--torch", action="store_true", help="require PyTorch and test tools/from_pytorch.py")
    parser.add_argument("--only", help="run only the scenarios (exports, decoding and tiles, and with --torch "
                        "their PyTorch lines) whose name contains this")
    args = parser.parse_args(argv)
    c = Checker()
    if args.torch:
        try:
            import torch  # noqa: F401
        except ImportError:
            c.report(False, "import torch", "PyTorch is not installed in this Python")
    with tempfile.TemporaryDirectory(prefix="attention-lens-python-") as tmp:
        work = Path(tmp)
        for name, scenario in {**scenarios(), **layered_scenarios()}.items():
            if args.only and args.only not in name:
                continue
            check_scenario(c, args.trace_bin, name, scenario, work, args.torch)
        if not args.only or "mla" in args.only:
            check_mla_numpy(c, args.trace_bin, work, args.torch)
        check_decode_and_tiles(c, args.trace_bin, work, args.only)
        if not args.only or "layers" in args.only:
            sys.path.insert(0, str(ROOT / "tools"))
            import layers_reference

            layers_reference.check_numpy(c, args.trace_bin, work)
            if args.torch:
                layers_reference.check_torch(c, args.trace_bin, work)
        if not args.only or "train" in args.only:
            sys.path.insert(0, str(ROOT / "tools"))
            import train_reference

            train_reference.check_numpy(c, args.trace_bin, work)
            train_reference.check_by_hand_numpy(c, args.trace_bin, work)
            if args.torch:
                train_reference.check_torch(c, args.trace_bin, work)
                train_reference.check_by_hand_torch(c, args.trace_bin, work)
        if args.torch and args.only and "mla" in args.only:
            check_hf_families(c, args.trace_bin, work, only="MLA")
            check_pytorch_lines(c, args.trace_bin, work, mla_scenarios())
        elif args.torch and args.only:  # the lines of the chosen scenarios only
            chosen = {n: sc for n, sc in scenarios().items() if args.only in n}
            if chosen:
                check_pytorch_lines(c, args.trace_bin, work, chosen)
        elif args.torch:
            check_from_pytorch(c, args.trace_bin, work)
            check_against_hugging_face(c, args.trace_bin, work)
            check_llama_module(c, args.trace_bin, work)
            check_pytorch_lines(c, args.trace_bin, work)
            check_hf_families(c, args.trace_bin, work)
            observe_sdpa()
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
