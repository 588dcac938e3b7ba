"""The tessera Python API: every public function and option, error paths
included, against the bundled default model and tiny helper-built models."""
import json
import os
import pathlib
import threading
import time
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

import tessera
import tiny_models as tm
from conftest import DEFAULT_MODEL, DEFAULT_MODEL_DIR


def load_pb(name):
    return numpy_helper.to_array(onnx.load_tensor(os.path.join(DEFAULT_MODEL_DIR, "test_data_set_0", name)))


@pytest.fixture(scope="module")
def default_session():
    return tessera.InferenceSession(DEFAULT_MODEL, providers=["CPUExecutionProvider"])


# ------------------------------------------------------------ default model


def test_default_model_matches_reference(default_session):
    x, expected = load_pb("input_0.pb"), load_pb("output_0.pb")
    (y,) = default_session.run(None, {"image": x})
    assert y.dtype == np.float32 and y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-6)


def test_default_model_io(default_session):
    (inp,) = default_session.get_inputs()
    (out,) = default_session.get_outputs()
    assert (inp.name, inp.type, inp.shape) == ("image", "tensor(float)", ["batch", 3, 32, 32])
    assert (out.name, out.type, out.shape) == ("probabilities", "tensor(float)", ["batch", 10])
    assert "image" in repr(inp) and "tensor(float)" in str(inp)
    assert default_session.get_overridable_initializers() == []


def test_default_model_any_batch(default_session):
    x = np.random.default_rng(1).standard_normal((5, 3, 32, 32)).astype(np.float32)
    (y,) = default_session.run(["probabilities"], {"image": x})
    assert y.shape == (5, 10)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, atol=1e-5)
    # Each row equals running that sample alone.
    (y2,) = default_session.run(None, {"image": x[2:3]})
    np.testing.assert_allclose(y[2:3], y2, rtol=1e-5, atol=1e-6)


def test_modelmeta(default_session):
    meta = default_session.get_modelmeta()
    assert meta.producer_name == "tessera"
    assert meta.graph_name == "tiny_cnn"
    assert isinstance(meta.description, str) and meta.description
    assert meta.domain == "" and meta.version == 0
    assert meta.custom_metadata_map == {}
    assert "tiny_cnn" in repr(meta)


def test_modelmeta_fields():
    b = tm.model_bytes([helper.make_node("Identity", ["x"], ["y"])], [tm.tensor("x", TP.FLOAT)],
                       [tm.tensor("y", TP.FLOAT)], producer_name="maker", producer_version="1.2", domain="org.test",
                       model_version=7, doc_string="a doc", graph_name="gname", graph_doc="graph doc",
                       metadata={"author": "me", "license": "MIT"})
    meta = tessera.InferenceSession(b).get_modelmeta()
    assert meta.producer_name == "maker" and meta.producer_version == "1.2"
    assert meta.domain == "org.test" and meta.version == 7
    assert meta.description == "a doc" and meta.graph_name == "gname" and meta.graph_description == "graph doc"
    assert meta.custom_metadata_map == {"author": "me", "license": "MIT"}
    assert meta.opset_imports["ai.onnx"] == 21


def test_load_from_bytes_and_pathlike():
    with open(DEFAULT_MODEL, "rb") as f:
        data = f.read()
    x = load_pb("input_0.pb")
    ref = tessera.InferenceSession(DEFAULT_MODEL).run(None, {"image": x})[0]
    for src in (data, bytearray(data), memoryview(data), pathlib.Path(DEFAULT_MODEL)):
        np.testing.assert_array_equal(tessera.InferenceSession(src).run(None, {"image": x})[0], ref)


def test_node_placement(default_session):
    placement = default_session.get_node_placement()
    assert placement, "every node is placed"
    for p in placement:
        assert set(p) == {"node", "op_type", "domain", "provider"}
        assert p["provider"] == "CPUExecutionProvider"
    # The placement lists the optimized graph: at the default level (all) the
    # convolutions are fused with their activations.
    assert any(p["op_type"] in ("Conv", "FusedConv") for p in placement)
    names = [p["node"] for p in tessera.InferenceSession(tm.add_model()).get_node_placement()]
    assert sorted(names) == ["add", "double"]


# ----------------------------------------------------------------- providers


def test_available_providers():
    available = tessera.get_available_providers()
    assert available[-1] == "CPUExecutionProvider"
    assert set(available) <= set(tessera.get_all_providers())
    assert "CPUExecutionProvider" in tessera.get_all_providers()
    assert tessera.get_device() == "CPU"
    assert isinstance(tessera.__version__, str) and tessera.__version__


# What providers=None gives: oneDNN ahead of the CPU EP when built in.
DEFAULT = ["DnnlExecutionProvider", "CPUExecutionProvider"] if "DnnlExecutionProvider" in \
    tessera.get_available_providers() else ["CPUExecutionProvider"]


@pytest.mark.parametrize("providers", [None, ["cpu"], ["CPUExecutionProvider"], ["CPU"],
                                       [("CPUExecutionProvider", {})]])
def test_provider_spellings(providers):
    sess = tessera.InferenceSession(tm.add_model(), providers=providers)
    want = DEFAULT if providers is None else ["CPUExecutionProvider"]
    assert sess.get_providers() == want
    assert sess.get_provider_options() == {p: {} for p in want}


@pytest.mark.skipif("DnnlExecutionProvider" not in tessera.get_available_providers(), reason="no oneDNN EP")
def test_dnnl_provider_falls_back_on_symbolic_shapes():
    # add_model's batch is symbolic: oneDNN compiles for static shapes only,
    # so its nodes fall back to the CPU EP, with the same results.
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    sess = tessera.InferenceSession(tm.add_model(), providers=["DnnlExecutionProvider"])
    assert sess.get_providers() == ["DnnlExecutionProvider", "CPUExecutionProvider"]
    cpu = tessera.InferenceSession(tm.add_model(), providers=["CPUExecutionProvider"])
    feeds = {i.name: x for i in cpu.get_inputs()}
    np.testing.assert_allclose(sess.run(None, feeds)[0], cpu.run(None, feeds)[0], rtol=1e-6)
    assert {p["provider"] for p in sess.get_node_placement()} == {"CPUExecutionProvider"}


@pytest.mark.skipif("OpenCLExecutionProvider" not in tessera.get_available_providers(), reason="no OpenCL device")
def test_opencl_provider_matches_cpu():
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    sess = tessera.InferenceSession(tm.add_model(), providers=["OpenCLExecutionProvider"])
    assert sess.get_providers() == ["OpenCLExecutionProvider", "CPUExecutionProvider"]
    cpu = tessera.InferenceSession(tm.add_model(), providers=["CPUExecutionProvider"])
    feeds = {i.name: x for i in cpu.get_inputs()}
    np.testing.assert_allclose(sess.run(None, feeds)[0], cpu.run(None, feeds)[0], rtol=1e-6)
    assert {p["provider"] for p in sess.get_node_placement()} == {"OpenCLExecutionProvider"}


def test_unknown_provider(capsys):
    # As onnxruntime: a warning, then "Unknown Provider Type" and a retry on
    # the CPU provider, both said on stdout.
    with pytest.warns(UserWarning, match="'NoSuchExecutionProvider' is not in available provider names"):
        sess = tessera.InferenceSession(tm.add_model(), providers=["NoSuchExecutionProvider"])
    out = capsys.readouterr().out
    assert "Unknown Provider Type: NoSuchExecutionProvider" in out
    assert "Falling back to ['CPUExecutionProvider']" in out
    assert sess.get_providers() == ["CPUExecutionProvider"]


def test_known_but_unavailable_provider_is_skipped_with_a_warning():
    # CUDA is a provider onnxruntime knows; Tessera has no CUDA EP built in
    # here, so it is skipped with onnxruntime's warning (no error).
    if "CUDAExecutionProvider" in tessera.get_available_providers():
        pytest.skip("CUDA EP available")
    with pytest.warns(UserWarning, match="Specified provider 'CUDAExecutionProvider' is not in available provider"):
        sess = tessera.InferenceSession(tm.add_model(), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    with pytest.warns(UserWarning, match="Duplicate provider"):
        tessera.InferenceSession(tm.add_model(), providers=["cpu", "CPUExecutionProvider"])


def test_all_providers_lists_cpu_last():
    names = tessera.get_all_providers()
    assert names[-1] == "CPUExecutionProvider"
    assert {"CUDAExecutionProvider", "DnnlExecutionProvider", "TensorrtExecutionProvider"} <= set(names)
    assert set(tessera.get_available_providers()) <= set(names)


def test_provider_argument_forms():
    with pytest.raises(TypeError):
        tessera.InferenceSession(tm.add_model(), providers="CPUExecutionProvider")
    with pytest.raises(ValueError, match="same length"):
        tessera.InferenceSession(tm.add_model(), providers=["cpu"], provider_options=[{}, {}])
    with pytest.raises(ValueError):
        tessera.InferenceSession(tm.add_model(), providers=[("cpu",)])
    with pytest.raises(TypeError):
        tessera.InferenceSession(tm.add_model(), providers=[3])
    with pytest.warns(RuntimeWarning, match="ignored"):
        tessera.InferenceSession(tm.add_model(), providers=["cpu"], provider_options=[{"arena": "1"}])


def test_set_providers():
    sess = tessera.InferenceSession(tm.add_model(), providers=["CPUExecutionProvider"])
    x = np.ones((2, 4), np.float32)
    sess.set_providers(["cpu"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    sess.set_providers()
    assert sess.get_providers() == DEFAULT
    sess.set_providers(["CPUExecutionProvider"], [{}])
    with pytest.warns(UserWarning, match="'TensorrtExecutionProvider' is not in available provider names"):
        sess.set_providers(["TensorrtExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    z, w = sess.run(None, {"x": x, "y": x})
    np.testing.assert_array_equal(z, 2 * x)
    np.testing.assert_array_equal(w, 2 * x)


def test_fallback_methods():
    sess = tessera.InferenceSession(tm.add_model())
    sess.enable_fallback()
    with pytest.raises(tessera.NotImplemented):
        sess.disable_fallback()


# --------------------------------------------------------------------- run


def test_run_output_selection():
    sess = tessera.InferenceSession(tm.add_model())
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y = np.ones((2, 4), np.float32)
    z, w = sess.run(None, {"x": x, "y": y})
    np.testing.assert_array_equal(z, x + y)
    np.testing.assert_array_equal(w, x * 2)
    (w2,) = sess.run(["w"], {"x": x, "y": y})
    np.testing.assert_array_equal(w2, w)
    w3, z3 = sess.run(["w", "z"], {"x": x, "y": y})
    np.testing.assert_array_equal(z3, z)
    assert len(sess.run([], {"x": x, "y": y})) == 2
    assert [o.name for o in sess.get_outputs()] == ["z", "w"]
    assert sess.get_inputs()[0].shape == ["n", 4]


def test_run_feed_conversions():
    sess = tessera.InferenceSession(tm.add_model())
    base = np.arange(16, dtype=np.float32).reshape(4, 4)
    y = np.zeros((4, 4), np.float32)
    # Non-contiguous, read-only, big-endian and list feeds are all accepted.
    transposed = base.T
    (z,) = sess.run(["z"], {"x": transposed, "y": y})
    np.testing.assert_array_equal(z, transposed)
    ro = base.copy()
    ro.setflags(write=False)
    (z,) = sess.run(["z"], {"x": ro, "y": y})
    np.testing.assert_array_equal(z, base)
    (z,) = sess.run(["z"], {"x": base.astype(">f4"), "y": y})
    np.testing.assert_array_equal(z, base)
    # Nested lists take the input's element type, as onnxruntime casts them
    # (ints to float32 here); a numpy array of another dtype is refused.
    (z,) = sess.run(["z"], {"x": np.ones((1, 4), np.float32), "y": [[1, 2, 3, 4]]})
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z, [[2, 3, 4, 5]])
    with pytest.raises(tessera.InvalidArgument, match="expected element type float but got double"):
        sess.run(["z"], {"x": np.ones((1, 4), np.float32), "y": np.float64([[1.0, 2.0, 3.0, 4.0]])})
    (z,) = sess.run(["z"], {"x": np.ones((1, 4), np.float32), "y": np.float32([[1, 2, 3, 4]])})
    np.testing.assert_array_equal(z, [[2, 3, 4, 5]])
    # Feeds given as a list of pairs work like a dict.
    (z,) = sess.run(["z"], [("x", base), ("y", y)])
    np.testing.assert_array_equal(z, base)


def test_outputs_are_independent_of_inputs_and_model():
    # Identity returns its input: the output must be a copy, not the caller's array.
    sess = tessera.InferenceSession(tm.identity(TP.FLOAT))
    x = np.arange(4, dtype=np.float32)
    (y,) = sess.run(None, {"x": x})
    y[0] = 100
    assert x[0] == 0
    # A Constant's value must not be writable through an output.
    c = helper.make_tensor("c", TP.FLOAT, [2], [1.0, 2.0])
    b = tm.model_bytes([helper.make_node("Constant", [], ["y"], value=c)], [], [tm.tensor("y", TP.FLOAT, [2])])
    sess = tessera.InferenceSession(b)
    (y,) = sess.run(None, {})
    y[:] = -1
    np.testing.assert_array_equal(sess.run(None, {})[0], [1.0, 2.0])


def test_outputs_survive_session():
    sess = tessera.InferenceSession(tm.add_model())
    x = np.ones((3, 4), np.float32)
    z, w = sess.run(None, {"x": x, "y": x})
    del sess
    np.testing.assert_array_equal(z, 2 * x)
    z += 1  # owned (or exclusively held) and writable
    np.testing.assert_array_equal(z, 3 * x)


def test_overridable_initializer():
    bias = numpy_helper.from_array(np.full((2,), 10.0, np.float32), "bias")
    b = tm.model_bytes([helper.make_node("Add", ["x", "bias"], ["y"])],
                       [tm.tensor("x", TP.FLOAT, [2]), tm.tensor("bias", TP.FLOAT, [2])],
                       [tm.tensor("y", TP.FLOAT, [2])], initializers=[bias])
    sess = tessera.InferenceSession(b)
    assert [i.name for i in sess.get_inputs()] == ["x"]
    (ov,) = sess.get_overridable_initializers()
    assert (ov.name, ov.type, ov.shape) == ("bias", "tensor(float)", [2])
    x = np.array([1, 2], np.float32)
    np.testing.assert_array_equal(sess.run(None, {"x": x})[0], [11, 12])
    np.testing.assert_array_equal(sess.run(None, {"x": x, "bias": np.zeros(2, np.float32)})[0], [1, 2])


def test_concurrent_runs_from_threads():
    sess = tessera.InferenceSession(DEFAULT_MODEL)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((2, 3, 32, 32)).astype(np.float32) for _ in range(8)]
    expected = [sess.run(None, {"image": x})[0] for x in xs]
    results = [None] * len(xs)
    errors = []

    def work(i):
        try:
            for _ in range(3):
                results[i] = sess.run(None, {"image": xs[i]})[0]
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r, e)


# ----------------------------------------------------------------- dtypes


@pytest.mark.parametrize("elem_type,values", [
    (TP.FLOAT, np.array([1.5, -2], np.float32)),
    (TP.DOUBLE, np.array([1.5, -2], np.float64)),
    (TP.FLOAT16, np.array([1.5, -2], np.float16)),
    (TP.INT8, np.array([-128, 127], np.int8)),
    (TP.INT16, np.array([-32768, 5], np.int16)),
    (TP.INT32, np.array([-(2**31), 7], np.int32)),
    (TP.INT64, np.array([-(2**63), 2**62], np.int64)),
    (TP.UINT8, np.array([0, 255], np.uint8)),
    (TP.UINT16, np.array([0, 65535], np.uint16)),
    (TP.UINT32, np.array([0, 2**32 - 1], np.uint32)),
    (TP.UINT64, np.array([0, 2**64 - 1], np.uint64)),
    (TP.BOOL, np.array([True, False])),
    (TP.COMPLEX64, np.array([1 + 2j, -3j], np.complex64)),
    (TP.COMPLEX128, np.array([1 + 2j, -3j], np.complex128)),
])
def test_numeric_dtypes_round_trip(elem_type, values):
    sess = tessera.InferenceSession(tm.identity(elem_type))
    (y,) = sess.run(None, {"x": values.reshape(2, 1)})
    assert y.dtype == values.dtype and y.shape == (2, 1)
    np.testing.assert_array_equal(y.ravel(), values)


def test_type_strings():
    names = {TP.FLOAT: "float", TP.DOUBLE: "double", TP.FLOAT16: "float16", TP.INT64: "int64", TP.BOOL: "bool",
             TP.STRING: "string", TP.BFLOAT16: "bfloat16", TP.UINT8: "uint8", TP.COMPLEX64: "complex64"}
    for elem_type, name in names.items():
        sess = tessera.InferenceSession(tm.identity(elem_type, [2, None]))
        assert sess.get_inputs()[0].type == f"tensor({name})"
        assert sess.get_inputs()[0].shape == [2, None]


def test_unknown_rank_and_scalar_shapes():
    sess = tessera.InferenceSession(tm.identity(TP.FLOAT, None))
    assert sess.get_inputs()[0].shape == []
    (y,) = sess.run(None, {"x": np.float32(3)})
    assert y.shape == () and y == 3
    sess = tessera.InferenceSession(tm.identity(TP.FLOAT, []))
    assert sess.get_inputs()[0].shape == []


def test_strings():
    sess = tessera.InferenceSession(tm.identity(TP.STRING))
    for feed in (np.array(["a", "héllo", ""], dtype=object), np.array(["a", "héllo", ""]),
                 np.array([b"a", "héllo".encode(), b""], dtype=object)):
        (y,) = sess.run(None, {"x": feed})
        assert y.dtype == object
        assert y.tolist() == ["a", "héllo", ""]
    (y,) = sess.run(None, {"x": np.array([["ab", "c"], ["d", "e"]])})
    assert y.shape == (2, 2) and y[1, 0] == "d"
    with pytest.raises(tessera.InvalidArgument, match="str or bytes"):
        sess.run(None, {"x": np.array([1, "a"], dtype=object)})


def test_bfloat16_and_float8_as_raw_bits():
    sess = tessera.InferenceSession(tm.identity(TP.BFLOAT16))
    bits = np.array([0x3F80, 0xC000], np.uint16)  # 1.0, -2.0
    (y,) = sess.run(None, {"x": bits})
    assert y.dtype == np.uint16
    np.testing.assert_array_equal(y, bits)
    # Cast to float proves the bits were read as bfloat16.
    b = tm.model_bytes([helper.make_node("Cast", ["x"], ["y"], to=TP.FLOAT)], [tm.tensor("x", TP.BFLOAT16)],
                       [tm.tensor("y", TP.FLOAT)])
    np.testing.assert_array_equal(tessera.InferenceSession(b).run(None, {"x": bits})[0], [1.0, -2.0])
    sess = tessera.InferenceSession(tm.identity(tm.FLOAT8E4M3FN))
    (y,) = sess.run(None, {"x": np.array([0x38, 0x40], np.uint8)})
    assert y.dtype == np.uint8 and y.tolist() == [0x38, 0x40]


def test_packed_int4():
    sess = tessera.InferenceSession(tm.identity(tm.INT4))
    (y,) = sess.run(None, {"x": np.array([-8, 7, 0, -1, 3], np.int8)})
    assert y.dtype == np.int8 and y.tolist() == [-8, 7, 0, -1, 3]
    with pytest.raises(tessera.InvalidArgument, match="does not fit in int4"):
        sess.run(None, {"x": np.array([8], np.int8)})
    sess = tessera.InferenceSession(tm.identity(tm.UINT4))
    (y,) = sess.run(None, {"x": np.array([[15, 0], [1, 9]], np.uint8)})
    assert y.dtype == np.uint8 and y.tolist() == [[15, 0], [1, 9]]


# ------------------------------------------------ sequences, optionals, maps


def test_sequence_output_and_input():
    b = tm.model_bytes([helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
                       [tm.tensor("a", TP.FLOAT), tm.tensor("b", TP.FLOAT)],
                       [helper.make_value_info("s", tm.seq_type(TP.FLOAT))])
    sess = tessera.InferenceSession(b)
    assert sess.get_outputs()[0].type == "seq(tensor(float))"
    (s,) = sess.run(None, {"a": np.ones(2, np.float32), "b": np.zeros(3, np.float32)})
    assert isinstance(s, list) and len(s) == 2
    np.testing.assert_array_equal(s[1], np.zeros(3, np.float32))

    b = tm.model_bytes([helper.make_node("SequenceLength", ["s"], ["n"])],
                       [helper.make_value_info("s", tm.seq_type(TP.FLOAT))], [tm.tensor("n", TP.INT64)])
    sess = tessera.InferenceSession(b)
    assert sess.get_inputs()[0].type == "seq(tensor(float))" and sess.get_inputs()[0].shape == []
    assert int(sess.run(None, {"s": [np.ones(2, np.float32)] * 3})[0]) == 3
    assert int(sess.run(None, {"s": []})[0]) == 0
    assert int(sess.run(None, {"s": (np.ones(1, np.float32),)})[0]) == 1
    with pytest.raises(tessera.InvalidArgument, match="expected a list"):
        sess.run(None, {"s": np.ones(2, np.float32)})


def test_optional_input_and_output():
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TP.FLOAT, None))
    b = tm.model_bytes([helper.make_node("OptionalHasElement", ["o"], ["h"])], [helper.make_value_info("o", opt)],
                       [tm.tensor("h", TP.BOOL)])
    sess = tessera.InferenceSession(b)
    assert sess.get_inputs()[0].type == "optional(tensor(float))"
    assert not sess.run(None, {"o": None})[0]
    assert sess.run(None, {"o": np.ones(1, np.float32)})[0]
    b = tm.model_bytes([helper.make_node("Optional", [], ["o"], type=helper.make_tensor_type_proto(TP.FLOAT, None))],
                       [], [helper.make_value_info("o", opt)])
    assert tessera.InferenceSession(b).run(None, {}) == [None]


def test_maps():
    zipmap = helper.make_node("ZipMap", ["x"], ["z"], domain="ai.onnx.ml", classlabels_strings=["a", "b"])
    out_type = helper.make_sequence_type_proto(tm.map_type(TP.STRING, TP.FLOAT))
    b = tm.model_bytes([zipmap], [tm.tensor("x", TP.FLOAT, [None, 2])], [helper.make_value_info("z", out_type)],
                       ml=True)
    sess = tessera.InferenceSession(b)
    assert sess.get_outputs()[0].type == "seq(map(string,tensor(float)))"
    (z,) = sess.run(None, {"x": np.array([[0.25, 0.75], [1, 0]], np.float32)})
    assert z == [{"a": 0.25, "b": 0.75}, {"a": 1.0, "b": 0.0}]

    dv = helper.make_node("DictVectorizer", ["m"], ["v"], domain="ai.onnx.ml", string_vocabulary=["a", "b", "c"])
    b = tm.model_bytes([dv], [helper.make_value_info("m", tm.map_type(TP.STRING, TP.FLOAT))],
                       [tm.tensor("v", TP.FLOAT)], ml=True)
    sess = tessera.InferenceSession(b)
    np.testing.assert_array_equal(sess.run(None, {"m": {"a": 1.0, "c": 3.0}})[0], [[1.0, 0.0, 3.0]])
    with pytest.raises(tessera.InvalidArgument, match="expected a dict"):
        sess.run(None, {"m": [1.0]})


# --------------------------------------------------------------- errors


def test_bad_path():
    with pytest.raises(tessera.IoError, match="no_such_model.onnx") as e:
        tessera.InferenceSession("/nonexistent/no_such_model.onnx")
    assert isinstance(e.value, OSError) and e.value is not None
    assert tessera.NoSuchFile is tessera.IoError


def test_bad_model_bytes():
    with pytest.raises(tessera.InvalidModel, match="could not be parsed"):
        tessera.InferenceSession(b"definitely not onnx")
    with pytest.raises(TypeError, match="Unable to load from type"):
        tessera.InferenceSession(42)


def test_unsupported_op():
    b = tm.model_bytes([helper.make_node("FooBar", ["x"], ["y"], domain="my.domain")], [tm.tensor("x", TP.FLOAT)],
                       [tm.tensor("y", TP.FLOAT)], domains=["my.domain"])
    with pytest.raises(tessera.TesseraError, match="FooBar") as e:
        tessera.InferenceSession(b)
    assert isinstance(e.value, (tessera.NotImplemented, tessera.InvalidModel))


def test_bad_feed_dtype_and_shape(default_session):
    x = load_pb("input_0.pb")
    with pytest.raises(tessera.InvalidArgument, match="expected element type float but got double"):
        default_session.run(None, {"image": x.astype(np.float64)})
    with pytest.raises(tessera.InvalidArgument, match="dimension 1 must be 3"):
        default_session.run(None, {"image": np.zeros((1, 4, 32, 32), np.float32)})
    with pytest.raises(tessera.InvalidArgument, match="expected rank 4"):
        default_session.run(None, {"image": np.zeros((3, 32, 32), np.float32)})
    with pytest.raises(tessera.InvalidArgument, match="has no ONNX element type"):
        default_session.run(None, {"image": np.zeros((1, 3, 32, 32), "datetime64[s]")})
    with pytest.raises(tessera.InvalidArgument, match="expected element type float but got a numpy array of dtype"):
        default_session.run(None, {"image": np.array([["a"]])})


def test_bad_feed_names(default_session):
    x = load_pb("input_0.pb")
    with pytest.raises(tessera.InvalidArgument, match="'img' is not an input of the model"):
        default_session.run(None, {"img": x})
    with pytest.raises(tessera.InvalidArgument, match="'image' .* was not fed"):
        default_session.run(None, {})
    with pytest.raises(ValueError, match="'logits' is not an output of the model"):
        default_session.run(["logits"], {"image": x})
    with pytest.raises(TypeError):
        default_session.run("probabilities", {"image": x})
    with pytest.raises(TypeError):
        default_session.run(None, 5)
    with pytest.raises(tessera.InvalidArgument, match="None is only accepted for optional"):
        default_session.run(None, {"image": None})


def test_kernel_failure_raises():
    b = tm.model_bytes([helper.make_node("Reshape", ["x", "s"], ["y"])],
                       [tm.tensor("x", TP.FLOAT), tm.tensor("s", TP.INT64)], [tm.tensor("y", TP.FLOAT)])
    sess = tessera.InferenceSession(b)
    with pytest.raises(tessera.TesseraError, match="cannot reshape"):
        sess.run(None, {"x": np.ones(6, np.float32), "s": np.array([4, 4])})
    # The session still works afterwards.
    np.testing.assert_array_equal(sess.run(None, {"x": np.ones(6, np.float32), "s": np.array([2, 3])})[0],
                                  np.ones((2, 3)))


def test_exception_hierarchy():
    for cls in (tessera.InvalidArgument, tessera.InvalidModel, tessera.NotImplemented, tessera.OpsetMismatch,
                tessera.IoError, tessera.ResourceExhausted, tessera.RuntimeException, tessera.InternalError):
        assert issubclass(cls, tessera.TesseraError)
    assert issubclass(tessera.TesseraError, RuntimeError)
    assert issubclass(tessera.InvalidArgument, ValueError)
    assert issubclass(tessera.NotImplemented, NotImplementedError)
    from tessera.capi.onnxruntime_pybind11_state import Fail, InvalidArgument, InvalidGraph, NoSuchFile
    assert Fail is tessera.TesseraError and InvalidArgument is tessera.InvalidArgument
    assert InvalidGraph is tessera.InvalidModel and NoSuchFile is tessera.IoError


# -------------------------------------------------------------- options


def test_session_options_defaults_and_types():
    so = tessera.SessionOptions()
    assert so.log_severity_level == -1 and so.log_verbosity_level == 0
    assert so.enable_profiling is False and so.profile_file_prefix == "tessera_profile"
    assert so.graph_optimization_level == tessera.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert so.intra_op_num_threads == 0 and so.inter_op_num_threads == 0
    assert so.optimized_model_filepath == "" and so.logid == ""
    assert so.execution_mode == tessera.ExecutionMode.ORT_SEQUENTIAL
    for level in tessera.GraphOptimizationLevel:
        so.graph_optimization_level = level
        assert so.graph_optimization_level is level
    assert [lvl.name for lvl in tessera.GraphOptimizationLevel] == [
        "ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_LAYOUT", "ORT_ENABLE_ALL"]
    so.graph_optimization_level = 1
    assert so.graph_optimization_level == tessera.GraphOptimizationLevel.ORT_ENABLE_BASIC
    with pytest.raises(TypeError):
        so.graph_optimization_level = 42
    with pytest.raises(TypeError):
        so.intra_op_num_threads = "4"
    with pytest.raises(TypeError):
        so.enable_profiling = 1
    with pytest.raises(TypeError):
        so.profile_file_prefix = 3
    so.execution_mode = tessera.ExecutionMode.ORT_PARALLEL
    so.inter_op_num_threads = 3
    so.log_verbosity_level = 1
    so.enable_mem_pattern = False
    so.enable_cpu_mem_arena = False
    so.use_deterministic_compute = True
    assert "inter_op_num_threads=3" in repr(so)
    sess = tessera.InferenceSession(tm.add_model(), so)
    assert sess.get_session_options() is so
    x = np.ones((1, 4), np.float32)
    np.testing.assert_array_equal(sess.run(["z"], {"x": x, "y": x})[0], 2 * x)


def test_every_cpp_option_row_is_a_session_options_attribute():
    """SessionOptions' attributes are the rows of the C++ option table
    (src/tessera/api/session_option_table.cc), with their defaults, and a
    session takes each one by name."""
    rows = tessera._C.session_option_rows()
    assert rows
    so = tessera.SessionOptions()
    assert list(so._option_values()) == [row[0] for row in rows]
    for name, kind, enum_type, default, doc, _applied in rows:
        assert type(tessera.SessionOptions.__dict__[name]).__name__ == "_Option", name
        assert tessera.SessionOptions.__dict__[name].__doc__ == doc
        value = getattr(so, name)
        assert value == default and f"{name}=" in repr(so), name
        if kind == "enum":
            assert isinstance(value, getattr(tessera, enum_type)), name
        else:
            assert type(value).__name__ == kind, name
    tessera.InferenceSession(tm.add_model(), so)
    # The session side refuses a name no row has and a value of another type.
    for options, message in (({"bogus": 1}, "'bogus' is not a session option"),
                             ({"intra_op_num_threads": "2"}, "intra_op_num_threads must be of type int, got str")):
        config = tessera._C.SessionConfig()
        config.options = options
        with pytest.raises(tessera.InvalidArgument, match=message):
            tessera._C.Session(tm.add_model(), config, ["cpu"])


def test_session_config_entries():
    so = tessera.SessionOptions()
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    assert so.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    with pytest.raises(tessera.InvalidArgument, match="does not have configuration with key"):
        so.get_session_config_entry("missing.key")
    with pytest.raises(TypeError):
        so.add_session_config_entry("k", 1)
    tessera.InferenceSession(tm.add_model(), so)


def conv3x3_model():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((16, 16, 3, 3)).astype(np.float32), "w")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
    return tm.model_bytes([conv], [tm.tensor("x", TP.FLOAT, [1, 16, 12, 12])],
                          [tm.tensor("y", TP.FLOAT, [1, 16, 12, 12])], opset=17, initializers=[w])


def test_winograd_config_entry(tmp_path):
    # "0" keeps the 3x3 convolution on oneDNN's direct kernels; "1" (the
    # default) lets it use Winograd where oneDNN has a kernel (AVX-512).
    if "DnnlExecutionProvider" not in tessera.get_available_providers():
        pytest.skip("oneDNN EP not built")
    x = np.random.default_rng(1).standard_normal((1, 16, 12, 12)).astype(np.float32)
    results = {}
    for value in ("0", "1"):
        so = tessera.SessionOptions()
        so.add_session_config_entry("tessera.winograd_convolutions", value)
        so.enable_profiling = True
        so.profile_file_prefix = str(tmp_path / ("prof" + value))
        sess = tessera.InferenceSession(conv3x3_model(), so, providers=["DnnlExecutionProvider"])
        y = sess.run(None, {"x": x})[0]
        with open(sess.end_profiling()) as f:
            events = json.load(f)["traceEvents"]
        kernels = [e["args"]["implementation"] for e in events if e.get("cat") == "step"]
        assert kernels, "the profile names oneDNN's kernel for each step"
        results[value] = (y, kernels)
    assert not any("wino" in k for k in results["0"][1]), results["0"][1]
    if any("avx512" in k for k in results["0"][1]):
        assert any("wino" in k for k in results["1"][1]), results["1"][1]
    np.testing.assert_allclose(results["1"][0], results["0"][0], rtol=1e-4, atol=1e-4)


def test_winograd_config_entry_rejects_other_values():
    so = tessera.SessionOptions()
    so.add_session_config_entry("tessera.winograd_convolutions", "yes")
    with pytest.raises(tessera.InvalidArgument, match="tessera.winograd_convolutions must be '0' or '1'"):
        tessera.InferenceSession(DEFAULT_MODEL, so)


def run_in_fresh_process(code):
    """The instruction-set cap is process-wide and final: each case gets its
    own interpreter. Returns its stdout."""
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.pop("TESSERA_MAX_ISA", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_max_isa_config_entry_caps_every_library(tmp_path):
    out = run_in_fresh_process(f"""
import json, tessera
so = tessera.SessionOptions()
so.add_session_config_entry("tessera.max_isa", "sse4")
so.enable_profiling = True
so.profile_file_prefix = {str(tmp_path / "isa")!r}
sess = tessera.InferenceSession({str(DEFAULT_MODEL)!r}, so)
with open(sess.end_profiling()) as f:
    traced = [e["args"] for e in json.load(f)["traceEvents"] if e["name"] == "instruction_sets"]
print(json.dumps({{"in_use": sess.get_instruction_sets(), "traced": traced}}))
""")
    got = json.loads(out)
    assert got["in_use"]["highway"] == "SSE4", got
    if "DnnlExecutionProvider" in tessera.get_available_providers():
        assert got["in_use"]["onednn"] == "sse41", got
    assert got["traced"] == [got["in_use"]], "the profile records the same instruction sets"


def test_max_isa_config_entry_rejects_unknown_levels():
    so = tessera.SessionOptions()
    so.add_session_config_entry("tessera.max_isa", "fastest")
    with pytest.raises(tessera.InvalidArgument, match="max_isa: unknown instruction-set level 'fastest'"):
        tessera.InferenceSession(DEFAULT_MODEL, so)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_intra_op_threads(threads):
    so = tessera.SessionOptions()
    so.intra_op_num_threads = threads
    sess = tessera.InferenceSession(DEFAULT_MODEL, so)
    x, expected = load_pb("input_0.pb"), load_pb("output_0.pb")
    np.testing.assert_allclose(sess.run(None, {"image": x})[0], expected, rtol=1e-4, atol=1e-6)


def test_bad_option_values():
    so = tessera.SessionOptions()
    so.intra_op_num_threads = -1
    with pytest.raises(tessera.InvalidArgument, match="intra_op_num_threads must be >= 0"):
        tessera.InferenceSession(tm.add_model(), so)
    so = tessera.SessionOptions()
    so.log_severity_level = 7
    with pytest.raises(tessera.InvalidArgument, match="log_severity_level must be 0..4"):
        tessera.InferenceSession(tm.add_model(), so)
    with pytest.raises(TypeError):
        tessera.InferenceSession(tm.add_model(), sess_options={"intra_op_num_threads": 1})
    with pytest.raises(TypeError, match="unexpected keyword"):
        tessera.InferenceSession(tm.add_model(), bogus=1)
    tessera.InferenceSession(tm.add_model(), disabled_optimizers=["ConstantFolding"])


def test_logging_levels(capfd):
    so = tessera.SessionOptions()
    so.log_severity_level = 0
    so.logid = "pytest-session"
    tessera.InferenceSession(tm.add_model(), so)
    err = capfd.readouterr().err
    assert "pytest-session" in err  # verbose logs go to stderr, tagged with the logid
    so.log_severity_level = 4
    tessera.InferenceSession(tm.add_model(), so)
    assert capfd.readouterr().err == ""
    tessera.set_default_logger_severity(3)
    tessera.set_default_logger_verbosity(0)
    try:
        tessera.InferenceSession(tm.add_model())
    finally:
        tessera.set_default_logger_severity(2)
    with pytest.raises(ValueError):
        tessera.set_default_logger_severity(9)


def test_optimized_model_filepath(tmp_path):
    so = tessera.SessionOptions()
    out = tmp_path / "saved.onnx"
    so.optimized_model_filepath = str(out)
    sess = tessera.InferenceSession(DEFAULT_MODEL, so)
    assert out.exists() and out.stat().st_size > 0
    reloaded = tessera.InferenceSession(str(out))
    x = load_pb("input_0.pb")
    np.testing.assert_array_equal(reloaded.run(None, {"image": x})[0], sess.run(None, {"image": x})[0])
    onnx.checker.check_model(onnx.load(str(out)))
    so.optimized_model_filepath = str(tmp_path / "missing_dir" / "x.onnx")
    with pytest.raises(tessera.IoError, match="cannot write"):
        tessera.InferenceSession(DEFAULT_MODEL, so)


def test_profiling(tmp_path):
    so = tessera.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    before = time.time_ns()
    sess = tessera.InferenceSession(tm.add_model(), so)
    after = time.time_ns()
    # The trace's time 0, on time.time_ns()'s clock (the session's start).
    start = sess.get_profiling_start_time_ns()
    assert before <= start <= after
    x = np.ones((1, 4), np.float32)
    sess.run(None, {"x": x, "y": x})
    path = sess.end_profiling()
    assert path.startswith(str(tmp_path / "prof")) and path.endswith(".json")
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = {e.get("name") for e in events}
    assert "model_run" in names and ("add" in names or any("add" in str(n) for n in names))
    assert sess.end_profiling() == ""  # already ended
    sess.run(None, {"x": x, "y": x})  # still runs after profiling stopped
    assert sess.get_profiling_start_time_ns() == start
    assert tessera.InferenceSession(tm.add_model()).get_profiling_start_time_ns() == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tessera.InferenceSession(tm.add_model()).end_profiling() == ""


def test_run_options():
    ro = tessera.RunOptions()
    assert ro.terminate is False and ro.log_tag == "" and ro.log_severity_level == -1
    ro.log_tag = "tag1"
    assert ro.logid == "tag1"
    ro.log_severity_level = 1
    ro.log_verbosity_level = 0
    ro.add_run_config_entry("k", "v")
    assert ro.get_run_config_entry("k") == "v"
    with pytest.raises(tessera.InvalidArgument):
        ro.get_run_config_entry("nope")
    sess = tessera.InferenceSession(tm.add_model())
    x = np.ones((1, 4), np.float32)
    np.testing.assert_array_equal(sess.run(["z"], {"x": x, "y": x}, ro)[0], 2 * x)
    ro.terminate = True
    with pytest.raises(tessera.RuntimeException, match="terminate flag"):
        sess.run(None, {"x": x, "y": x}, ro)
    with pytest.raises(TypeError):
        ro.terminate = "yes"
    with pytest.raises(TypeError):
        sess.run(None, {"x": x, "y": x}, run_options={"terminate": True})


def test_session_repr():
    assert "model.onnx" in repr(tessera.InferenceSession(DEFAULT_MODEL))
    assert "bytes" in repr(tessera.InferenceSession(tm.add_model()))


def test_run_releases_the_gil():
    # A chain of MatMuls keeps the runtime busy; a Python loop on the main
    # thread must keep running meanwhile. Were the GIL held, the loop would
    # stall for a whole run: its longest pause would be about a run's length.
    n, depth = 512, 48
    nodes = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i}", "w"], [f"h{i + 1}"]) for i in range(depth)]
    w = numpy_helper.from_array((np.eye(n) * 1.0001).astype(np.float32), "w")
    b = tm.model_bytes(nodes, [tm.tensor("x", TP.FLOAT, [n, n])], [tm.tensor(f"h{depth}", TP.FLOAT, [n, n])],
                       initializers=[w])
    so = tessera.SessionOptions()
    so.intra_op_num_threads = 1
    sess = tessera.InferenceSession(b, so)
    x = np.ones((n, n), np.float32)
    start = time.perf_counter()
    sess.run(None, {"x": x})
    run_seconds = time.perf_counter() - start
    done = threading.Event()
    result = []

    def work():
        for _ in range(2):
            result.append(sess.run(None, {"x": x})[0])
        done.set()

    t = threading.Thread(target=work)
    longest_pause = 0.0
    t.start()
    last = time.perf_counter()
    while not done.is_set():
        now = time.perf_counter()
        longest_pause = max(longest_pause, now - last)
        last = now
    t.join()
    np.testing.assert_allclose(result[-1], np.full((n, n), 1.0001 ** depth, np.float32), rtol=1e-4)
    assert longest_pause < 0.6 * run_seconds, (longest_pause, run_seconds)
