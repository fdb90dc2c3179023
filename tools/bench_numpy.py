#!/usr/bin/env python3
"""The engine's computation in numpy, timed, for BENCHMARKS.md.

Same work as benches/engine.rs: B=1, T in {16, 128, 512}, d_model=512, h=8, four
projections, QK^T / sqrt(d_k), softmax, weights @ V, concat, W_O (float64).

    python3 tools/bench_numpy.py            # median of 30 runs per size
    OPENBLAS_NUM_THREADS=1 python3 tools/bench_numpy.py   # single-threaded numpy

Prints one line per size: T, median seconds, p95 seconds, GFLOP/s.
"""
import os
import statistics
import sys
import time

import numpy as np


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


def main():
    runs = int(os.environ.get("RUNS", "30"))
    d, h = 512, 8
    rng = np.random.default_rng(0)
    a = np.sqrt(6 / (2 * d))
    w = [rng.uniform(-a, a, (d, d)) for _ in range(4)]
    print(f"numpy {np.__version__}, {runs} runs per size, threads: "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}")
    for t in (16, 128, 512):
        x = rng.uniform(-1, 1, (1, t, d))
        mha(x, w, h)  # warm up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            mha(x, w, h)
            times.append(time.perf_counter() - start)
        times.sort()
        med = statistics.median(times)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"T={t:<4} median {med * 1e3:8.3f} ms  p95 {p95 * 1e3:8.3f} ms  "
              f"{flops(t, d) / med / 1e9:6.2f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
