"""SessionOptions' free-dimension overrides and initializers, module-level
queries, the logger callback, optimized-model external data, configs from
the model's metadata, and the feed conversions onnxruntime does."""
import json
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

import tessera
import tiny_models as tm


def ptr(a):
    return a.__array_interface__["data"][0]


def weighted_model(batch="batch", denotation=None):
    """y = x @ W + B, x float [batch, 3]; W [3, 2] and B [2] are initializers."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(3, 2), "W")
    b = numpy_helper.from_array(np.array([0.5, -0.5], np.float32), "B")
    x = tm.tensor("x", TP.FLOAT, [batch, 3])
    if denotation:
        x.type.tensor_type.shape.dim[0].denotation = denotation
    return tm.model_bytes([helper.make_node("MatMul", ["x", "W"], ["t"]), helper.make_node("Add", ["t", "B"], ["y"])],
                          [x], [tm.tensor("y", TP.FLOAT, [batch, 2])], initializers=[w, b])


# --------------------------------------------------------- session options


def test_free_dimension_override_by_name():
    so = tessera.SessionOptions()
    so.add_free_dimension_override_by_name("batch", 5)
    sess = tessera.InferenceSession(weighted_model(), so)
    assert sess.get_inputs()[0].shape == [5, 3]
    assert sess.get_outputs()[0].shape == [5, 2]
    (y,) = sess.run(None, {"x": np.ones((5, 3), np.float32)})
    assert y.shape == (5, 2)
    with pytest.raises(tessera.InvalidArgument, match="dimension 0 must be 5"):
        sess.run(None, {"x": np.ones((2, 3), np.float32)})
    with pytest.raises(tessera.InvalidArgument, match=">= 0"):
        so.add_free_dimension_override_by_name("batch", -1)


def test_free_dimension_override_by_denotation():
    so = tessera.SessionOptions()
    so.add_free_dimension_override_by_denotation("DATA_BATCH", 4)
    sess = tessera.InferenceSession(weighted_model(denotation="DATA_BATCH"), so)
    assert sess.get_inputs()[0].shape == [4, 3]
    # Without the denotation nothing matches: the dimension stays free.
    sess = tessera.InferenceSession(weighted_model(), so)
    assert sess.get_inputs()[0].shape == ["batch", 3]


def test_add_initializer_replaces_the_model_weights():
    x = np.ones((1, 3), np.float32)
    base = tessera.InferenceSession(weighted_model()).run(None, {"x": x})[0]
    np.testing.assert_allclose(base, [[6.5, 8.5]])
    w = np.full((3, 2), 2.0, np.float32)
    so = tessera.SessionOptions()
    so.add_initializer("W", tessera.OrtValue.ortvalue_from_numpy(w))
    del w  # the options keep the OrtValue (and its array) alive
    (y,) = tessera.InferenceSession(weighted_model(), so).run(None, {"x": x})
    np.testing.assert_allclose(y, [[6.5, 5.5]])
    so = tessera.SessionOptions()
    so.add_external_initializers(["W", "B"], [tessera.OrtValue.ortvalue_from_numpy(np.zeros((3, 2), np.float32)),
                                              tessera.OrtValue.ortvalue_from_numpy(np.float32([1, 2]))])
    (y,) = tessera.InferenceSession(weighted_model(), so).run(None, {"x": x})
    np.testing.assert_allclose(y, [[1, 2]])
    with pytest.raises(tessera.Fail, match="must be an OrtValue"):
        so.add_initializer("W", np.zeros((3, 2), np.float32))
    so = tessera.SessionOptions()
    so.add_initializer("W", tessera.OrtValue.ortvalue_from_numpy(np.zeros((2, 2), np.float32)))
    with pytest.raises(tessera.InvalidArgument, match="'W'"):
        tessera.InferenceSession(weighted_model(), so)
    so = tessera.SessionOptions()
    so.add_initializer("nope", tessera.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32)))
    with pytest.raises(tessera.InvalidArgument, match="nope"):
        tessera.InferenceSession(weighted_model(), so)


def test_external_initializers_from_files_in_memory(tmp_path):
    model = onnx.load_from_string(weighted_model())
    big = np.arange(300, dtype=np.float32).reshape(3, 100)
    model.graph.initializer[0].CopyFrom(numpy_helper.from_array(big, "W"))
    model.graph.output[0].type.tensor_type.shape.dim[1].dim_value = 100
    model.graph.initializer[1].CopyFrom(numpy_helper.from_array(np.zeros(100, np.float32), "B"))
    onnx.save_model(model, str(tmp_path / "m.onnx"), save_as_external_data=True, location="weights.bin",
                    size_threshold=0)
    data = (tmp_path / "weights.bin").read_bytes()
    os.remove(tmp_path / "weights.bin")
    model_bytes = (tmp_path / "m.onnx").read_bytes()
    # The file is gone: the model cannot load alone.
    with pytest.raises(tessera.TesseraError):
        tessera.InferenceSession(str(tmp_path / "m.onnx"))
    x = np.ones((1, 3), np.float32)
    for buffer in (data, np.frombuffer(data, np.uint8)):
        so = tessera.SessionOptions()
        so.add_external_initializers_from_files_in_memory(["weights.bin"], [buffer], [len(data)])
        for source in (model_bytes, str(tmp_path / "m.onnx")):
            (y,) = tessera.InferenceSession(source, so).run(None, {"x": x})
            np.testing.assert_allclose(y, big.sum(axis=0, keepdims=True))
    so = tessera.SessionOptions()
    so.add_external_initializers_from_files_in_memory(["weights.bin"], [data[:100]], [100])
    with pytest.raises(tessera.InvalidModel, match="beyond the end"):
        tessera.InferenceSession(model_bytes, so)
    with pytest.raises(tessera.InvalidArgument, match="same length"):
        so.add_external_initializers_from_files_in_memory(["a", "b"], [data], [1])


def test_cpu_mem_arena_option_runs_both_ways():
    x = np.ones((2, 3), np.float32)
    outs = []
    for arena in (True, False):
        so = tessera.SessionOptions()
        so.enable_cpu_mem_arena = arena
        outs.append(tessera.InferenceSession(weighted_model(), so).run(None, {"x": x})[0])
    np.testing.assert_array_equal(outs[0], outs[1])


# ---------------------------------------------------------- module queries


def test_version_build_info_and_telemetry():
    assert tessera.get_version_string() == tessera.__version__
    info = tessera.get_build_info()
    assert tessera.__version__ in info and "build type" in info and "cpu" in info
    tessera.disable_telemetry_events()
    tessera.enable_telemetry_events()


def test_default_logger_callback():
    got = []
    tessera.set_default_logger_callback(lambda *args: got.append(args))
    try:
        so = tessera.SessionOptions()
        so.logid = "mine"
        so.add_free_dimension_override_by_name("no_such_dim", 2)  # matches nothing: a warning
        tessera.InferenceSession(weighted_model(), so)
    finally:
        tessera.set_default_logger_callback(None)
    warnings = [g for g in got if g[0] == 2 and "no_such_dim" in g[4]]
    assert warnings, got
    severity, category, logid, code_location, message = warnings[0]
    assert category == "tessera" and logid == "mine" and isinstance(code_location, str)
    with pytest.raises(TypeError):
        tessera.set_default_logger_callback(3)


def test_memory_info_and_arena_config():
    info = tessera.OrtMemoryInfo("Cpu", tessera.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, tessera.OrtMemType.DEFAULT)
    cfg = tessera.OrtArenaCfg(0, -1, -1, -1)
    assert cfg.max_mem == 0 and cfg.arena_extend_strategy == -1
    cfg2 = tessera.OrtArenaCfg({"max_mem": 1 << 20, "arena_extend_strategy": 1})
    assert cfg2.max_mem == 1 << 20 and cfg2.arena_extend_strategy == 1
    with pytest.raises(tessera.InvalidArgument, match="Invalid OrtArenaCfg option"):
        tessera.OrtArenaCfg({"bogus": 1})
    tessera.create_and_register_allocator(info, cfg)
    with pytest.raises(tessera.InvalidArgument, match="already registered"):
        tessera.create_and_register_allocator(info, cfg)
    gpu = tessera.OrtMemoryInfo("Cuda", tessera.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, tessera.OrtMemType.DEFAULT)
    with pytest.raises(tessera.InvalidArgument, match="Only CPU"):
        tessera.create_and_register_allocator(gpu, None)
    with pytest.raises(tessera.InvalidArgument, match="not supported"):
        tessera.OrtMemoryInfo("Tpu", tessera.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, tessera.OrtMemType.DEFAULT)
    so = tessera.SessionOptions()
    so.add_session_config_entry("session.use_env_allocators", "1")
    (y,) = tessera.InferenceSession(weighted_model(), so).run(None, {"x": np.ones((1, 3), np.float32)})
    np.testing.assert_allclose(y, [[6.5, 8.5]])


# ------------------------------------------------------------- conversions


def test_string_feeds_as_bytes_and_void():
    sess = tessera.InferenceSession(tm.identity(TP.STRING, [2]))
    for feed in (np.array([b"ab", b"cd"]), np.array([b"ab", b"cd"]).astype(np.void), [b"ab", b"cd"], ["ab", "cd"],
                 [np.void(b"ab"), np.void(b"cd")], np.array([np.void(b"ab"), np.void(b"cd")], dtype=object)):
        (y,) = sess.run(None, {"x": feed})
        assert y.tolist() == ["ab", "cd"], feed


def test_list_feeds_take_the_model_element_type():
    for elem, dtype in ((TP.FLOAT, np.float32), (TP.INT32, np.int32), (TP.DOUBLE, np.float64), (TP.BOOL, np.bool_)):
        sess = tessera.InferenceSession(tm.identity(elem, [3]))
        (y,) = sess.run(None, {"x": [1, 0, 1]})
        assert y.dtype == dtype and y.tolist() == [1, 0, 1]


# ----------------------------------------------------- optimized model files


def test_optimized_model_external_initializers(tmp_path):
    so = tessera.SessionOptions()
    so.optimized_model_filepath = str(tmp_path / "opt.onnx")
    so.add_session_config_entry("session.optimized_model_external_initializers_file_name", "opt.bin")
    so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "16")
    x = np.ones((2, 3), np.float32)
    (want,) = tessera.InferenceSession(weighted_model(), so).run(None, {"x": x})
    assert (tmp_path / "opt.bin").stat().st_size >= 24  # W (24 bytes) went out; B (8 bytes) stayed in
    saved = onnx.load(str(tmp_path / "opt.onnx"), load_external_data=False)
    locations = {t.name: {e.key: e.value for e in t.external_data}.get("location") for t in saved.graph.initializer}
    assert locations.get("W") == "opt.bin" and locations.get("B") is None
    (got,) = tessera.InferenceSession(str(tmp_path / "opt.onnx")).run(None, {"x": x})
    np.testing.assert_array_equal(got, want)
    so.add_session_config_entry("session.optimized_model_external_initializers_file_name", "../up.bin")
    with pytest.raises(tessera.InvalidArgument, match="file name"):
        tessera.InferenceSession(weighted_model(), so)


# ------------------------------------------------------- config from model


def model_with_ort_config(config):
    m = onnx.load_from_string(weighted_model())
    entry = m.metadata_props.add()
    entry.key, entry.value = "ort_config", json.dumps(config)
    return m.SerializeToString()


def test_load_config_from_model(monkeypatch, tmp_path):
    model = model_with_ort_config({"session_options": {"intra_op_num_threads": 1, "enable_profiling": 1,
                                                       "graph_optimization_level": 0, "unknown_key": 5}})
    so = tessera.SessionOptions()
    so.profile_file_prefix = str(tmp_path / "p")
    # Not asked for: the metadata is ignored.
    assert tessera.InferenceSession(model, so).end_profiling() == ""
    monkeypatch.setenv("ORT_LOAD_CONFIG_FROM_MODEL", "1")
    sess = tessera.InferenceSession(model, so)
    applied = sess.get_session_options()
    assert applied.enable_profiling is True and applied.intra_op_num_threads == 1
    assert applied.graph_optimization_level == tessera.GraphOptimizationLevel.ORT_DISABLE_ALL
    assert so.enable_profiling is False  # the caller's options are left as they were
    sess.run(None, {"x": np.ones((1, 3), np.float32)})
    assert sess.end_profiling().startswith(str(tmp_path / "p"))
    bad = model_with_ort_config({"session_options": {"intra_op_num_threads": "two"}})
    with pytest.raises(tessera.InvalidArgument, match="must be an integer"):
        tessera.InferenceSession(bad)
    m = onnx.load_from_string(weighted_model())
    entry = m.metadata_props.add()
    entry.key, entry.value = "ort_config", "{not json"
    with pytest.raises(tessera.InvalidArgument, match="cannot be parsed"):
        tessera.InferenceSession(m.SerializeToString())
    monkeypatch.delenv("ORT_LOAD_CONFIG_FROM_MODEL")
    assert tessera.InferenceSession(model, so, read_config_from_model=1).get_session_options().enable_profiling


# ------------------------------------------------- TreeEnsembleClassifier


def binary_trees(post_transform, base_values):
    """Two labels, trees voting for class 0 only, one base value: the form
    LightGBM's and XGBoost's converters write for binary classifiers."""
    node = helper.make_node(
        "TreeEnsembleClassifier", ["x"], ["label", "scores"], domain="ai.onnx.ml",
        nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0], nodes_values=[0.5, 0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
        class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[0, 0], class_weights=[-0.5, 0.1],
        classlabels_int64s=[0, 1], post_transform=post_transform, base_values=base_values)
    return tm.model_bytes([node], [tm.tensor("x", TP.FLOAT, [None, 1])],
                          [tm.tensor("label", TP.INT64, [None]), tm.tensor("scores", TP.FLOAT, [None, 2])],
                          opset=17, ml=True)


def test_tree_ensemble_classifier_binary_with_one_base_value():
    x = np.float32([[0.1], [0.9]])
    s = np.float32([-0.5 + 0.2, 0.1 + 0.2])  # the leaf's vote plus the base value
    label, scores = tessera.InferenceSession(binary_trees("LOGISTIC", [0.2])).run(None, {"x": x})
    sigmoid = 1 / (1 + np.exp(-s))
    np.testing.assert_allclose(scores, np.stack([1 - sigmoid, sigmoid], 1), rtol=1e-6)
    assert label.tolist() == [0, 1]
    # post_transform NONE follows the ONNX reference, [1 - s, s]; onnxruntime
    # 1.30 gives [-s, s] here (its own rule when some weights are negative).
    label, scores = tessera.InferenceSession(binary_trees("NONE", [0.2])).run(None, {"x": x})
    np.testing.assert_allclose(scores, np.stack([1 - s, s], 1), rtol=1e-6)
    assert label.tolist() == [0, 0]
    with pytest.raises(tessera.InvalidModel, match="base_values has 3 entries"):
        tessera.InferenceSession(binary_trees("NONE", [0.2, 0.1, 0.0]))
