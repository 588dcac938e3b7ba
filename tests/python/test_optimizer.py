"""The graph optimizer through the Python API: levels (onnxruntime's enum
values), disabled passes by name, and the saved optimized model."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

import tessera
import tiny_models as tm
from conftest import DEFAULT_MODEL

LEVELS = [tessera.GraphOptimizationLevel.ORT_DISABLE_ALL, tessera.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          tessera.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, tessera.GraphOptimizationLevel.ORT_ENABLE_LAYOUT,
          tessera.GraphOptimizationLevel.ORT_ENABLE_ALL]


def foldable_model():
    """y = (x + (c1 + c2)) * Identity(x): one constant sum to fold and an Identity to drop."""
    c1 = numpy_helper.from_array(np.array([1, 2, 3], np.float32), "c1")
    c2 = numpy_helper.from_array(np.array([10, 20, 30], np.float32), "c2")
    nodes = [helper.make_node("Add", ["c1", "c2"], ["c"]), helper.make_node("Add", ["x", "c"], ["s"]),
             helper.make_node("Identity", ["x"], ["i"]), helper.make_node("Mul", ["s", "i"], ["y"])]
    return tm.model_bytes(nodes, [tm.tensor("x", TP.FLOAT, [3])], [tm.tensor("y", TP.FLOAT, [3])],
                          initializers=[c1, c2])


def saved_graph(tmp_path, model, level, **kwargs):
    so = tessera.SessionOptions()
    so.graph_optimization_level = level
    out = tmp_path / f"opt_{int(level)}.onnx"
    so.optimized_model_filepath = str(out)
    sess = tessera.InferenceSession(model, so, **kwargs)
    return sess, onnx.load(str(out))


def test_every_level_gives_the_same_results(tmp_path):
    x = np.array([1, -2, 3], np.float32)
    want = (x + np.array([11, 22, 33], np.float32)) * x
    counts = {}
    for level in LEVELS:
        sess, saved = saved_graph(tmp_path, foldable_model(), level)
        np.testing.assert_allclose(sess.run(None, {"x": x})[0], want, rtol=1e-6)
        counts[level] = len(saved.graph.node)
    assert counts[tessera.GraphOptimizationLevel.ORT_DISABLE_ALL] == 4
    assert counts[tessera.GraphOptimizationLevel.ORT_ENABLE_BASIC] == 2  # Add, Mul
    assert counts[tessera.GraphOptimizationLevel.ORT_ENABLE_ALL] <= 2


def test_default_model_saved_at_all_reloads_with_the_same_results(tmp_path):
    sess, saved = saved_graph(tmp_path, DEFAULT_MODEL, tessera.GraphOptimizationLevel.ORT_ENABLE_ALL)
    domains = {o.domain: o.version for o in saved.opset_import}
    if any(n.domain == "ai.tessera" for n in saved.graph.node):
        assert domains.get("ai.tessera") == 1
    x = np.random.default_rng(3).standard_normal((2, 3, 32, 32)).astype(np.float32)
    reloaded = tessera.InferenceSession(str(tmp_path / f"opt_{99}.onnx"))
    plain = tessera.SessionOptions()
    plain.graph_optimization_level = tessera.GraphOptimizationLevel.ORT_DISABLE_ALL
    unoptimized = tessera.InferenceSession(DEFAULT_MODEL, plain)
    want = unoptimized.run(None, {"image": x})[0]
    np.testing.assert_allclose(sess.run(None, {"image": x})[0], want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(reloaded.run(None, {"image": x})[0], want, rtol=1e-4, atol=1e-6)


def test_disabled_optimizers_by_name(tmp_path):
    _, saved = saved_graph(tmp_path, foldable_model(), tessera.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                           disabled_optimizers=["ConstantFolding"])
    assert [n.op_type for n in saved.graph.node] == ["Add", "Add", "Mul"]  # Identity gone, c1+c2 kept
    with pytest.raises(tessera.InvalidArgument, match="ConstantFolding"):
        tessera.InferenceSession(foldable_model(), disabled_optimizers=["NoSuchPass"])
    with pytest.raises(TypeError):
        tessera.InferenceSession(foldable_model(), disabled_optimizers="ConstantFolding")


def test_level_spellings():
    so = tessera.SessionOptions()
    for text, level in [("basic", tessera.GraphOptimizationLevel.ORT_ENABLE_BASIC),
                        ("Disabled", tessera.GraphOptimizationLevel.ORT_DISABLE_ALL),
                        ("ORT_ENABLE_EXTENDED", tessera.GraphOptimizationLevel.ORT_ENABLE_EXTENDED),
                        (99, tessera.GraphOptimizationLevel.ORT_ENABLE_ALL), (3, tessera.GraphOptimizationLevel.ORT_ENABLE_LAYOUT)]:
        so.graph_optimization_level = text
        assert so.graph_optimization_level is level
    with pytest.raises(TypeError, match="basic"):
        so.graph_optimization_level = "fast"
