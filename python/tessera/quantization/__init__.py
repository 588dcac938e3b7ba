"""int8 quantization shaped like onnxruntime.quantization.

    from tessera.quantization import quantize_dynamic, quantize_static, CalibrationDataReader, QuantType

The names, arguments and defaults are ORT's; the work is done in C++
(src/tessera/quantization, the same code as `tessera quantize`), which
writes a standard ONNX model that ONNX Runtime runs too. The onnx Python
package is not needed. See docs/quantization.md.
"""
import enum as _enum
import os as _os
import warnings as _warnings

from .. import _tessera as _C

__all__ = [
    "QuantType", "QuantFormat", "CalibrationMethod", "CalibrationDataReader", "StaticQuantConfig",
    "DynamicQuantConfig", "quantize_static", "quantize_dynamic", "quantize",
]


def _member(cls, name):
    """The enum member called `name`, as ORT's from_string gives it."""
    try:
        return cls[name]
    except KeyError:
        raise ValueError(f"unknown {cls.__name__} {name!r}") from None


class QuantType(_enum.Enum):
    """Element type of quantized tensors (ORT's values). Only QInt8 and
    QUInt8 are written; the others raise NotImplementedError."""
    QInt8 = 0
    QUInt8 = 1
    QFLOAT8E4M3FN = 2
    QInt16 = 3
    QUInt16 = 4
    QInt4 = 5
    QUInt4 = 6

    def __str__(self):
        return self.name

    @staticmethod
    def from_string(t):
        return _member(QuantType, t)


class QuantFormat(_enum.Enum):
    """QOperator: quantized operators (dynamic mode's MatMulInteger).
    QDQ: QuantizeLinear/DequantizeLinear around float operators (static)."""
    QOperator = 0
    QDQ = 1

    def __str__(self):
        return self.name

    @staticmethod
    def from_string(f):
        return _member(QuantFormat, f)


class CalibrationMethod(_enum.Enum):
    """How a calibrated range is chosen. Distribution is not built."""
    MinMax = 0
    Entropy = 1
    Percentile = 2
    Distribution = 3


class CalibrationDataReader:
    """Feeds calibration batches: subclass it and return one dict of input
    name -> numpy array per get_next() call, then None."""

    def get_next(self) -> dict:
        raise NotImplementedError("CalibrationDataReader.get_next() must be implemented by a subclass")

    def __iter__(self):
        return self

    def __next__(self):
        batch = self.get_next()
        if batch is None:
            raise StopIteration
        return batch

    def set_range(self, start_index: int, end_index: int):
        raise NotImplementedError


_SUPPORTED_TYPES = (QuantType.QInt8, QuantType.QUInt8)


def _check_type(t, what):
    if not isinstance(t, QuantType):
        raise TypeError(f"{what} must be a QuantType, got {t!r}")
    if t not in _SUPPORTED_TYPES:
        raise NotImplementedError(f"{what}={t}: tessera.quantization writes 8-bit models (QInt8 or QUInt8)")
    return t.value


def _source(model_input):
    if isinstance(model_input, (bytes, bytearray, memoryview)):
        return bytes(model_input)
    if isinstance(model_input, _os.PathLike):
        return _os.fspath(model_input)
    if isinstance(model_input, str):
        return model_input
    if hasattr(model_input, "SerializeToString"):  # an onnx.ModelProto
        return model_input.SerializeToString()
    raise TypeError(f"model_input must be a path, bytes or a ModelProto, got {type(model_input).__name__}")


def _extra_text(extra_options):
    out = {}
    for k, v in (extra_options or {}).items():
        out[str(k)] = str(v)
    return out


def _run(model_input, model_output, options, next_feed):
    result = _C.quantize(_source(model_input), _os.fspath(model_output), options, next_feed)
    for w in result["warnings"]:
        _warnings.warn(w, stacklevel=3)
    return result


def quantize_dynamic(model_input, model_output, op_types_to_quantize=None, per_channel=False, reduce_range=False,
                     weight_type=QuantType.QInt8, nodes_to_quantize=None, nodes_to_exclude=None,
                     use_external_data_format=False, extra_options=None):
    """int8 weights, activations quantized at run time (MatMul, Gemm)."""
    options = {
        "mode": "dynamic", "quant_format": QuantFormat.QOperator.value,
        "op_types_to_quantize": list(op_types_to_quantize or []), "per_channel": bool(per_channel),
        "reduce_range": bool(reduce_range), "weight_type": _check_type(weight_type, "weight_type"),
        "nodes_to_quantize": list(nodes_to_quantize or []), "nodes_to_exclude": list(nodes_to_exclude or []),
        "use_external_data_format": bool(use_external_data_format), "extra_options": _extra_text(extra_options),
    }
    return _run(model_input, model_output, options, None)


def quantize_static(model_input, model_output, calibration_data_reader, quant_format=QuantFormat.QDQ,
                    op_types_to_quantize=None, per_channel=False, reduce_range=False,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8, nodes_to_quantize=None,
                    nodes_to_exclude=None, use_external_data_format=False,
                    calibrate_method=CalibrationMethod.MinMax, calibration_providers=None, extra_options=None):
    """QDQ model with activation ranges calibrated on the reader's batches.
    calibration_providers is accepted for ORT compatibility; calibration
    always runs on Tessera's CPU provider."""
    if calibration_data_reader is None:
        raise ValueError("quantize_static needs a calibration_data_reader")
    if not isinstance(quant_format, QuantFormat):
        raise TypeError(f"quant_format must be a QuantFormat, got {quant_format!r}")
    if not isinstance(calibrate_method, CalibrationMethod):
        raise TypeError(f"calibrate_method must be a CalibrationMethod, got {calibrate_method!r}")
    options = {
        "mode": "static", "quant_format": quant_format.value,
        "op_types_to_quantize": list(op_types_to_quantize or []), "per_channel": bool(per_channel),
        "reduce_range": bool(reduce_range), "activation_type": _check_type(activation_type, "activation_type"),
        "weight_type": _check_type(weight_type, "weight_type"), "nodes_to_quantize": list(nodes_to_quantize or []),
        "nodes_to_exclude": list(nodes_to_exclude or []), "use_external_data_format": bool(use_external_data_format),
        "calibrate_method": calibrate_method.value, "extra_options": _extra_text(extra_options),
    }
    if extra_options and "op_types_to_exclude" in extra_options:
        raise ValueError("op_types_to_exclude is not an extra option; leave those types out of op_types_to_quantize")
    return _run(model_input, model_output, options, calibration_data_reader.get_next)


class StaticQuantConfig:
    """quantize()'s static configuration: quantize_static's arguments."""

    def __init__(self, calibration_data_reader, calibrate_method=CalibrationMethod.MinMax,
                 quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                 op_types_to_quantize=None, nodes_to_quantize=None, nodes_to_exclude=None, per_channel=False,
                 reduce_range=False, use_external_data_format=False, calibration_providers=None,
                 extra_options=None):
        self.calibration_data_reader = calibration_data_reader
        self.calibrate_method = calibrate_method
        self.quant_format = quant_format
        self.activation_type = activation_type
        self.weight_type = weight_type
        self.op_types_to_quantize = op_types_to_quantize
        self.nodes_to_quantize = nodes_to_quantize
        self.nodes_to_exclude = nodes_to_exclude
        self.per_channel = per_channel
        self.reduce_range = reduce_range
        self.use_external_data_format = use_external_data_format
        self.calibration_providers = calibration_providers
        self.extra_options = extra_options or {}


class DynamicQuantConfig:
    """quantize()'s dynamic configuration: quantize_dynamic's arguments."""

    def __init__(self, weight_type=QuantType.QInt8, op_types_to_quantize=None, nodes_to_quantize=None,
                 nodes_to_exclude=None, per_channel=False, reduce_range=False, use_external_data_format=False,
                 extra_options=None):
        self.weight_type = weight_type
        self.op_types_to_quantize = op_types_to_quantize
        self.nodes_to_quantize = nodes_to_quantize
        self.nodes_to_exclude = nodes_to_exclude
        self.per_channel = per_channel
        self.reduce_range = reduce_range
        self.use_external_data_format = use_external_data_format
        self.extra_options = extra_options or {}


def quantize(model_input, model_output, quant_config):
    """quantize_static or quantize_dynamic, by the config's class."""
    c = quant_config
    if isinstance(c, StaticQuantConfig):
        return quantize_static(model_input, model_output, c.calibration_data_reader, c.quant_format,
                               c.op_types_to_quantize, c.per_channel, c.reduce_range, c.activation_type,
                               c.weight_type, c.nodes_to_quantize, c.nodes_to_exclude, c.use_external_data_format,
                               c.calibrate_method, c.calibration_providers, c.extra_options)
    if isinstance(c, DynamicQuantConfig):
        return quantize_dynamic(model_input, model_output, c.op_types_to_quantize, c.per_channel, c.reduce_range,
                                c.weight_type, c.nodes_to_quantize, c.nodes_to_exclude, c.use_external_data_format,
                                c.extra_options)
    raise TypeError("quant_config must be a StaticQuantConfig or a DynamicQuantConfig")
