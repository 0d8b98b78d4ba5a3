"""Renders benchmark rows (bench/run.py's JSON) as a Markdown table with tern/PyTorch ratios and a PNG.

    /usr/bin/python3 bench/report.py bench/results/results.partial.json   (a run that was cut short)
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import bleu  # noqa: E402


def targets(rows):
    """Issue 6's targets on greedy, batch 1, 1 thread, as Markdown lines (empty if that row is missing)."""
    pick = {r["name"]: r for r in rows if (r["beam"], r["batch"], r["threads"]) == (1, 1, 1)}
    if not {"tern int8", "tern f32", "PyTorch int8"} <= pick.keys():
        return []
    t8, tf, p8 = pick["tern int8"], pick["tern f32"], pick["PyTorch int8"]
    mark = lambda ok: "met" if ok else "MISSED"  # noqa: E731
    budget = t8["file_mib"] + t8["arena_bytes"] / 1048576 + 16
    checks = [
        ("tern int8 tokens/s >= 5x PyTorch dynamic int8", f"{t8['tokens_per_s'] / p8['tokens_per_s']:.1f}x",
         t8["tokens_per_s"] >= 5 * p8["tokens_per_s"]),
        ("tern int8 tokens/s >= 1.5x tern f32", f"{t8['tokens_per_s'] / tf['tokens_per_s']:.2f}x",
         t8["tokens_per_s"] >= 1.5 * tf["tokens_per_s"]),
        ("tern int8 peak RSS <= file + arena + 16 MiB",
         f"{t8['peak_rss_mib']:.2f} MiB <= {t8['file_mib']:.2f} + {t8['arena_bytes'] / 1048576:.2f} + 16 = {budget:.2f} MiB",
         t8["peak_rss_mib"] <= budget),
        ("tern int8 model load < 30 ms", f"{t8['load_ms']:.1f} ms", t8["load_ms"] < 30),
    ]
    return ["", "Targets (greedy, batch 1, 1 thread):", "", "| target | measured | |", "|---|---|---|"] + [
        f"| {what} | {got} | {mark(ok)} |" for what, got, ok in checks]


def render(rows, out_dir, names):
    """Writes out_dir/results.md, results.json and throughput.png; returns the Markdown."""
    os.makedirs(out_dir, exist_ok=True)
    systems = [(n, None) for n in names]
    cpu = next((r["cpu"] for r in rows if "cpu" in r), "unknown")
    lines = [f"CPU: {cpu}. {rows[0]['sentences']} sentences of Multi30k test_2016_flickr (en->de), at most 128 "
             f"generated tokens. BLEU: {bleu.SIGNATURE}.", "",
             "| system | search | batch | threads | tokens/s | sentences/s | p50 ms | p95 ms | load ms | peak RSS MiB | file MiB | BLEU |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {'greedy' if r['beam'] == 1 else 'beam ' + str(r['beam'])} | {r['batch']} | {r['threads']} | "
                     f"{r['tokens_per_s']:.0f} | {r['sentences_per_s']:.1f} | {r['latency_p50_ms']:.1f} | {r['latency_p95_ms']:.1f} | "
                     f"{r['load_ms']:.0f} | {r['peak_rss_mib']:.0f} | {r['file_mib']:.1f} | {r['bleu']:.2f} |")
    lines += ["", "Ratios from the same run (target tokens/s):", "",
              "| search | batch | threads | tern int8 / PyTorch int8 | tern int8 / PyTorch f32 | tern f32 / PyTorch f32 | tern int8 / tern f32 |",
              "|---|---|---|---|---|---|---|"]
    key = lambda r: (r["beam"], r["batch"], r["threads"])  # noqa: E731
    for k in sorted({key(r) for r in rows}):
        by = {r["name"]: r["tokens_per_s"] for r in rows if key(r) == k}
        if len(by) < 4:
            continue
        lines.append(f"| {'greedy' if k[0] == 1 else 'beam ' + str(k[0])} | {k[1]} | {k[2]} | "
                     f"{by['tern int8'] / by['PyTorch int8']:.1f}x | {by['tern int8'] / by['PyTorch f32']:.1f}x | "
                     f"{by['tern f32'] / by['PyTorch f32']:.1f}x | {by['tern int8'] / by['tern f32']:.2f}x |")
    lines += targets(rows)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        configs = sorted({key(r) for r in rows})
        names = [n for n, _ in systems]
        fig, ax = plt.subplots(figsize=(12, 5))
        width = 0.8 / len(names)
        for i, n in enumerate(names):
            vals = [next((r["tokens_per_s"] for r in rows if r["name"] == n and key(r) == c), 0) for c in configs]
            ax.bar([x + i * width for x in range(len(configs))], vals, width, label=n)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(configs))])
        ax.set_xticklabels([f"{'greedy' if b == 1 else 'beam ' + str(b)}\nbatch {n}, {t} thr" for b, n, t in configs], fontsize=8)
        ax.set_ylabel("target tokens/s")
        ax.set_yscale("log")
        ax.set_title(f"tern vs PyTorch, bundled en-de model ({cpu})", fontsize=9)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "throughput.png"), dpi=110)
    except ImportError:
        print("bench: matplotlib not installed (`scripts/setup.sh check` installs it): no plot", file=sys.stderr)
    return text


if __name__ == "__main__":
    rows = json.load(open(sys.argv[1]))
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(sys.argv[1])
    render(rows, out, ["tern int8", "tern f32", "PyTorch f32", "PyTorch int8"])
