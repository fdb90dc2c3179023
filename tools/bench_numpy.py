#!/usr/bin/env python3
"""The engine's computation in numpy, timed, for BENCHMARKS.md.

Same work as benches/engine.rs: B=1, T in {16, 128, 512}, d_model=512, h=8, four
projections, QK^T / sqrt(d_k), softmax, weights @ V, concat, W_O (float64).

    python3 tools/bench_numpy.py              # numpy alone: median of 30 runs per size
    python3 tools/bench_numpy.py --engine     # numpy and `cargo bench --bench engine`
                                              # interleaved, size by size, 3 rounds

numpy runs single-threaded (OPENBLAS_NUM_THREADS=1, like the engine) unless
OPENBLAS_NUM_THREADS is already set. With --engine it prints engine/numpy ratios taken
round by round (the same minutes of a noisy machine), GFLOP/s, and the single-core peak:
the theoretical one from the CPU flags and clock, and a measured dense matmul in numpy.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", os.environ["OPENBLAS_NUM_THREADS"])
import numpy as np  # noqa: E402  (after the thread settings)

ROOT = Path(__file__).resolve().parent.parent
SIZES = (16, 128, 512)
D, H = 512, 8


def flops(t, d):
    return 4 * 2 * t * d * d + 2 * 2 * t * t * d


def mha(x, w, h):
    b, t, d = x.shape
    d_k = d // h
    q, k, v = (x @ w[i] for i in range(3))
    split = lambda a: a.reshape(b, t, h, d_k).transpose(0, 2, 1, 3)
    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    context = weights @ v
    concat = np.ascontiguousarray(context.transpose(0, 2, 1, 3)).reshape(b, t, d)
    return concat @ w[3]


def pct(xs, p):
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, -(-int(p * len(s) * 100) // 100) - 1))]


def time_numpy(t, runs, rng, w):
    x = rng.uniform(-1, 1, (1, t, D))
    mha(x, w, H)  # warm up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        mha(x, w, H)
        times.append(time.perf_counter() - start)
    return times


def time_engine(group, t):
    """One criterion measurement of GROUP/T=t (engine_run or math); its median in s."""
    subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "engine", "--", "--noplot", f"^{group}/T={t}$"],
        cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    est = ROOT / "target" / "criterion" / group / f"T={t}" / "new" / "estimates.json"
    return json.loads(est.read_text())["median"]["point_estimate"] / 1e9


def peak():
    """(theoretical GFLOP/s or None, how, measured dense-matmul GFLOP/s)."""
    info = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.*)", info)
    mhz = re.search(r"cpu MHz\s*:\s*([\d.]+)", info)
    flags = set((re.search(r"flags\s*:\s*(.*)", info) or [None, ""])[1].split())
    per_cycle = 16 if {"avx2", "fma"} <= flags else 8 if "avx" in flags else 4
    theory = per_cycle * float(mhz.group(1)) / 1e3 if mhz else None
    how = (f"{model.group(1) if model else 'CPU'}: {per_cycle} float64 FLOP/cycle "
           f"({'2 x 256-bit FMA' if per_cycle == 16 else 'SIMD width'}) x {mhz.group(1) if mhz else '?'} MHz")
    n = 2048
    a, b = np.random.rand(n, n), np.random.rand(n, n)
    a @ b
    ts = []
    for _ in range(5):
        s = time.perf_counter()
        a @ b
        ts.append(time.perf_counter() - s)
    return theory, how, 2 * n ** 3 / statistics.median(ts) / 1e9


def main():
    with_engine = "--engine" in sys.argv
    runs = int(os.environ.get("RUNS", "30"))
    rounds = int(os.environ.get("ROUNDS", "3")) if with_engine else 1
    rng = np.random.default_rng(0)
    a = np.sqrt(6 / (2 * D))
    w = [rng.uniform(-a, a, (D, D)) for _ in range(4)]
    print(f"numpy {np.__version__}, {runs} runs per size and round, {rounds} round(s), "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    if with_engine:
        subprocess.run(["cargo", "bench", "--quiet", "--bench", "engine", "--no-run"], cwd=ROOT, check=True)
    numpy_t = {t: [] for t in SIZES}
    groups = ("engine_run", "math")
    engine_t = {(g, t): [] for g in groups for t in SIZES}
    ratios = {(g, t): [] for g in groups for t in SIZES}
    for _ in range(rounds):
        for t in SIZES:
            if with_engine:
                for g in groups:
                    engine_t[g, t].append(time_engine(g, t))
            times = time_numpy(t, runs, rng, w)
            numpy_t[t] += times
            if with_engine:
                for g in groups:
                    ratios[g, t].append(engine_t[g, t][-1] / statistics.median(times))
    theory, how, measured = peak()
    print(f"single-core peak: {theory:.1f} GFLOP/s theoretical ({how}); "
          f"dense 2048x2048 matmul in numpy: {measured:.1f} GFLOP/s")
    if with_engine:
        print("engine::run = the whole run (tokenize, embed, seeded weights, trace); math = the "
              "attention functions alone, numpy's work. Ratios: median over rounds of "
              "(engine median / numpy median) in that round. GFLOP/s counts the matmuls only.")
        print("| T | engine::run | math only | numpy (p95) | engine::run / numpy | math / numpy |"
              " GFLOP/s run / math / numpy | math, % of measured peak |")
        print("|---|---|---|---|---|---|---|---|")
    for t in SIZES:
        nm, n95 = statistics.median(numpy_t[t]), pct(numpy_t[t], 0.95)
        if with_engine:
            em, mm = (statistics.median(engine_t[g, t]) for g in groups)
            rr, rm = (statistics.median(ratios[g, t]) for g in groups)
            gf = lambda sec: flops(t, D) / sec / 1e9
            print(f"| {t} | {em * 1e3:.1f} ms | {mm * 1e3:.1f} ms | {nm * 1e3:.1f} ms ({n95 * 1e3:.1f}) | "
                  f"{rr:.2f} | {rm:.2f} | {gf(em):.1f} / {gf(mm):.1f} / {gf(nm):.1f} | "
                  f"{100 * gf(mm) / measured:.0f} % |")
        else:
            print(f"T={t:<4} median {nm * 1e3:8.3f} ms  p95 {n95 * 1e3:8.3f} ms  "
                  f"{flops(t, D) / nm / 1e9:6.2f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
