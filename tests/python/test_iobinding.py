"""IOBinding, run_async and OrtValue runs, following onnxruntime's API
summary (the IOBinding scenarios, on the CPU)."""
import threading

import numpy as np
import pytest
from onnx import TensorProto as TP

import tessera
import tiny_models as tm


def ptr(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def sess():
    return tessera.InferenceSession(tm.add_model(), providers=["CPUExecutionProvider"])


def feeds():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    return x, np.ones((2, 4), np.float32)


def test_bind_cpu_input_and_let_the_run_allocate(sess):
    x, y = feeds()
    io_binding = sess.io_binding()
    io_binding.bind_cpu_input("x", x)
    io_binding.bind_cpu_input("y", y)
    io_binding.bind_output("z")
    sess.run_with_iobinding(io_binding)
    (z,) = io_binding.copy_outputs_to_cpu()
    np.testing.assert_array_equal(z, x + y)
    (z_value,) = io_binding.get_outputs()
    assert isinstance(z_value, tessera.OrtValue) and z_value.shape() == [2, 4]
    np.testing.assert_array_equal(z_value.numpy(), x + y)
    # copy_outputs_to_cpu copies: writing to it leaves the OrtValue alone.
    z[:] = 0
    np.testing.assert_array_equal(z_value.numpy(), x + y)


def test_bound_input_memory_is_read_in_place(sess):
    x, y = feeds()
    io_binding = sess.io_binding()
    io_binding.bind_cpu_input("x", x)
    io_binding.bind_cpu_input("y", y)
    io_binding.bind_output("z")
    sess.run_with_iobinding(io_binding)
    # No copy at bind time: a change to the array shows in the next run.
    x += 10
    sess.run_with_iobinding(io_binding)
    np.testing.assert_array_equal(io_binding.copy_outputs_to_cpu()[0], x + y)


def test_bind_output_to_preallocated_numpy_memory(sess):
    x, y = feeds()
    z = np.empty((2, 4), np.float32)
    io_binding = sess.io_binding()
    # Scenario: input and output memory given as raw pointers.
    io_binding.bind_input("x", "cpu", 0, np.float32, list(x.shape), x.ctypes.data)
    io_binding.bind_input("y", "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    io_binding.bind_output("z", "cpu", 0, np.float32, list(z.shape), z.ctypes.data)
    sess.run_with_iobinding(io_binding)
    np.testing.assert_array_equal(z, x + y)
    (out,) = io_binding.get_outputs()
    assert out.data_ptr() == ptr(z)
    with pytest.raises(ValueError, match="element_type"):
        io_binding.bind_output("z", "cpu", 0, None, None, z.ctypes.data)


def test_bind_ortvalues(sess):
    x, y = feeds()
    x_value = tessera.OrtValue.ortvalue_from_numpy(x)
    z_value = tessera.OrtValue.ortvalue_from_shape_and_type([2, 4], np.float32)
    w_value = tessera.OrtValue.ortvalue_from_shape_and_type([2, 4], np.float32)
    io_binding = sess.io_binding()
    io_binding.bind_ortvalue_input("x", x_value)
    io_binding.bind_cpu_input("y", y)
    io_binding.bind_ortvalue_output("z", z_value)
    io_binding.bind_ortvalue_output("w", w_value)
    sess.run_with_iobinding(io_binding)
    z_out, w_out = io_binding.get_outputs()
    assert z_out.data_ptr() == z_value.data_ptr() and w_out.data_ptr() == w_value.data_ptr()
    np.testing.assert_array_equal(z_value.numpy(), x + y)
    np.testing.assert_array_equal(w_value.numpy(), 2 * x)
    assert len(io_binding.get_outputs_as_ortvaluevector()) == 2


def test_iobinding_errors(sess):
    x, y = feeds()
    io_binding = sess.io_binding()
    with pytest.raises(tessera.InvalidArgument, match="Failed to find input name"):
        io_binding.bind_cpu_input("nope", x)
    with pytest.raises(tessera.InvalidArgument, match="Failed to find output name"):
        io_binding.bind_output("nope")
    io_binding.bind_cpu_input("x", x)
    io_binding.bind_cpu_input("y", y)
    with pytest.raises(tessera.InvalidArgument, match="output should be bound"):
        sess.run_with_iobinding(io_binding)
    wrong = tessera.OrtValue.ortvalue_from_shape_and_type([4, 2], np.float32)
    io_binding.bind_ortvalue_output("z", wrong)
    with pytest.raises(tessera.InvalidArgument, match="bound to it holds float \\[4,2\\]"):
        sess.run_with_iobinding(io_binding)
    io_binding.clear_binding_outputs()
    io_binding.bind_output("z")
    io_binding.clear_binding_inputs()
    with pytest.raises(tessera.InvalidArgument, match="not fed"):
        sess.run_with_iobinding(io_binding)
    with pytest.raises(tessera.NotImplemented, match="host memory"):
        io_binding.bind_output("z", "cuda", 0)
    other = tessera.InferenceSession(tm.add_model())
    with pytest.raises(tessera.InvalidArgument, match="another session"):
        other.run_with_iobinding(io_binding)


def test_run_async_calls_back_from_another_thread(sess):
    x, y = feeds()
    done = threading.Event()
    got = {}

    def callback(results, user_data, err):
        got.update(results=results, user_data=user_data, err=err, thread=threading.current_thread())
        done.set()

    sess.run_async(["z"], {"x": x, "y": y}, callback, "my data")
    assert done.wait(30)
    assert got["err"] == "" and got["user_data"] == "my data"
    assert got["thread"] is not threading.main_thread()
    np.testing.assert_array_equal(got["results"][0], x + y)
    done.clear()
    sess.run_async(None, {"x": x, "y": np.ones((3, 4), np.float32)}, callback, None)
    assert done.wait(30)
    assert got["results"] is None and "cannot be broadcast" in got["err"]
    with pytest.raises(ValueError, match="missing"):
        sess.run_async(None, {"x": x}, callback, None)


def test_run_options_terminate_stops_ort_value_runs(sess):
    x, y = feeds()
    ro = tessera.RunOptions()
    ro.terminate = True
    with pytest.raises(tessera.RuntimeException, match="terminate"):
        sess.run_with_ort_values(None, {"x": tessera.OrtValue.ortvalue_from_numpy(x),
                                        "y": tessera.OrtValue.ortvalue_from_numpy(y)}, ro)


def test_memory_infos(sess):
    infos = sess.get_input_memory_infos()
    assert len(infos) == 2 and len(sess.get_output_memory_infos()) == 2
    assert infos[0].name == "Cpu" and infos[0].device.device_type() == tessera.OrtDevice.make("cpu", 0).device_type()


def test_bound_outputs_on_the_default_model_match_run():
    # Every default provider (oneDNN's partitions included) writes a bound,
    # 64-byte aligned output correctly, and the binding returns that memory.
    from conftest import DEFAULT_MODEL
    sess = tessera.InferenceSession(DEFAULT_MODEL)
    x = np.random.default_rng(1).standard_normal((3, 3, 32, 32)).astype(np.float32)
    (want,) = sess.run(["probabilities"], {"image": x})
    out = tessera.OrtValue.ortvalue_from_shape_and_type([3, 10], np.float32)
    assert out.data_ptr() % 64 == 0
    io_binding = sess.io_binding()
    io_binding.bind_cpu_input("image", x)
    io_binding.bind_ortvalue_output("probabilities", out)
    for _ in range(2):
        sess.run_with_iobinding(io_binding)
        (got,) = io_binding.get_outputs()
        assert got.data_ptr() == out.data_ptr()
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
