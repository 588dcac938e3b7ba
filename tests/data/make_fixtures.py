#!/usr/bin/env python3
"""Generates the small ONNX fixtures the loader tests read (committed, so the
tests need no Python). Run with Debian's python3-onnx:
    /usr/bin/python3 tests/data/make_fixtures.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, *parts):
    path = os.path.join(HERE, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def model_of(graph, opset=17, functions=None, ir_version=8):
    imports = [helper.make_opsetid("", opset)]
    if functions:
        imports.append(helper.make_opsetid("custom.fn", 1))
    m = helper.make_model(graph, opset_imports=imports, functions=functions or [], producer_name="tessera-fixtures")
    m.ir_version = ir_version
    return m


def external_data_model(folder, location, offset=0, length=None, values=None):
    """A model whose initializer `w` lives in an external file."""
    values = np.arange(6, dtype=np.float32) if values is None else values
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([2, 3])
    w.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", str(offset)),
                 ("length", str(values.nbytes if length is None else length))]:
        e = w.external_data.add()
        e.key, e.value = k, v
    g = helper.make_graph([helper.make_node("Identity", ["w"], ["y"], name="copy")], "external",
                          [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [w])
    save(model_of(g), folder, "model.onnx")


def main():
    # Model-local function: y = (x + x) * scale, scale an attribute with a default.
    fn = helper.make_function(
        "custom.fn", "DoubleScale", ["x"], ["y"],
        [helper.make_node("Add", ["x", "x"], ["twice"]),
         helper.make_node("Constant", [], ["s"], value_float=0.0),
         helper.make_node("Mul", ["twice", "s"], ["y"])],
        [helper.make_opsetid("", 17)])
    # Make the Constant take the caller's `scale` attribute.
    const = fn.node[1]
    del const.attribute[:]
    ref = onnx.AttributeProto()
    ref.name = "value_float"
    ref.ref_attr_name = "scale"
    ref.type = onnx.AttributeProto.FLOAT
    const.attribute.append(ref)
    fn.attribute.append("scale")
    g = helper.make_graph(
        [helper.make_node("DoubleScale", ["x"], ["y"], domain="custom.fn", name="call", scale=1.5)], "function",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    save(model_of(g, functions=[fn]), "function", "model.onnx")

    # If with an outer-scope reference in both branches.
    then_g = helper.make_graph([helper.make_node("Add", ["x", "one"], ["r"], name="then_add")], "then", [],
                               [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2])])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "one"], ["r"], name="else_sub")], "else", [],
                               [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2])])
    g = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)], "if_model",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(np.ones(2, dtype=np.float32), "one")])
    save(model_of(g), "if_outer_scope", "model.onnx")

    # Sparse initializer: 2x3 with two non-zeros.
    values = numpy_helper.from_array(np.array([5.0, 7.0], dtype=np.float32), "sp")
    indices = numpy_helper.from_array(np.array([1, 5], dtype=np.int64), "sp_indices")
    sparse = helper.make_sparse_tensor(values, indices, [2, 3])
    g = helper.make_graph([helper.make_node("Identity", ["sp"], ["y"], name="copy")], "sparse", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    g.sparse_initializer.append(sparse)
    save(model_of(g), "sparse_initializer", "model.onnx")

    # External data: a good one, and hostile locations.
    data = np.arange(6, dtype=np.float32)
    os.makedirs(os.path.join(HERE, "external_ok"), exist_ok=True)
    with open(os.path.join(HERE, "external_ok", "weights.bin"), "wb") as f:
        f.write(b"\0" * 64 + data.tobytes())
    external_data_model("external_ok", "weights.bin", offset=64)
    external_data_model("external_dotdot", "../external_ok/weights.bin", offset=64)
    external_data_model("external_absolute", "/etc/passwd")
    external_data_model("external_past_end", "weights.bin", offset=1000)
    with open(os.path.join(HERE, "external_past_end", "weights.bin"), "wb") as f:
        f.write(data.tobytes())
    external_data_model("external_symlink", "link.bin")
    link = os.path.join(HERE, "external_symlink", "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("../external_ok/weights.bin", link)


if __name__ == "__main__":
    main()
