"""Tiny ONNX models for the Python API tests, built with onnx.helper."""
import onnx
from onnx import TensorProto as TP
from onnx import helper

# Element types python3-onnx 1.12 has no names for.
FLOAT8E4M3FN = 17
UINT4 = 21
INT4 = 22


def model_bytes(nodes, inputs, outputs, opset=21, initializers=(), ml=False, domains=(), **model_fields):
    opsets = [helper.make_opsetid("", opset)]
    if ml:
        opsets.append(helper.make_opsetid("ai.onnx.ml", 3))
    for d in domains:
        opsets.append(helper.make_opsetid(d, 1))
    graph = helper.make_graph(nodes, model_fields.pop("graph_name", "g"), inputs, outputs,
                              initializer=list(initializers), doc_string=model_fields.pop("graph_doc", ""))
    metadata = model_fields.pop("metadata", {})
    m = helper.make_model(graph, opset_imports=opsets, **model_fields)
    m.ir_version = 8
    for k, v in metadata.items():
        entry = m.metadata_props.add()
        entry.key, entry.value = k, v
    return m.SerializeToString()


def tensor(name, elem_type, shape=None):
    return helper.make_tensor_value_info(name, elem_type, shape)


def seq_type(elem_type):
    return helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem_type, None))


def map_type(key_type, value_elem_type):
    t = onnx.TypeProto()
    t.map_type.key_type = key_type
    t.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(value_elem_type, None))
    return t


def identity(elem_type, shape=None):
    return model_bytes([helper.make_node("Identity", ["x"], ["y"])], [tensor("x", elem_type, shape)],
                       [tensor("y", elem_type, shape)])


def add_model():
    """z = x + y over float [n, 4] (symbolic n), plus w = x * 2 (second output)."""
    two = helper.make_tensor("two", TP.FLOAT, [], [2.0])
    return model_bytes(
        [helper.make_node("Add", ["x", "y"], ["z"], name="add"),
         helper.make_node("Mul", ["x", "two"], ["w"], name="double")],
        [tensor("x", TP.FLOAT, ["n", 4]), tensor("y", TP.FLOAT, ["n", 4])],
        [tensor("z", TP.FLOAT, ["n", 4]), tensor("w", TP.FLOAT, ["n", 4])],
        initializers=[two])
