"""tools.annotate: `tessera partition MODEL --annotate OUT.onnx`.

The annotated model must be the same graph (compared field by field after
dropping the node metadata Debian's onnx 1.12 does not know: NodeProto
field 9, metadata_props), every node must carry tessera.provider and
tessera.partition matching `partition --json`, fallbacks their reason, and a
model with external data must still load (its weights file copied next to
the output) and run to the same outputs.

usage: annotate_test.py TESSERA DEFAULT_MODEL WORK_DIR
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import StringStringEntryProto, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_models  # noqa: E402

TESSERA, DEFAULT_MODEL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = tool_models.Checks()


def node_props(node):
    """metadata_props (field 9) of a NodeProto, read from its unknown fields."""
    props = {}
    for f in node.UnknownFields():
        if f.field_number == 9:
            kv = StringStringEntryProto()
            kv.ParseFromString(f.data)
            props[kv.key] = kv.value
    return props


def stripped_graph(model):
    g = onnx.GraphProto()
    g.CopyFrom(model.graph)
    g.DiscardUnknownFields()
    return g.SerializeToString()


def run_outputs(model):
    out = subprocess.run([TESSERA, "run", model, "--providers", "cpu"], capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if line.startswith("output ")]


def annotate(model, providers, out_path):
    subprocess.run([TESSERA, "partition", model, "--providers", providers, "--annotate", out_path],
                   capture_output=True, text=True, check=True)
    plan = json.loads(subprocess.run([TESSERA, "partition", model, "--providers", providers, "--json"],
                                     capture_output=True, text=True, check=True).stdout)
    return plan


def check_model(name, model, providers, out_path):
    plan = annotate(model, providers, out_path)
    a = onnx.load(model, load_external_data=False)
    b = onnx.load(out_path, load_external_data=False)
    check(stripped_graph(a) == stripped_graph(b), f"{name}: the graph is unchanged")
    check(a.opset_import == b.opset_import and a.ir_version == b.ir_version, f"{name}: model header unchanged")
    placed = {n["name"]: n for n in plan["nodes"]}
    for node in b.graph.node:
        props = node_props(node)
        check("tessera.provider" in props, f"{name}: {node.name} has tessera.provider")
        if node.name in placed:
            p = placed[node.name]
            check(props.get("tessera.provider") == p["provider"] and props.get("tessera.partition") == str(p["partition"]),
                  f"{name}: {node.name} placed on {p['provider']} #{p['partition']} as --json says ({props})")
            if p["declined"]:
                check(props.get("tessera.declined") == "; ".join(p["declined"]),
                      f"{name}: {node.name} carries why it left the preferred provider")
        else:
            check("fused into" in props.get("tessera.placement", "") or props.get("tessera.provider") == "none",
                  f"{name}: {node.name} (not in the optimized graph) says where it went ({props})")
    return plan


def main():
    os.makedirs(os.path.join(WORK, "out"), exist_ok=True)
    check_model("default", DEFAULT_MODEL, "cpu", os.path.join(WORK, "default_annotated.onnx"))
    src = os.path.join(WORK, "src")
    os.makedirs(src, exist_ok=True)
    providers = "opencl,cpu"
    plain = tool_models.mixed_opencl_cpu(os.path.join(src, "mixed.onnx"))
    if subprocess.run([TESSERA, "partition", plain, "--providers", providers], capture_output=True).returncode != 0:
        print("note: no OpenCL device; the mixed model is annotated for cpu only")
        providers = "cpu"
    check_model("mixed", plain, providers, os.path.join(WORK, "out", "mixed_annotated.onnx"))
    # Unnamed nodes: the loader names them <op_type>_<index>, and so does the
    # annotation, so every node still gets its placement.
    unnamed = onnx.load(plain)
    for node in unnamed.graph.node:
        node.name = ""
    unnamed_path = os.path.join(src, "unnamed.onnx")
    onnx.save(unnamed, unnamed_path)
    out_unnamed = os.path.join(WORK, "out", "unnamed_annotated.onnx")
    annotate(unnamed_path, "cpu", out_unnamed)
    b = onnx.load(out_unnamed)
    check(all(node_props(n).get("tessera.provider") == "cpu" for n in b.graph.node) and len(b.graph.node) == 6,
          "unnamed: every unnamed node is annotated")
    # External data: weights.bin beside the source; the output goes to
    # another folder, so the file must follow it.
    ext_dir = os.path.join(WORK, "ext")
    os.makedirs(ext_dir, exist_ok=True)
    ext = tool_models.mixed_opencl_cpu(os.path.join(ext_dir, "mixed_ext.onnx"), external=True)
    out = os.path.join(WORK, "out", "mixed_ext_annotated.onnx")
    if os.path.exists(os.path.join(WORK, "out", "weights.bin")):
        os.remove(os.path.join(WORK, "out", "weights.bin"))
    check_model("external", ext, providers, out)
    check(os.path.exists(os.path.join(WORK, "out", "weights.bin")), "external: weights.bin copied next to the output")
    a, b = onnx.load(ext), onnx.load(out)
    same = all(np.array_equal(numpy_helper.to_array(x), numpy_helper.to_array(y))
               for x, y in zip(a.graph.initializer, b.graph.initializer))
    check(same and len(a.graph.initializer) == 2, "external: the annotated model loads the same weights")
    check(run_outputs(ext) == run_outputs(out), "external: tessera runs the annotated model to the same outputs")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
