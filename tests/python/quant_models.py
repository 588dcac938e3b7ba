"""Float models for the quantization tests (tests/python/test_quantization.py
and tests/quantization/check_ort_runs_quantized.py): a small CNN and a small
MatMul model, weight-dominated so the int8 file is about 4x smaller."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array, np.float32), name)


def _model(nodes, name, x_shape, y_shape, inits):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m.SerializeToString()


CNN_INPUT = (1, 3, 16, 16)
MLP_INPUT = (2, 8, 64)


def cnn_bytes(seed=0):
    """Conv+Relu, MaxPool, Conv+Relu, Concat of two branches, GlobalAveragePool, Flatten, Gemm."""
    r = np.random.default_rng(seed)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool1"),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["p1", "w3"], ["c3"], name="conv3"),
        helper.make_node("Concat", ["r2", "c3"], ["cat"], axis=1, name="concat"),
        helper.make_node("GlobalAveragePool", ["cat"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1, name="fc"),
    ]
    inits = [_init("w1", r.normal(0, 0.3, (32, 3, 3, 3))), _init("b1", r.normal(0, 0.1, 32)),
             _init("w2", r.normal(0, 0.08, (64, 32, 3, 3))), _init("b2", r.normal(0, 0.1, 64)),
             _init("w3", r.normal(0, 0.2, (32, 32, 1, 1))),
             _init("wf", r.normal(0, 0.2, (10, 96))), _init("bf", r.normal(0, 0.1, 10))]
    return _model(nodes, "cnn", list(CNN_INPUT), [1, 10], inits)


def mlp_bytes(seed=0):
    """MatMul + bias Add + Relu, then a second MatMul: the transformer's pattern."""
    r = np.random.default_rng(seed)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
             helper.make_node("Add", ["h", "b1"], ["hb"], name="add1"),
             helper.make_node("Relu", ["hb"], ["hr"], name="relu"),
             helper.make_node("MatMul", ["hr", "w2"], ["y"], name="mm2")]
    inits = [_init("w1", r.normal(0, 0.1, (64, 256))), _init("b1", r.normal(0, 0.1, 256)),
             _init("w2", r.normal(0, 0.1, (256, 32)))]
    return _model(nodes, "mlp", list(MLP_INPUT), [2, 8, 32], inits)


def cosine(a, b):
    a = np.asarray(a, np.float64).ravel()
    b = np.asarray(b, np.float64).ravel()
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
