"""OrtValue, SparseTensor, OrtDevice and the capi import path, following
onnxruntime's API summary examples (docs/python/inference/api_summary.rst)."""
import numpy as np
import pytest
from onnx import TensorProto as TP

import tessera
import tiny_models as tm


def ptr(a):
    return a.__array_interface__["data"][0]


def test_ortvalue_from_numpy_shares_memory():
    # The api summary's example, on the CPU.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    ortvalue = tessera.OrtValue.ortvalue_from_numpy(x)
    assert ortvalue.device_name() == "cpu"
    assert ortvalue.shape() == [3, 4]
    assert ortvalue.data_type() == "tensor(float)"
    assert ortvalue.element_type() == TP.FLOAT
    assert ortvalue.is_tensor() and not ortvalue.is_sparse_tensor() and ortvalue.has_value()
    assert np.array_equal(ortvalue.numpy(), x)
    # No copy: the OrtValue is the array's memory, and numpy() views it.
    assert ortvalue.data_ptr() == ptr(x)
    view = ortvalue.numpy()
    assert ptr(view) == ptr(x)
    x[0, 0] = 42
    assert ortvalue.numpy()[0, 0] == 42
    assert np.asarray(ortvalue)[0, 0] == 42  # __array__
    assert np.asarray(ortvalue, dtype=np.float64).dtype == np.float64


def test_ortvalue_of_a_read_only_array_stays_read_only():
    x = np.arange(4, dtype=np.float32)
    x.setflags(write=False)
    v = tessera.OrtValue.ortvalue_from_numpy(x)
    assert v.data_ptr() == ptr(x)
    view = v.numpy()
    assert ptr(view) == ptr(x) and not view.flags.writeable
    with pytest.raises(tessera.InvalidArgument, match="read-only"):
        v.update_inplace(np.zeros(4, np.float32))


def test_ortvalue_from_numpy_copies_what_it_must():
    x = np.arange(12, dtype=np.float32).reshape(3, 4).T  # not C-contiguous
    ortvalue = tessera.OrtValue.ortvalue_from_numpy(x)
    assert ortvalue.data_ptr() != ptr(x)
    np.testing.assert_array_equal(ortvalue.numpy(), x)
    strings = tessera.OrtValue.ortvalue_from_numpy(np.array(["a", "bc"], dtype=object))
    assert strings.data_type() == "tensor(string)"
    assert strings.numpy().tolist() == ["a", "bc"]
    with pytest.raises(TypeError):
        tessera.OrtValue.ortvalue_from_numpy([1, 2])
    with pytest.raises(tessera.NotImplemented, match="host memory"):
        tessera.OrtValue.ortvalue_from_numpy(np.ones(2, np.float32), "cuda", 0)
    with pytest.raises(Exception, match="Unsupported device type: tpu"):
        tessera.OrtValue.ortvalue_from_numpy(np.ones(2, np.float32), "tpu", 0)


def test_ortvalue_from_shape_and_type():
    v = tessera.OrtValue.ortvalue_from_shape_and_type([2, 3], np.int64)
    assert v.shape() == [2, 3] and v.data_type() == "tensor(int64)"
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 3), np.int64))
    # ONNX element type codes, for types numpy lacks.
    b = tessera.OrtValue.ortvalue_from_shape_and_type([4], TP.BFLOAT16)
    assert b.data_type() == "tensor(bfloat16)" and b.element_type() == TP.BFLOAT16
    # update_inplace writes into the same memory.
    before = v.data_ptr()
    v.update_inplace(np.arange(6, dtype=np.int64).reshape(2, 3))
    assert v.data_ptr() == before
    np.testing.assert_array_equal(v.numpy(), np.arange(6).reshape(2, 3))
    with pytest.raises(tessera.InvalidArgument, match="update_inplace"):
        v.update_inplace(np.zeros((3, 2), np.int64))
    with pytest.raises(tessera.InvalidArgument, match="unknown ONNX element type"):
        tessera.OrtValue.ortvalue_from_shape_and_type([1], 99)


def test_ortvalue_from_numpy_with_onnx_type():
    bits = np.array([0x3F80, 0x4000], dtype=np.uint16)  # bfloat16 1.0, 2.0
    v = tessera.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, TP.BFLOAT16)
    assert v.data_type() == "tensor(bfloat16)" and v.data_ptr() == ptr(bits)
    sess = tessera.InferenceSession(tm.model_bytes(
        [tm.helper.make_node("Cast", ["x"], ["y"], to=TP.FLOAT)], [tm.tensor("x", TP.BFLOAT16, [2])],
        [tm.tensor("y", TP.FLOAT, [2])]))
    (y,) = sess.run(None, {"x": v})
    np.testing.assert_array_equal(y, [1.0, 2.0])
    with pytest.raises(tessera.InvalidArgument, match="bytes"):
        tessera.OrtValue.ortvalue_from_numpy_with_onnx_type(np.zeros(2, np.float32), TP.BFLOAT16)


def test_ortvalue_feeds_run_and_outputs_are_not_copied():
    sess = tessera.InferenceSession(tm.add_model())
    x = np.ones((2, 4), np.float32)
    y = np.full((2, 4), 2, np.float32)
    feeds = {"x": tessera.OrtValue.ortvalue_from_numpy(x), "y": tessera.OrtValue.ortvalue_from_numpy(y)}
    # OrtValues in run()'s feed, as the api summary shows.
    z, _ = sess.run(["z", "w"], feeds)
    np.testing.assert_array_equal(z, x + y)
    outs = sess.run_with_ort_values(["z"], feeds)
    assert len(outs) == 1 and isinstance(outs[0], tessera.OrtValue)
    np.testing.assert_array_equal(outs[0].numpy(), x + y)
    # The result's memory goes to numpy as it is, and stays shared.
    a, b = outs[0].numpy(), outs[0].numpy()
    assert ptr(a) == ptr(b) == outs[0].data_ptr()
    # None / [] = every output.
    assert len(sess.run_with_ort_values(None, feeds)) == 2


def test_ortvalue_of_an_initializer_output_is_copied():
    # An output that is the model's own constant must not be writable into it.
    two = tm.helper.make_tensor("c", TP.FLOAT, [2], [1.0, 2.0])
    sess = tessera.InferenceSession(tm.model_bytes(
        [tm.helper.make_node("Identity", ["c"], ["y"]), tm.helper.make_node("Identity", ["x"], ["z"])],
        [tm.tensor("x", TP.FLOAT, [2])], [tm.tensor("y", TP.FLOAT, [2]), tm.tensor("z", TP.FLOAT, [2])],
        initializers=[two]))
    (y,) = sess.run_with_ort_values(["y"], {"x": tessera.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32))})
    arr = y.numpy()
    arr[:] = 7
    (again,) = sess.run(["y"], {"x": np.zeros(2, np.float32)})
    np.testing.assert_array_equal(again, [1.0, 2.0])


def test_sequence_ortvalue():
    sess = tessera.InferenceSession(tm.model_bytes(
        [tm.helper.make_node("SequenceConstruct", ["a", "b"], ["s"])],
        [tm.tensor("a", TP.FLOAT, [2]), tm.tensor("b", TP.FLOAT, [2])],
        [tm.helper.make_value_info("s", tm.seq_type(TP.FLOAT))]))
    a = np.ones(2, np.float32)
    (s,) = sess.run_with_ort_values(None, {"a": tessera.OrtValue.ortvalue_from_numpy(a),
                                           "b": tessera.OrtValue.ortvalue_from_numpy(2 * a)})
    assert s.is_tensor_sequence() and not s.is_tensor()
    assert s.data_type() == "seq(tensor(float))"
    with pytest.raises(tessera.InvalidArgument, match="not a tensor"):
        s.numpy()


def test_dlpack_round_trip():
    x = np.arange(6, dtype=np.float32)
    v = tessera.OrtValue.ortvalue_from_numpy(x)
    assert v.__dlpack_device__() == (1, 0)
    back = np.from_dlpack(v)
    assert ptr(back) == ptr(x)
    w = tessera.OrtValue.from_dlpack(v.to_dlpack())
    assert w.data_ptr() == ptr(x)
    np.testing.assert_array_equal(w.numpy(), x)
    u = tessera.OrtValue.from_dlpack(x)
    assert u.data_ptr() == ptr(x)


def test_ortvaluevector_and_pybind_state_import_path():
    from tessera.capi._pybind_state import OrtDevice as C_OrtDevice
    from tessera.capi._pybind_state import OrtValue as C_OrtValue
    from tessera.capi._pybind_state import OrtValueVector, RunOptions
    from tessera.capi.onnxruntime_pybind11_state import InvalidArgument, OrtValueVector as V2
    assert RunOptions is tessera.RunOptions and V2 is OrtValueVector
    assert InvalidArgument is tessera.InvalidArgument
    # The onnxcustom tutorial's device example.
    device = C_OrtDevice(C_OrtDevice.cpu(), C_OrtDevice.default_memory(), 0)
    assert device.device_type() == C_OrtDevice.cpu() and device.device_id() == 0
    x = np.arange(3, dtype=np.float32)
    c_value = C_OrtValue.ortvalue_from_numpy(x, device)
    assert c_value.data_ptr() == ptr(x)
    vec = OrtValueVector()
    vec.push_back(c_value)
    vec.push_back(tessera.OrtValue.ortvalue_from_numpy(np.zeros(2, np.bool_)))
    assert len(vec) == 2 and vec.element_type_at(0) == TP.FLOAT and vec.bool_tensor_indices() == [1]
    sess = tessera.InferenceSession(tm.identity(TP.FLOAT, [3]))
    fetches = OrtValueVector()
    sess.run_with_ortvaluevector(tessera.RunOptions(), ["x"], [c_value], ["y"], fetches, [device])
    np.testing.assert_array_equal(tessera.OrtValue(fetches[0]).numpy(), x)


def test_ort_device():
    d = tessera.OrtDevice.make("cpu", 0)
    assert d.device_type() == 0 and d.device_id() == 0
    with pytest.raises(ValueError):
        tessera.OrtDevice("cpu")


def test_sparse_tensor_coo_and_csr():
    device = tessera.OrtDevice.make("cpu", 0)
    values = np.array([1.0, 2.0, 3.0], np.float32)
    coo = np.array([1, 4, 7], np.int64)
    st = tessera.SparseTensor.sparse_coo_from_numpy([3, 3], values, coo, device)
    assert st.format() == tessera.OrtSparseFormat.ORT_SPARSE_COO
    assert st.dense_shape().tolist() == [3, 3] and st.data_type() == "sparse_tensor(float)"
    assert st.device_name() == "cpu"
    # Numeric buffers are the caller's arrays, not copies.
    assert ptr(st.values()) == ptr(values) and ptr(st.as_coo_view().indices()) == ptr(coo)
    dense = st._get_c_tensor().to_dense()
    assert dense.reshape(-1)[[1, 4, 7]].tolist() == [1.0, 2.0, 3.0] and dense.sum() == 6
    with pytest.raises(TypeError, match="CSR"):
        st.as_csrc_view()
    inner = np.array([0, 2, 1], np.int64)
    outer = np.array([0, 2, 2, 3], np.int64)
    csr = tessera.SparseTensor.sparse_csr_from_numpy(np.array([3, 3]), values, inner, outer, device)
    assert csr.format() == tessera.OrtSparseFormat.ORT_SPARSE_CSRC
    assert ptr(csr.as_csrc_view().inner()) == ptr(inner) and ptr(csr.as_csrc_view().outer()) == ptr(outer)
    np.testing.assert_array_equal(csr._get_c_tensor().to_dense(), [[1, 0, 2], [0, 0, 0], [0, 3, 0]])
    with pytest.raises(ValueError, match="outer_indices"):
        tessera.SparseTensor.sparse_csr_from_numpy([3, 3], values, inner, np.array([0, 3], np.int64), device)
    with pytest.raises(ValueError, match="outside"):
        tessera.SparseTensor.sparse_coo_from_numpy([3, 3], values, np.array([1, 4, 9], np.int64), device)
    v = tessera.OrtValue.ort_value_from_sparse_tensor(st)
    assert v.is_sparse_tensor() and not v.is_tensor()
    assert v.as_sparse_tensor().values() is st.values()
    sess = tessera.InferenceSession(tm.identity(TP.FLOAT, [3, 3]))
    with pytest.raises(tessera.NotImplemented, match="sparse"):
        sess.run(None, {"x": v})
