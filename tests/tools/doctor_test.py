"""tools.doctor: `tessera doctor` on models built to have each problem, on a
clean one, and on the bench models, where it must raise no false alarm.

Each problem model (tool_models.py) must give its finding, with the node
names and the export fix, and nothing it does not have. On the bench models
every finding is listed below with why it is true, and the test checks the
claim against the model itself (the nodes a constant-subgraph finding names
do read only constants, the nodes an unsupported-op finding names do fall
back in `partition --json`).

usage: doctor_test.py TESSERA WORK_DIR [BENCH_MODELS_DIR]
The bench folder: $TESSERA_BENCH_MODELS, else the argument (CMake's
TESSERA_BENCH_MODELS), else
../shared/bench/models; without it that part is skipped with a note
(generate the models with ../shared/bench/make_models.py).
"""
import json
import os
import subprocess
import sys

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_models  # noqa: E402

TESSERA, WORK = sys.argv[1], sys.argv[2]
BENCH = os.environ.get("TESSERA_BENCH_MODELS") or (sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None) or \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "bench", "models")
check = tool_models.Checks()


def doctor(model, providers="cpu", *extra):
    res = subprocess.run([TESSERA, "doctor", model, "--providers", providers, "--json", *extra],
                         capture_output=True, text=True)
    try:
        report = json.loads(res.stdout)
    except json.JSONDecodeError:
        print(res.stdout, res.stderr)
        raise
    return res.returncode, report["findings"]


def codes(findings):
    return sorted(f["code"] for f in findings)


def find(findings, code):
    return [f for f in findings if f["code"] == code]


def available(provider):
    res = subprocess.run([TESSERA, "partition", os.path.join(WORK, "clean.onnx"), "--providers", provider + ",cpu"],
                         capture_output=True, text=True)
    return res.returncode == 0


def problem_models():
    m = lambda name: os.path.join(WORK, name + ".onnx")  # noqa: E731
    clean = tool_models.clean(m("clean"))
    opencl, dnnl = available("opencl"), available("dnnl")
    for providers in ["cpu"] + (["opencl,cpu"] if opencl else []) + (["dnnl,cpu"] if dnnl else []):
        rc, f = doctor(clean, providers)
        check(rc == 0 and f == [], f"clean model, {providers}: no findings ({codes(f)})")

    rc, f = doctor(tool_models.constant_subgraph(m("constant")))
    c = find(f, "constant-subgraph")
    check(len(c) == 1 and sorted(c[0]["nodes"]) == ["scale_w", "transpose_w"] and c[0]["severity"] == "warning",
          "constant subgraph: Transpose and Mul on initializers are named")
    check(c and "2 node(s)" in c[0]["what"] and "1 result(s) (48 B)" in c[0]["what"] and
          "2 initializer(s) (52 B)" in c[0]["what"] and "do_constant_folding=True" in c[0]["fix"],
          "constant subgraph: node count, what folding removes, the export fix")
    check(any(x["code"] == "re-export" and "do_constant_folding=True" in x["fix"] for x in f), "constant subgraph: re-export advice")
    check(rc == 0, "constant subgraph: exit 0 under the default --fail-on error")
    rc, _ = doctor(m("constant"), "cpu", "--fail-on", "warning")
    check(rc == 1, "constant subgraph: exit 1 with --fail-on warning")
    folded = os.path.join(WORK, "constant_folded.onnx")
    subprocess.run([TESSERA, "optimize", m("constant"), folded, "--level", "basic"], capture_output=True, check=True)
    rc, f = doctor(folded)
    check(find(f, "constant-subgraph") == [], "constant subgraph: gone after the fix the finding gives (tessera optimize)")

    loop_providers = "opencl,cpu" if opencl else "cpu"
    rc, f = doctor(tool_models.value_dependent_loop(m("loop")), loop_providers)
    lf = find(f, "value-dependent-loop")
    check(len(lf) == 1 and lf[0]["nodes"] == ["count_loop"] and "graph input 'n'" in lf[0]["what"],
          "Loop: the trip count from a graph input is reported")
    check(lf and "recomputed in the body" not in lf[0]["what"], "Loop: a passed-through condition is not blamed")
    if opencl:
        check(lf and "opencl refuses it" in lf[0]["what"], "Loop: the provider refusing it is named")
    rc, f = doctor(tool_models.constant_loop(m("constant_loop")), loop_providers)
    check(find(f, "value-dependent-loop") == [], "Loop with a constant trip count: no value-dependent finding")

    rc, f = doctor(tool_models.value_dependent_if(m("if")))
    i = find(f, "value-dependent-if")
    check(len(i) == 1 and i[0]["nodes"] == ["sign_branch"] and "'positive', computed at run time" in i[0]["what"],
          "If: a condition computed from the input is reported")

    rc, f = doctor(tool_models.dynamic_scan(m("scan")), loop_providers)
    s = find(f, "dynamic-scan")
    check(len(s) == 1 and s[0]["nodes"] == ["running_sum"] and "(steps)" in s[0]["what"],
          "Scan: the trip count following the dynamic dim 'steps' is reported")
    d = find(f, "dynamic-dims")
    check(len(d) == 1 and "'steps' (xs)" in d[0]["what"] and "Scan" in d[0]["what"] and "--free-dim steps=" in d[0]["fix"],
          "Scan: the dynamic dim, its input, the ops it reaches and the --free-dim fix")
    rc, f = doctor(m("scan"), loop_providers, "--free-dim", "steps=5")
    check(find(f, "dynamic-scan") == [] and find(f, "dynamic-dims") == [], "Scan: --free-dim steps=5 fixes both")

    dyn = tool_models.dynamic_batch(m("dynamic"))
    rc, f = doctor(dyn, "cpu")
    d = find(f, "dynamic-dims")
    check(len(d) == 1 and d[0]["severity"] == "info" and d[0]["nodes"] == ["x"], "dynamic batch, cpu: an info finding")
    rc, f = doctor(dyn, "cpu", "--static")
    d = find(f, "dynamic-dims")
    check(rc == 1 and d and d[0]["severity"] == "error" and "--free-dim batch=SIZE" in d[0]["fix"],
          "dynamic batch --static: an error naming --free-dim batch=SIZE, exit 1")
    rc, f = doctor(dyn, "cpu", "--static", "--free-dim", "batch=1")
    check(rc == 0 and find(f, "dynamic-dims") == [], "dynamic batch --static --free-dim batch=1: fixed, exit 0")
    if dnnl:
        rc, f = doctor(dyn, "dnnl,cpu")
        d = find(f, "dynamic-dims")
        check(d and d[0]["severity"] == "warning" and "dnnl takes" in d[0]["what"],
              "dynamic batch, dnnl: says dnnl takes more nodes with the dims fixed")
        check(find(f, "unsupported-op") == [], "dynamic batch, dnnl: the nodes it declines for shape are not "
                                               "reported again as unsupported ops")

    rc, f = doctor(tool_models.unnamed_dim(m("unnamed_dim")), "cpu", "--static")
    d = find(f, "dynamic-dims")
    check(rc == 1 and d and "unnamed: x[0]" in d[0]["what"] and "Relu" in d[0]["what"] and
          "cannot be fixed by name" in d[0]["fix"] and "--free-dim" not in d[0]["fix"].split(";")[0],
          "unnamed dim --static: reported with the ops it reaches, and the fix is a re-export")

    mixed = tool_models.mixed_opencl_cpu(m("mixed"))
    rc, f = doctor(mixed, "cpu")
    check(f == [], "mixed model on cpu alone: nothing to report")
    if opencl:
        rc, f = doctor(mixed, "opencl,cpu")
        u = {x["nodes"][0]: x for x in find(f, "unsupported-op")}
        check(sorted(u) == ["round1", "sign2"], f"mixed, opencl: Round and Sign reported ({sorted(u)})")
        check(all("2 copies" in x["what"] and "of the 5 partitions" in x["what"] and x["severity"] == "warning"
                  for x in u.values()), "mixed, opencl: the partitions and copies each costs")
        check(all("no kernel for" in x["fix"] for x in u.values()), "mixed, opencl: the fix says opencl has no kernel")

        old = tool_models.opset_older_than_opencl(m("old_opset"))
        rc, f = doctor(old, "opencl,cpu")
        g = find(f, "opset-gap")
        check(len(g) == 1 and g[0]["nodes"] == ["double"] and "older than" in g[0]["what"] and
              "opset_version=7" in g[0]["fix"] and g[0]["severity"] == "warning",
              "opset 6: older than opencl's Add kernels, re-export with opset_version=7")
        check(any(x["code"] == "re-export" and "opset_version=7" in x["fix"] for x in f), "opset 6: re-export advice")
        rc, f = doctor(old, "cpu")
        check(find(f, "opset-gap") == [], "opset 6 on cpu alone: covered, no finding")

    new = tool_models.opset_newer_than_kernels(m("new_opset"))
    ops = json.loads(subprocess.run([TESSERA, "ops", "--providers", "cpu", "--json"], capture_output=True, text=True,
                                    check=True).stdout)["cpu"]
    last = max(r["last"] for r in ops if r["op"] == "Relu" and r["domain"] == "ai.onnx")
    rc, f = doctor(new, "cpu")
    g = find(f, "opset-gap")
    check(rc == 1 and g and g[0]["severity"] == "error" and f"opset_version={last}" in g[0]["fix"],
          f"opset 40: the model cannot load, re-export with opset_version={last}, exit 1")
    check(find(f, "does-not-load") != [], "opset 40: the load failure is a finding, not a crash")

    rc, f = doctor(tool_models.custom_op(m("custom")), "cpu")
    k = find(f, "no-kernel")
    check(rc == 1 and len(k) == 1 and k[0]["nodes"] == ["frob"] and "com.example:Frobnicate" in k[0]["what"] and
          k[0]["severity"] == "error", "custom op: no provider has a kernel, an error naming the node, exit 1")
    check(find(f, "does-not-load") != [] and find(f, "opset-gap") == [], "custom op: the load failure, no opset noise")

    res = subprocess.run([TESSERA, "doctor", clean, "--fail-on", "sometimes"], capture_output=True, text=True)
    check(res.returncode != 0 and "--fail-on expects info, warning or error" in res.stderr, "a bad --fail-on is an error")
    res = subprocess.run([TESSERA, "doctor", m("constant")], capture_output=True, text=True)
    lines = res.stdout.strip().splitlines()
    check(len(lines) == 3 and lines[1].startswith("warning constant-subgraph [transpose_w, scale_w]: ") and
          " why: " in lines[1] and " fix: " in lines[1], "text output: one finding per line with severity, nodes, why, fix")


# Every finding doctor makes on the bench models (default providers), and why
# each is true. Anything else there is a false alarm.
EXPLAINED = {
    "bert_base": {
        "constant-subgraph": "position and token-type embeddings are Gathers from parameter tables at constant "
                             "indices (arange / zeros): torch's folding leaves Gather on parameters",
        "unsupported-op": "the attention-mask arithmetic (Cast, int64 Unsqueeze, scalar Sub) and the word-embedding "
                          "Gather run on cpu: dnnl has no kernel or declines these operands; host memory, no copies",
        "re-export": "summary of the constant-subgraph finding",
    },
    "gpt2_small": {
        "constant-subgraph": "the position embedding is a Gather from its table at constant indices",
        "unsupported-op": "the token-embedding Gather runs on cpu (no dnnl Gather); no copies",
        "re-export": "summary of the constant-subgraph finding",
    },
    "vit_b_16": {
        "constant-subgraph": "the class token expanded to the batch (ConstantOfShape/Where/Expand on constants)",
        "shape-computation": "attention reshapes sized from Shape of static tensors (x.shape in the model code)",
        "unsupported-op": "the Gather taking the class token runs on cpu (no dnnl Gather); no copies",
        "re-export": "summary of the constant-subgraph finding",
    },
    "lstm_2x512": {
        "shape-computation": "h0/c0 zeros sized from input.shape (Shape/Gather/Concat/Expand)",
        "unsupported-op": "LSTM runs on cpu (no dnnl LSTM); no copies",
    },
    "shufflenet_v2_x1_0": {
        "shape-computation": "channel-shuffle view sizes computed from x.size()",
    },
}


def check_bench_finding(name, model_path, f, plan):
    g = onnx.load(model_path, load_external_data=False).graph
    produced = {o: n for n in g.node for o in n.output}
    inits = {t.name for t in g.initializer}
    listed = set(f["nodes"])
    by_name = {n.name: n for n in g.node}
    if f["code"] in ("constant-subgraph", "shape-computation"):
        ok = True
        for node_name in listed:
            n = by_name.get(node_name)
            if n is None:
                ok = False
                continue
            if f["code"] == "shape-computation" and n.op_type in ("Shape", "Size"):
                continue
            for v in n.input:
                if not v:
                    continue
                src = produced.get(v)
                ok &= v in inits or (src is not None and (src.op_type in ("Constant", "Identity") or src.name in listed))
        check(ok, f"{name}: {f['code']}: every named node reads only constants"
                  f"{' or static shapes' if f['code'] == 'shape-computation' else ''}")
    elif f["code"] == "unsupported-op":
        placed = {n["name"]: n for n in plan["nodes"]}
        check(all(n in placed and placed[n]["declined"] and placed[n]["provider"] == "cpu" for n in listed),
              f"{name}: unsupported-op: {sorted(listed)[:3]} do fall back to cpu in partition --json")
        check(f["severity"] == "info", f"{name}: unsupported-op costs no copies, so it is info")


def bench_models():
    if not BENCH or not os.path.isdir(BENCH):
        print(f"note: no bench models at {BENCH}; that part is skipped "
              "(generate them: /usr/bin/python3 ../shared/bench/make_models.py)")
        return
    names = sorted(d for d in os.listdir(BENCH) if os.path.exists(os.path.join(BENCH, d, "model.onnx")))
    check(len(names) > 0, f"bench models found in {BENCH}")
    for name in names:
        path = os.path.join(BENCH, name, "model.onnx")
        res = subprocess.run([TESSERA, "doctor", path, "--json"], capture_output=True, text=True)
        findings = json.loads(res.stdout)["findings"]
        explained = EXPLAINED.get(name, {})
        unexplained = [f["code"] for f in findings if f["code"] not in explained]
        check(res.returncode == 0 and not unexplained,
              f"{name}: no false alarms ({len(findings)} finding(s), unexplained: {unexplained})")
        check(all(f["severity"] != "error" for f in findings), f"{name}: no errors")
        plan = json.loads(subprocess.run([TESSERA, "partition", path, "--json"], capture_output=True, text=True,
                                         check=True).stdout)
        for f in findings:
            check_bench_finding(name, path, f, plan)


def main():
    os.makedirs(WORK, exist_ok=True)
    problem_models()
    bench_models()
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
