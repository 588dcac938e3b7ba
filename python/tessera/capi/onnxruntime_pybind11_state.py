"""onnxruntime.capi.onnxruntime_pybind11_state's exception names, mapped to
Tessera's classes (every one derives from tessera.TesseraError)."""
from tessera import (  # noqa: F401
    EPFail,
    Fail,
    InternalError,
    InvalidArgument,
    InvalidGraph,
    InvalidModel,
    InvalidProtobuf,
    IoError,
    NoSuchFile,
    NotImplemented,
    OpsetMismatch,
    ResourceExhausted,
    RuntimeException,
    TesseraError,
)

NoModel = InvalidModel
ModelLoaded = TesseraError
EngineError = RuntimeException
