#!/usr/bin/env python3
"""Generates the malformed-model corpus that tests/format/malformed_corpus_test.cc
loads: one small hostile file per case, each derived from a valid base model
(committed, so the tests need no Python). Run with Debian's python3-onnx:
    /usr/bin/python3 tests/data/malformed/make_malformed.py

Model-level cases are built with onnx.helper (no onnx.checker: the point is
to break its rules); byte-level cases mutate the serialized base model.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
FLOAT = TensorProto.FLOAT


def vi(name, dims, elem=FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def model_of(graph, opset=17, extra_imports=()):
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_imports]
    m = helper.make_model(graph, opset_imports=imports, producer_name="tessera-malformed")
    m.ir_version = 8
    return m


def base_model():
    """y = Relu(x + w): valid, loads and runs."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["s"], name="add"),
         helper.make_node("Relu", ["s"], ["y"], name="relu")],
        "base", [vi("x", [2, 3])], [vi("y", [2, 3])], [w])
    return model_of(g)


def write(name, data):
    if not isinstance(data, bytes):
        data = data.SerializeToString()
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def graph_model(nodes, inputs, outputs, initializers=(), name="g", **kw):
    return model_of(helper.make_graph(nodes, name, inputs, outputs, list(initializers)), **kw)


def raw_tensor(name, dims, raw, data_type=FLOAT):
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def copy_of(w_tensor):
    return graph_model([helper.make_node("Identity", ["w"], ["y"], name="copy")], [], [vi("y", None)],
                       [w_tensor], name="tensor_case")


def nested_if(depth):
    """An If whose then_branch holds an If ... `depth` levels deep."""
    inner = helper.make_graph([helper.make_node("Identity", ["x"], ["r"], name="leaf")], "leaf", [],
                              [vi("r", [1])])
    leaf = inner
    for level in range(depth):
        node = helper.make_node("If", ["c"], ["r"], name=f"if_{level}", then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([node], f"level_{level}", [], [vi("r", [1])])
    node = inner.node[0]
    return graph_model([node], [vi("c", [], TensorProto.BOOL), vi("x", [1])], [vi("r", [1])], name="nested")


def main():
    for entry in os.listdir(HERE):
        if entry.endswith(".onnx"):
            os.remove(os.path.join(HERE, entry))
    base = base_model()
    write("base_valid.onnx", base)
    raw = base.SerializeToString()

    # --- byte level -------------------------------------------------------
    write("empty.onnx", b"")
    write("truncated.onnx", raw[: len(raw) // 2])
    write("truncated_one_byte.onnx", raw[:-1])
    # ModelProto.graph is field 7, a length-delimited message (key 0x3a; the
    # fields before it, ir_version and producer_name, hold no 0x3a byte).
    pos = raw.index(bytes([7 << 3 | 2]))
    assert raw[:pos].find(b"tessera-malformed") > 0
    shift, glen, k = 0, 0, pos + 1
    while True:  # the graph's length varint; k ends just past it
        b = raw[k]
        glen |= (b & 0x7F) << shift
        shift += 7
        k += 1
        if not b & 0x80:
            break
    # The graph sent as a varint instead: protobuf skips a field of the wrong
    # wire type as unknown, so the model arrives without a graph.
    without_graph = raw[:pos] + raw[k + glen:]
    write("wrong_wire_type_graph.onnx", without_graph + bytes([7 << 3 | 0]) + varint(12345))
    # Wire type 7 does not exist.
    write("invalid_wire_type.onnx", raw[:pos] + bytes([7 << 3 | 7]) + raw[pos + 1:])
    # A length prefix far past the end of the file.
    write("length_past_end.onnx", raw[:pos + 1] + varint(1 << 40) + raw[k:])

    # --- tensors ------------------------------------------------------------
    write("negative_dim.onnx", copy_of(raw_tensor("w", [-1, 3], np.zeros(3, np.float32).tobytes())))
    write("huge_dims.onnx", copy_of(raw_tensor("w", [1 << 40, 1 << 40], np.zeros(4, np.float32).tobytes())))
    write("huge_dim_small_data.onnx", copy_of(raw_tensor("w", [1 << 33], np.zeros(4, np.float32).tobytes())))
    write("raw_data_wrong_length.onnx", copy_of(raw_tensor("w", [2, 3], np.zeros(5, np.float32).tobytes())))
    floats = TensorProto()  # float_data with 3 values for 6 elements
    floats.name, floats.data_type = "w", FLOAT
    floats.dims.extend([2, 3])
    floats.float_data.extend([1.0, 2.0, 3.0])
    write("float_data_wrong_count.onnx", copy_of(floats))
    bad_str = helper.make_tensor("w", TensorProto.STRING, [2], [b"fine", b"bad \xff\xfe utf-8"])
    write("string_invalid_utf8.onnx", copy_of(bad_str))
    write("unknown_data_type.onnx", copy_of(raw_tensor("w", [1], b"\0\0\0\0", data_type=999)))

    # --- graph structure ------------------------------------------------------
    write("duplicate_output_name.onnx", graph_model(
        [helper.make_node("Relu", ["x"], ["y"], name="first"),
         helper.make_node("Neg", ["x"], ["y"], name="second")],
        [vi("x", [2])], [vi("y", [2])], name="dup"))
    write("cycle.onnx", graph_model(
        [helper.make_node("Add", ["x", "b"], ["a"], name="make_a"),
         helper.make_node("Relu", ["a"], ["b"], name="make_b")],
        [vi("x", [2])], [vi("b", [2])], name="loop_graph"))
    write("dangling_input.onnx", graph_model(
        [helper.make_node("Add", ["x", "nowhere"], ["y"], name="reads_nothing")],
        [vi("x", [2])], [vi("y", [2])], name="dangling"))
    write("dangling_output.onnx", graph_model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("never_made", [2])], name="dangling_out"))
    write("unknown_domain.onnx", graph_model(
        [helper.make_node("Frobnicate", ["x"], ["y"], name="mystery", domain="com.example.nothing")],
        [vi("x", [2])], [vi("y", [2])], name="unknown_domain", extra_imports=[("com.example.nothing", 1)]))
    write("unknown_op.onnx", graph_model(
        [helper.make_node("Frobnicate", ["x"], ["y"], name="mystery")],
        [vi("x", [2])], [vi("y", [2])], name="unknown_op"))
    write("domain_not_imported.onnx", graph_model(
        [helper.make_node("LinearRegressor", ["x"], ["y"], name="ml_node", domain="ai.onnx.ml")],
        [vi("x", [1, 2])], [vi("y", [1, 1])], name="no_import"))
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["r"], name="then_id")], "then", [],
                               [vi("r", [2])])
    if_node = helper.make_node("If", ["c"], ["y"], name="branch", else_branch=then_g)
    write("if_without_then_branch.onnx", graph_model(
        [if_node], [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", [2])], name="if_model"))
    write("opset_far_future.onnx", graph_model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2])], [vi("y", [2])],
        name="future", opset=1000))
    write("deep_nesting.onnx", nested_if(200))
    write("nesting_40.onnx", nested_if(40))
    no_graph = onnx.ModelProto()
    no_graph.ir_version = 8
    no_graph.opset_import.append(helper.make_opsetid("", 17))
    write("no_graph.onnx", no_graph)

    # External data naming a file outside the model's folder.
    w = TensorProto()
    w.name = "w"
    w.data_type = FLOAT
    w.dims.extend([2])
    w.data_location = TensorProto.EXTERNAL
    for k, v in [("location", "../../../../../../etc/passwd"), ("offset", "0"), ("length", "8")]:
        e = w.external_data.add()
        e.key, e.value = k, v
    write("external_outside_folder.onnx", copy_of(w))


if __name__ == "__main__":
    main()
