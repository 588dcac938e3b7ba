#!/usr/bin/python3
"""Round trip of `tessera quantize` on a small CNN (static QDQ, per channel,
calibrated on a folder of .npy files) and a small MatMul model (dynamic):

- the quantized model runs in Tessera close to the float model (cosine > 0.99)
  and its QDQ Conv groups fuse into QLinearConv (run --verbose);
- the file is about 4x smaller (> 3x);
- ONNX Runtime (npm onnxruntime-node, tests/support/ort_run.js) runs
  it too. With 7-bit weights (--reduce-range) nothing can saturate in
  either runtime, so ORT's outputs must match Tessera's within one output
  step on every host. With full-range int8 weights ORT 1.30 saturates the
  16-bit pair sums of its vpmaddubsw path on hosts without VNNI (an AVX2
  Zen 3 read cosine 0.995-0.996 against the float model, Tessera 0.9999), so
  there Tessera's outputs must be at least as close to the float model's
  as ORT's are, and match ORT's where ORT is exact.

    check_ort_runs_quantized.py TESSERA_BIN WORK_DIR

ORT is looked for in $ORT_NODE_PATH, then ~/.cache/tessera/ort-1.30.0
(scripts/setup.sh installs it there). Without it the check fails when
CI=true and is skipped (exit 77) otherwise.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from quant_models import CNN_INPUT, MLP_INPUT, cnn_bytes, cosine, mlp_bytes  # noqa: E402

import tessera  # noqa: E402


def find_ort():
    for d in (os.environ.get("ORT_NODE_PATH"), os.path.expanduser("~/.cache/tessera/ort-1.30.0")):
        if d and os.path.isdir(os.path.join(d, "node_modules", "onnxruntime-node")):
            return os.path.join(d, "node_modules")
    return None


def sh(*cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if r.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout + r.stderr


def main():
    tessera_bin, work = sys.argv[1], sys.argv[2]
    work = os.path.join(work, "quantize_roundtrip")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    node_path = find_ort()
    if node_path is None:
        msg = ("onnxruntime-node@1.30.0 not found (run scripts/setup.sh, or set ORT_NODE_PATH to a folder "
               "holding node_modules/onnxruntime-node)")
        if os.environ.get("CI") == "true":
            sys.exit("FAILED: " + msg)
        print("SKIPPED: " + msg)
        return 77
    rng = np.random.default_rng(11)
    cases = []
    # Static QDQ: calibration files named after the input, x_K.npy.
    cnn = os.path.join(work, "cnn.onnx")
    open(cnn, "wb").write(cnn_bytes())
    cal = os.path.join(work, "calibration")
    os.makedirs(cal)
    for k in range(4):
        np.save(os.path.join(cal, f"x_{k}.npy"), rng.normal(0, 1, CNN_INPUT).astype(np.float32))
    mlp = os.path.join(work, "mlp.onnx")
    open(mlp, "wb").write(mlp_bytes())
    for suffix, extra in (("", []), ("_7bit", ["--reduce-range"])):
        cnn_q = os.path.join(work, f"cnn_qdq{suffix}.onnx")
        print(sh(tessera_bin, "quantize", cnn, cnn_q, "--mode", "static", "--calibration", cal, "--per-channel", *extra))
        cases.append((cnn, cnn_q, CNN_INPUT, bool(extra)))
        # Dynamic: MatMulInteger.
        mlp_q = os.path.join(work, f"mlp_dynamic{suffix}.onnx")
        print(sh(tessera_bin, "quantize", mlp, mlp_q, "--mode", "dynamic", "--per-channel", *extra))
        cases.append((mlp, mlp_q, MLP_INPUT, bool(extra)))
    cnn_q = os.path.join(work, "cnn_qdq.onnx")

    verbose = sh(tessera_bin, "run", cnn_q, "--providers", "cpu", "--verbose")
    fused = verbose.count("(Conv) -> QLinearConv")
    if fused != 3:
        sys.exit(f"FAILED: expected the 3 QDQ Conv groups to fuse into QLinearConv, saw {fused}\n{verbose}")
    print(f"{os.path.basename(cnn_q)}: 3/3 Conv groups fused into QLinearConv")

    failures = []
    for float_model, quant_model, shape, seven_bit in cases:
        x = rng.normal(0, 1, shape).astype(np.float32)
        x_file = os.path.join(work, "x.npy")
        np.save(x_file, x)
        ref = tessera.InferenceSession(float_model, providers=["cpu"]).run(None, {"x": x})[0]
        ours = tessera.InferenceSession(quant_model, providers=["cpu"]).run(None, {"x": x})[0]
        out_dir = os.path.join(work, "ort_" + os.path.basename(quant_model))
        os.makedirs(out_dir)
        env = dict(os.environ, NODE_PATH=node_path)
        sh("node", os.path.join(HERE, "..", "support", "ort_run.js"), quant_model, out_dir, f"x={x_file}", env=env)
        theirs = np.load(os.path.join(out_dir, "output_0.npy"))
        ratio = os.path.getsize(float_model) / os.path.getsize(quant_model)
        c_float, c_ort, c_ort_float = cosine(ref, ours), cosine(ours, theirs), cosine(ref, theirs)
        step = float(np.abs(ours).max()) / 127.0
        diff = float(np.abs(ours - theirs).max())
        name = os.path.basename(quant_model)
        print(f"{name}: {ratio:.2f}x smaller; cosine vs float {c_float:.5f} (ORT {c_ort_float:.5f}); "
              f"vs ORT {c_ort:.6f}, max |diff| {diff:.4g} (output step ~{step:.4g})")
        if c_float <= 0.99:
            failures.append(f"{name}: cosine against the float model {c_float}")
        # Where ORT is as accurate, the two must agree: within one step for
        # 7-bit weights, within a few for full range (rounding of the
        # requantization may differ by a step per layer).
        cos_min, steps = (0.9999, 1) if seven_bit else (0.999, 3)
        if (seven_bit or c_ort_float >= c_float - 1e-4) and (c_ort <= cos_min or diff > steps * step):
            failures.append(f"{name}: Tessera and ORT differ (cosine {c_ort}, max diff {diff})")
        if c_float < c_ort_float - 1e-4:
            failures.append(f"{name}: further from the float model than ORT ({c_float} against {c_ort_float})")
        if ratio <= 3.0:
            failures.append(f"{name}: only {ratio:.2f}x smaller than float")
    if failures:
        sys.exit("FAILED:\n" + "\n".join(failures))
    print("PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
