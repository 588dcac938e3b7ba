#!/usr/bin/python3
"""A whole decoder made of ONNX Runtime's contrib ops (bench/make_decoder.py,
its `tiny` preset: SimplifiedLayerNormalization, SkipSimplifiedLayer-
Normalization, MatMulNBits, GroupQueryAttention with rotary embeddings and
its KV cache) through Tessera and through ONNX Runtime 1.30: a 5-token
prefill and then a one-token decode step fed the prefill's present cache.
Logits and presents must agree (max abs diff < 1e-4 of their range).
Then `tessera generate` must produce the tokens of the same greedy loop run
on ORT.

    check_decoder.py WORK_DIR TESSERA_BIN

ORT: $ORT_NODE_PATH, else ~/.cache/tessera/ort-1.30.0 (scripts/setup.sh). Without
it the check fails when CI=true and is skipped (exit 77) otherwise.
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import make_decoder  # noqa: E402

import tessera  # noqa: E402


def find_ort():
    for d in (os.environ.get("ORT_NODE_PATH"), os.path.expanduser("~/.cache/tessera/ort-1.30.0")):
        if d and os.path.isdir(os.path.join(d, "node_modules", "onnxruntime-node")):
            return os.path.join(d, "node_modules")
    return None


def ort_run(model, feeds, out_dir, node_path):
    args = []
    for name, a in feeds.items():
        f = os.path.join(out_dir, name + ".npy")
        np.save(f, a)
        args.append(f"{name}={f}")
    r = subprocess.run(["node", os.path.join(ROOT, "tests", "support", "ort_run.js"), model, out_dir, *args],
                       capture_output=True, text=True, env=dict(os.environ, NODE_PATH=node_path))
    if r.returncode != 0:
        sys.exit(f"FAILED: ORT: {r.stderr}")
    outs, k = [], 0
    while os.path.exists(os.path.join(out_dir, f"output_{k}.npy")):
        outs.append(np.load(os.path.join(out_dir, f"output_{k}.npy")))
        os.remove(os.path.join(out_dir, f"output_{k}.npy"))
        k += 1
    return outs


def main():
    work = os.path.join(sys.argv[1], "decoder_check")
    os.makedirs(work, exist_ok=True)
    node_path = find_ort()
    if node_path is None:
        msg = "onnxruntime-node@1.30.0 not found (run scripts/setup.sh, or set ORT_NODE_PATH)"
        if os.environ.get("CI") == "true":
            sys.exit("FAILED: " + msg)
        print("SKIPPED: " + msg)
        return 77
    cfg = make_decoder.PRESETS["tiny"]
    rng = np.random.default_rng(3)
    prompt = rng.integers(0, cfg["vocab"], (1, 5)).astype(np.int64)
    # accuracy_level 4 (int8 activations in MatMulNBits): both runtimes
    # quantize A per block the same way, so they agree as closely.
    for level in (0, 4):
        model_path = os.path.join(work, f"tiny_decoder_level{level}.onnx")
        with open(model_path, "wb") as f:
            f.write(make_decoder.build(cfg, 7, level).SerializeToString())
        session = tessera.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        feeds = make_decoder.step_feeds(cfg, list(prompt[0]), 5)
        worst = 0.0
        for step in range(2):
            mine = session.run(None, feeds)
            theirs = ort_run(model_path, feeds, work, node_path)
            for name, a, b in zip(names, mine, theirs):
                if a.shape != b.shape:
                    sys.exit(f"FAILED: level {level} step {step} {name}: shape {a.shape} against ORT's {b.shape}")
                err = float(np.abs(a - b).max()) / max(1e-6, float(np.abs(b).max()))
                worst = max(worst, err)
                if err > 1e-4:
                    sys.exit(f"FAILED: level {level} step {step} {name}: max relative difference {err:.2e}")
            # Decode: the greedy next token, the presents as the next pasts.
            token = int(np.argmax(mine[0][0, -1]))
            feeds = make_decoder.step_feeds(cfg, [token], feeds["attention_mask"].shape[1] + 1,
                                            make_decoder.presents(cfg, names, mine))
        print(f"decoder, accuracy_level {level}: prefill and one decode step agree with ORT 1.30 "
              f"(worst relative difference {worst:.1e})")
    model_path = os.path.join(work, "tiny_decoder_level0.onnx")

    # Greedy decoding: ORT step by step against `tessera generate`.
    new_tokens = 6
    tokens = [int(t) for t in prompt[0]]
    feeds = make_decoder.step_feeds(cfg, tokens, len(tokens))
    expected = []
    for _ in range(new_tokens):
        outs = ort_run(model_path, feeds, work, node_path)
        token = int(np.argmax(outs[0][0, -1]))
        expected.append(token)
        tokens.append(token)
        feeds = make_decoder.step_feeds(cfg, [token], len(tokens), make_decoder.presents(cfg, names, outs))
    r = subprocess.run([sys.argv[2], "generate", model_path, "--prompt-tokens", ",".join(str(int(t)) for t in prompt[0]),
                        "--max-new-tokens", str(new_tokens), "--providers", "cpu"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAILED: tessera generate: {r.stderr}")
    got = [int(t) for t in r.stdout.split("\n")[0].split()[1].split(",")]
    if got != expected:
        sys.exit(f"FAILED: tessera generate gave {got}, ORT's greedy loop {expected}")
    print(f"tessera generate: {got}, as ORT's greedy loop\n{r.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
