"""onnxruntime.capi._pybind_state's names, for code that imports the C-level
classes directly (`from onnxruntime.capi._pybind_state import OrtValue,
OrtDevice, OrtValueVector, RunOptions`). Here OrtValue is the native value
(_tessera.OrtValue) that tessera.OrtValue wraps, as in onnxruntime."""
from tessera import _tessera as _C
from tessera import (  # noqa: F401
    EPFail,
    ExecutionMode,
    ExecutionOrder,
    Fail,
    GraphOptimizationLevel,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelMetadata,
    NodeArg,
    NoSuchFile,
    NotImplemented,
    OrtAllocatorType,
    OrtArenaCfg,
    OrtMemoryInfo,
    OrtMemType,
    OrtSparseFormat,
    OrtValueVector,
    RunOptions,
    RuntimeException,
    SessionOptions,
    create_and_register_allocator,
    create_and_register_allocator_v2,
    disable_telemetry_events,
    enable_telemetry_events,
    get_all_providers,
    get_available_providers,
    get_build_info,
    get_device,
    get_version_string,
    set_default_logger_callback,
    set_default_logger_severity,
    set_default_logger_verbosity,
)
from tessera._values import _COrtDevice as OrtDevice  # noqa: F401
from tessera._values import _CSparseTensor as SparseTensor  # noqa: F401

OrtValue = _C.OrtValue
# onnxruntime's other exception names.
NoModel = InvalidGraph
ModelLoaded = Fail
EngineError = RuntimeException


def get_default_session_options():
    return SessionOptions()
