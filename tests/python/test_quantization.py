"""tessera.quantization: the ORT-shaped API round trip (quantize, run with
tessera.InferenceSession, compare with the float model)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera.quantization import (CalibrationDataReader, CalibrationMethod, DynamicQuantConfig, QuantFormat,
                                  QuantType, StaticQuantConfig, quantize, quantize_dynamic, quantize_static)
from quant_models import CNN_INPUT, MLP_INPUT, cnn_bytes, cosine, mlp_bytes


class RandomReader(CalibrationDataReader):
    """The shape of ORT's documented example: a few feeds, then None."""

    def __init__(self, name, shape, count=4, seed=1):
        rng = np.random.default_rng(seed)
        self.batches = iter([{name: rng.normal(0, 1, shape).astype(np.float32)} for _ in range(count)])

    def get_next(self):
        return next(self.batches, None)


def run(model, x):
    return tessera.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


def op_types(path):
    import onnx
    return [n.op_type for n in onnx.load(path).graph.node]


@pytest.mark.parametrize("method", [CalibrationMethod.MinMax, CalibrationMethod.Percentile, CalibrationMethod.Entropy])
def test_quantize_static_qdq_cnn(tmp_path, method):
    src = tmp_path / "cnn.onnx"
    src.write_bytes(cnn_bytes())
    out = tmp_path / "cnn_qdq.onnx"
    result = quantize_static(str(src), str(out), RandomReader("x", CNN_INPUT), quant_format=QuantFormat.QDQ,
                             per_channel=True, activation_type=QuantType.QUInt8, calibrate_method=method)
    assert result["calibration_batches"] == 4
    assert result["quantized"]["Conv"] == 3 and result["quantized"]["Gemm"] == 1
    types = op_types(out)
    assert "QuantizeLinear" in types and "DequantizeLinear" in types
    x = np.random.default_rng(7).normal(0, 1, CNN_INPUT).astype(np.float32)
    assert cosine(run(str(src), x), run(str(out), x)) > 0.99
    assert os.path.getsize(src) / os.path.getsize(out) > 3.0


def test_quantize_static_defaults_follow_ort(tmp_path):
    # ORT's defaults: QDQ, QInt8 activations and weights, MinMax, per tensor.
    src = tmp_path / "cnn.onnx"
    src.write_bytes(cnn_bytes())
    out = tmp_path / "cnn_qdq.onnx"
    quantize_static(str(src), str(out), RandomReader("x", CNN_INPUT))
    import onnx
    from onnx import TensorProto
    m = onnx.load(str(out))
    inits = {t.name: t for t in m.graph.initializer}
    assert inits["x_zero_point"].data_type == TensorProto.INT8
    assert inits["w1_quantized"].data_type == TensorProto.INT8
    assert all(not any(a.name == "axis" for a in n.attribute) for n in m.graph.node if n.op_type == "DequantizeLinear")
    x = np.random.default_rng(7).normal(0, 1, CNN_INPUT).astype(np.float32)
    assert cosine(run(str(src), x), run(str(out), x)) > 0.99


def test_quantize_dynamic_matmul_from_bytes(tmp_path):
    out = tmp_path / "mlp_dyn.onnx"
    src = mlp_bytes()
    result = quantize_dynamic(src, str(out), per_channel=True, weight_type=QuantType.QInt8)
    assert result["quantized"] == {"MatMul": 2}
    types = op_types(out)
    assert types.count("MatMulInteger") == 2 and types.count("DynamicQuantizeLinear") == 2
    assert "MatMul" not in types
    x = np.random.default_rng(3).normal(0, 1, MLP_INPUT).astype(np.float32)
    assert cosine(run(src, x), run(str(out), x)) > 0.999
    assert len(src) / os.path.getsize(out) > 3.5


def test_quantize_with_configs(tmp_path):
    src = tmp_path / "mlp.onnx"
    src.write_bytes(mlp_bytes())
    quantize(str(src), str(tmp_path / "d.onnx"), DynamicQuantConfig(nodes_to_exclude=["mm2"]))
    assert op_types(tmp_path / "d.onnx").count("MatMulInteger") == 1
    quantize(str(src), str(tmp_path / "s.onnx"),
             StaticQuantConfig(RandomReader("x", MLP_INPUT), op_types_to_quantize=["MatMul"]))
    x = np.random.default_rng(3).normal(0, 1, MLP_INPUT).astype(np.float32)
    assert cosine(run(str(src), x), run(str(tmp_path / "s.onnx"), x)) > 0.99


def test_errors_are_clear(tmp_path):
    src = tmp_path / "cnn.onnx"
    src.write_bytes(cnn_bytes())
    with pytest.raises(NotImplementedError, match="QInt16"):
        quantize_dynamic(str(src), str(tmp_path / "o.onnx"), weight_type=QuantType.QInt16)
    with pytest.raises(tessera.InvalidArgument, match="op type 'Softmax' has no static quantization rule"):
        quantize_static(str(src), str(tmp_path / "o.onnx"), RandomReader("x", CNN_INPUT),
                        op_types_to_quantize=["Softmax"])
    with pytest.raises(tessera.InvalidArgument, match="calibration input 'image' is not an input"):
        quantize_static(str(src), str(tmp_path / "o.onnx"), RandomReader("image", CNN_INPUT))
    with pytest.raises(tessera.InvalidArgument, match="needs calibration data"):
        quantize_static(str(src), str(tmp_path / "o.onnx"), RandomReader("x", CNN_INPUT, count=0))
    with pytest.raises(NotImplementedError, match="Distribution"):
        quantize_static(str(src), str(tmp_path / "o.onnx"), RandomReader("x", CNN_INPUT),
                        calibrate_method=CalibrationMethod.Distribution)
    with pytest.warns(UserWarning, match="NoSuchOption"):
        quantize_dynamic(str(src), str(tmp_path / "o.onnx"), extra_options={"NoSuchOption": True})


def test_import_does_not_need_onnx():
    code = ("import sys; sys.modules['onnx'] = None; import tessera.quantization as q; "
            "print(q.QuantType.QInt8, q.QuantFormat.QDQ)")
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "QInt8 QDQ"
