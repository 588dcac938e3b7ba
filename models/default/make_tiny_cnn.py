#!/usr/bin/env python3
"""Writes model.onnx, Tessera's bundled default model, plus one input and
the output computed independently here with numpy (test_data_set_0), in the
ONNX backend-test layout so `tessera conformance models/default` checks it.

Needs Debian's python3-onnx and python3-numpy. Deterministic (seed 0).
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(0)


def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    k = w.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, w.shape[0], h, wd), dtype=np.float64)
    for i in range(h):
        for j in range(wd):
            patch = xp[:, :, i:i + k, j:j + k]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out + b.reshape(1, -1, 1, 1)


def main():
    w1 = (rng.randn(8, 3, 3, 3) * 0.3).astype(np.float32)
    b1 = (rng.randn(8) * 0.1).astype(np.float32)
    w2 = (rng.randn(16, 8, 3, 3) * 0.2).astype(np.float32)
    b2 = (rng.randn(16) * 0.1).astype(np.float32)
    wf = (rng.randn(10, 16) * 0.3).astype(np.float32)
    bf = (rng.randn(10) * 0.1).astype(np.float32)
    x = rng.rand(1, 3, 32, 32).astype(np.float32)

    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 10])],
        [numpy_helper.from_array(a, n) for a, n in
         [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (wf, "wf"), (bf, "bf")]])
    model = helper.make_model(graph, producer_name="tessera", opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.doc_string = "Tessera's bundled default model: a tiny CNN classifier with seeded random weights."
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "model.onnx"))

    # Independent numpy reference.
    r1 = np.maximum(conv2d(x.astype(np.float64), w1, b1, 1), 0)
    p1 = r1.reshape(1, 8, 16, 2, 16, 2).max(axis=(3, 5))
    r2 = np.maximum(conv2d(p1, w2, b2, 1), 0)
    g = r2.mean(axis=(2, 3))
    logits = g @ wf.T.astype(np.float64) + bf
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)

    data = os.path.join(HERE, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "image").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(probs, "probabilities").SerializeToString())


if __name__ == "__main__":
    main()
