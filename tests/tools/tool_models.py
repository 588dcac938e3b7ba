"""Small ONNX models for the tools tests, each built to show one thing.

Written with python3-onnx's helper API (Debian's python3-onnx); every model
is valid ONNX that the CPU provider loads, unless its docstring says not.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Checks:
    """Named checks of a tools test: each prints ok or FAIL, and exit_code()
    is the script's exit status."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            self.failures.append(what)

    def exit_code(self):
        print(f"{len(self.failures)} failure(s)")
        return 1 if self.failures else 0


def _save(model, path, external=False):
    onnx.checker.check_model(model)
    if external:
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="weights.bin", size_threshold=0)
    else:
        onnx.save(model, path)
    return path


def _model(nodes, inputs, outputs, inits=(), opset=17, name="m"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tessera-tests")


def _w(name, shape, seed):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)


def mixed_opencl_cpu(path, external=False):
    """Conv/Relu/GlobalAveragePool (OpenCL has kernels) around Round and Sign
    (it has none): opencl, cpu, opencl, cpu, opencl partitions and copies at
    every boundary. Static shapes."""
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Round", ["r1"], ["q1"], name="round1"),
        helper.make_node("Conv", ["q1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Sign", ["c2"], ["s2"], name="sign2"),
        helper.make_node("GlobalAveragePool", ["s2"], ["y"], name="gap"),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 1, 1])],
               [_w("w1", [8, 3, 3, 3], 1), _w("w2", [8, 8, 3, 3], 2)])
    return _save(m, path, external)


def constant_subgraph(path):
    """A weight transposed and scaled at run time: Transpose and Mul read
    initializers only (what do_constant_folding=True removes)."""
    nodes = [
        helper.make_node("Transpose", ["w_t"], ["w"], name="transpose_w", perm=[1, 0]),
        helper.make_node("Mul", ["w", "scale"], ["w_scaled"], name="scale_w"),
        helper.make_node("MatMul", ["x", "w_scaled"], ["y"], name="matmul"),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
               [_w("w_t", [3, 4], 3), numpy_helper.from_array(np.array(2.0, np.float32), "scale")])
    return _save(m, path)


def _counting_loop():
    """Loop 'count_loop': y = x + 1 per iteration, n iterations (the trip
    count input 'n'), its condition passed through unchanged."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Add", ["acc_in", "one"], ["acc_out"], name="body_add")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.ones(2, np.float32), "one")])
    return helper.make_node("Loop", ["n", "", "x"], ["y"], name="count_loop", body=body)


def value_dependent_loop(path):
    """A Loop whose trip count is a graph input: how often the body runs
    depends on a tensor value."""
    nodes = [_counting_loop()]
    m = _model(nodes, [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                       helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    return _save(m, path)


def constant_loop(path):
    """The same Loop with its trip count an initializer (3): nothing about
    it depends on tensor values."""
    nodes = [_counting_loop()]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
               [numpy_helper.from_array(np.array(3, np.int64), "n")])
    return _save(m, path)


def value_dependent_if(path):
    """An If on a comparison of the input: which branch runs depends on x."""
    def branch(name, value):
        return helper.make_graph(
            [helper.make_node("Mul", ["x", name + "_k"], [name + "_y"], name=name + "_mul")], name, [],
            [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, [2])],
            initializer=[numpy_helper.from_array(np.array(value, np.float32), name + "_k")])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], name="total", keepdims=0),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="is_positive"),
             helper.make_node("If", ["positive"], ["y"], name="sign_branch",
                              then_branch=branch("then", 2.0), else_branch=branch("else", -2.0))]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
               [numpy_helper.from_array(np.array(0.0, np.float32), "zero")])
    return _save(m, path)


def dynamic_scan(path):
    """A Scan over a sequence whose length is the symbolic dim 'steps':
    the trip count is known only when the model runs."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"], name="body_add"),
         helper.make_node("Identity", ["s_out"], ["y_t"], name="body_out")],
        "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [4])])
    nodes = [helper.make_node("Scan", ["s0", "xs"], ["s", "ys"], name="running_sum", body=body, num_scan_inputs=1)]
    m = _model(nodes, [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [4]),
                       helper.make_tensor_value_info("xs", TensorProto.FLOAT, ["steps", 4])],
               [helper.make_tensor_value_info("s", TensorProto.FLOAT, [4]),
                helper.make_tensor_value_info("ys", TensorProto.FLOAT, ["steps", 4])])
    return _save(m, path)


def dynamic_batch(path):
    """A conv net with a symbolic batch dim 'batch' (static-shape providers
    such as dnnl refuse its nodes until the batch is fixed)."""
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("GlobalAveragePool", ["r1"], ["y"], name="gap"),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 16, 16])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8, 1, 1])],
               [_w("w1", [8, 3, 3, 3], 1)])
    return _save(m, path)


def opset_older_than_opencl(path):
    """Opset 6: the CPU kernels cover Add from opset 1; OpenCL's start at
    opset 7, so there the Add falls back between two OpenCL partitions."""
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1"),
        helper.make_node("Add", ["c1", "c1"], ["s"], name="double"),
        helper.make_node("Relu", ["s"], ["y"], name="relu1"),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 2, 2])],
               [_w("w1", [8, 3, 3, 3], 1)], opset=6)
    return _save(m, path)


def opset_newer_than_kernels(path, opset=40):
    """An opset past every kernel table (a future export): no kernel covers
    Relu there, so the model does not load. Not checked by onnx.checker,
    which knows only the opsets of its own release."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu1")]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], opset=opset)
    onnx.save(m, path)
    return path


def clean(path):
    """Static shapes, no constants left to fold, every op with kernels
    everywhere: doctor must find nothing."""
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["y"], name="relu1"),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])], [_w("w1", [8, 3, 3, 3], 1)])
    return _save(m, path)


def long_ladder(path, count, round_every=300):
    """`count` elementwise nodes in a ladder (each Add reads the two values
    before it), with a Round (no OpenCL kernel) every `round_every` nodes:
    a large graph for the placement map's collapsed start."""
    nodes, prev2, prev = [], "x", "x"
    for i in range(count):
        out = f"v{i}"
        if i % 3 == 2:
            nodes.append(helper.make_node("Add", [prev, prev2], [out], name=f"add{i}"))
        elif i % 3 == 1:
            nodes.append(helper.make_node("Sigmoid", [prev], [out], name=f"sigmoid{i}"))
        else:
            nodes.append(helper.make_node("Round" if i % round_every == 0 else "Tanh", [prev], [out], name=f"act{i}"))
        prev2, prev = prev, out
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
               [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16])])
    return _save(m, path)


def custom_op(path):
    """A node of a custom domain (com.example:Frobnicate) no runtime here
    implements: the model cannot load. Not checked by onnx.checker, which
    has no schema for it."""
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu1"),
             helper.make_node("Frobnicate", ["r"], ["y"], name="frob", domain="com.example")]
    graph = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    onnx.save(m, path)
    return path


def unnamed_dim(path):
    """An input whose first dimension has neither a size nor a name: no
    --free-dim can reach it."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu1")]
    m = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 4])])
    return _save(m, path)
