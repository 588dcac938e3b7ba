#!/usr/bin/env python3
"""Roofline lower bound of a model's run time, from a Tessera profile.

Each timed event (a oneDNN step or reorder inside a compiled partition, or
a node outside one) costs at least the larger of its arithmetic at the
machine's FMA peak (args.flops) and its memory traffic at the given
bandwidth (args.bytes written, counted twice: what is read is about what is
written for these layers; weights are left out, which only lowers the
bound). Summed over a run, that is the fastest the same steps could go on
this machine in float32: the room left, step by step, between the measured
median and the bound.

  build/bin/tessera run MODEL --threads 1 --runs 50 --profile /tmp/p
  bench/roofline.py /tmp/p_*.json --peak 117.2 --bandwidth 100

--peak: GFLOP/s of the threads profiled (../shared/bench/peak/peak_fma.c);
--bandwidth: GB/s they read at (bench/peak/stream_read.c; L3 for batch-1
CNN activations). Times are per-run medians over the runs after the first.
"""
import argparse
import bisect
import collections
import json
import statistics
import sys


def load_events(path):
    try:
        with open(path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"roofline: cannot read the profile {path}: {e}")
    events = trace.get("traceEvents") if isinstance(trace, dict) else trace
    if not isinstance(events, list):
        sys.exit(f"roofline: {path} has no traceEvents array")
    return events


def per_run_steps(events):
    """{(kernel, name): durations by run, flops, bytes} over the runs after the first."""
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                  if e.get("cat") == "session" and e.get("name") == "model_run")
    if len(runs) < 2:
        sys.exit("roofline: the profile needs at least two runs (the first is left out)")
    steps = [e for e in events if e.get("cat") in ("step", "reorder")]
    # A node event with step events inside is a compiled partition: its
    # steps are counted instead of it.
    step_starts = sorted(e["ts"] for e in steps)
    timed = list(steps)
    for e in events:
        if e.get("cat") != "node":
            continue
        i = bisect.bisect_left(step_starts, e["ts"])
        if i < len(step_starts) and step_starts[i] <= e["ts"] + e["dur"]:
            continue
        timed.append(e)
    run_starts = [begin for begin, _ in runs]
    table = collections.defaultdict(lambda: {"durations": collections.defaultdict(float), "flops": -1, "bytes": 0})
    for e in timed:
        run = bisect.bisect_right(run_starts, e["ts"]) - 1
        if run <= 0 or e["ts"] > runs[run][1]:
            continue
        args = e.get("args", {})
        row = table[(args.get("implementation") or args.get("op_type") or e.get("cat"), e.get("name", "?"))]
        row["durations"][run] += e["dur"]
        row["flops"] = args.get("flops", -1)
        row["bytes"] = args.get("bytes", 0)
    return table, len(runs) - 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile")
    parser.add_argument("--peak", type=float, required=True, help="GFLOP/s of the threads profiled")
    parser.add_argument("--bandwidth", type=float, required=True, help="GB/s they read at")
    parser.add_argument("--top", type=int, default=12, help="kernels to list")
    args = parser.parse_args()
    if args.peak <= 0 or args.bandwidth <= 0:
        sys.exit("roofline: --peak and --bandwidth must be positive")

    table, runs = per_run_steps(load_events(args.profile))
    # Per kernel and run: measured us, bound us, flops and the time of the
    # steps that count them (us).
    kinds = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for (kind, _), row in table.items():
        measured = statistics.median([row["durations"].get(r, 0.0) for r in range(1, runs + 1)])
        compute = max(row["flops"], 0) / (args.peak * 1e3)
        memory = 2 * row["bytes"] / (args.bandwidth * 1e3)
        k = kinds[kind]
        k[0] += measured
        k[1] += max(compute, memory)
        if row["flops"] > 0:
            k[2] += row["flops"]
            k[3] += measured
    measured = sum(k[0] for k in kinds.values())
    bound = sum(k[1] for k in kinds.values())
    print(f"{args.profile}: {runs} runs after the first; peak {args.peak} GFLOP/s, bandwidth {args.bandwidth} GB/s")
    print(f"{'kernel':34} {'measured ms':>12} {'bound ms':>10} {'bound/measured':>15} {'GFLOP/s':>9}")
    for kind, (m, b, f, rated) in sorted(kinds.items(), key=lambda kv: -kv[1][0])[: args.top]:
        rate = f"{f / rated / 1e3:9.1f}" if f > 0 and rated > 0 else f"{'':9}"
        print(f"{kind:34} {m / 1e3:12.3f} {b / 1e3:10.3f} {b / m if m else 0:15.2f} {rate}")
    print(f"{'total':34} {measured / 1e3:12.3f} {bound / 1e3:10.3f} {bound / measured if measured else 0:15.2f}")


if __name__ == "__main__":
    main()
