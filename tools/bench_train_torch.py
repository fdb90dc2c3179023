#!/usr/bin/env python3
"""PyTorch eager, float64, on the CPU: training steps per second of the model of
`train_bench speed` (crates/engine/examples/train_bench.rs): previous-token, vocab 16, T 8,
batch 32, d_model 16, h 2, 1 layer, learned positions, causal, Adam lr 0.01. The model is
the one tools/train_reference.py checks against the engine (x @ W + b, no LayerNorm, no MLP).
The batches are drawn here (their values do not change the time). No timing is a test.

Usage: .venv/bin/python tools/bench_train_torch.py [--threads N] [--repeats R]
"""

import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    V, T, B, d, h = 16, 8, 32, 16, 2
    dk = d // h
    g = torch.Generator().manual_seed(1)
    p = {"E": torch.randn(V, d, dtype=torch.float64, generator=g) * 0.3,
         "P": torch.randn(T, d, dtype=torch.float64, generator=g) * 0.3,
         "W_U": torch.randn(d, V, dtype=torch.float64, generator=g) * 0.3}
    for n in "QKVO":
        p[f"W_{n}"] = torch.randn(d, d, dtype=torch.float64, generator=g) * 0.3
        p[f"b_{n}"] = torch.zeros(d, dtype=torch.float64)
    for t in p.values():
        t.requires_grad_(True)
    blocked = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    opt = torch.optim.Adam(list(p.values()), lr=0.01)

    def step():
        tokens = torch.randint(0, V, (B, T), generator=g)
        targets = torch.cat([torch.full((B, 1), -1), tokens[:, :-1]], dim=1)
        x = p["E"][tokens] + p["P"]
        q, k, v = ((x @ p[f"W_{n}"] + p[f"b_{n}"]).view(B, T, h, dk).transpose(1, 2) for n in "QKV")
        s = (q @ k.transpose(-2, -1) / math.sqrt(dk)).masked_fill(blocked, float("-inf"))
        z = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, d)
        x = x + z @ p["W_O"] + p["b_O"]
        loss = F.cross_entropy((x @ p["W_U"]).reshape(-1, V), targets.reshape(-1), ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(200):
        step()
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(500):
            step()
        rates.append(500 / (time.perf_counter() - start))
    rates.sort()
    p5 = rates[round((len(rates) - 1) * 0.05)]
    print(f"torch {torch.__version__} eager float64, {torch.get_num_threads()} thread(s): {args.repeats} runs of 500 steps: "
          f"median {statistics.median(rates):.0f} steps/s ({1e6 / statistics.median(rates):.0f} µs/step), "
          f"p95 step time {1e6 / p5:.0f} µs ({p5:.0f} steps/s)")


if __name__ == "__main__":
    main()
