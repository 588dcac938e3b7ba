"""onnxruntime.capi.onnxruntime_pybind11_state: the same names as
_pybind_state (onnxruntime's native module), exception classes included;
every exception derives from tessera.TesseraError."""
from tessera import InternalError, InvalidModel, IoError, OpsetMismatch, ResourceExhausted, TesseraError  # noqa: F401
from tessera.capi._pybind_state import *  # noqa: F401,F403
from tessera.capi._pybind_state import EngineError, ModelLoaded, NoModel  # noqa: F401
