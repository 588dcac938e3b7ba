"""Tessera: an ONNX runtime, with an onnxruntime-shaped Python API.

    import tessera as ort
    sess = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    outputs = sess.run(None, {"input": array})

See docs/python.md for what differs from onnxruntime.
"""

import enum as _enum
import os as _os
import warnings as _warnings

# oneDNN's OpenMP threads spin long after each primitive (libgomp's default)
# and fight the session's own thread pool for the cores. libgomp reads its
# spin count once, when it loads with the extension below, so bound it first
# unless the user chose a policy (docs/performance.md, "Threads").
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "10000"

from . import _tessera as _C
from ._tessera import (  # noqa: F401  (re-exported exception classes)
    InternalError,
    InvalidArgument,
    InvalidModel,
    IoError,
    NotImplemented,
    OpsetMismatch,
    ResourceExhausted,
    RuntimeException,
    TesseraError,
)

from ._iobinding import IOBinding  # noqa: E402
from ._values import (  # noqa: E402,F401
    OrtAllocatorType,
    OrtArenaCfg,
    OrtDevice,
    OrtMemoryInfo,
    OrtMemType,
    OrtSparseFormat,
    OrtValue,
    OrtValueVector,
    SparseTensor,
    create_and_register_allocator,
    create_and_register_allocator_v2,
)
from ._values import _cpu_memory_info, _unwrap  # noqa: E402
from ._generate import GenerationResult, generate  # noqa: E402

__version__ = getattr(_C, "__version__", "0.0.0")

# onnxruntime's exception names (onnxruntime.capi.onnxruntime_pybind11_state).
Fail = TesseraError
NoSuchFile = IoError
InvalidGraph = InvalidModel
InvalidProtobuf = InvalidModel
EPFail = RuntimeException

__all__ = [
    "InferenceSession", "SessionOptions", "RunOptions", "GraphOptimizationLevel", "ExecutionMode",
    "ExecutionOrder", "NodeArg", "ModelMetadata", "get_available_providers", "get_all_providers", "get_device",
    "set_default_logger_severity", "set_default_logger_verbosity", "TesseraError", "InvalidArgument",
    "InvalidModel", "NotImplemented", "OpsetMismatch", "IoError", "ResourceExhausted", "RuntimeException",
    "InternalError", "Fail", "NoSuchFile", "InvalidGraph", "InvalidProtobuf", "EPFail",
    "validate", "plan", "ValidationReport", "OrtValue", "SparseTensor", "IOBinding", "OrtDevice", "OrtMemoryInfo",
    "OrtArenaCfg", "OrtAllocatorType", "OrtMemType", "OrtSparseFormat", "create_and_register_allocator",
    "create_and_register_allocator_v2", "get_version_string", "get_build_info", "enable_telemetry_events",
    "disable_telemetry_events", "set_default_logger_callback", "generate", "GenerationResult",
]

# ------------------------------------------------------------------ providers

# Tessera's provider names and onnxruntime's spelling of each.
_ORT_NAMES = {
    "cpu": "CPUExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "dnnl": "DnnlExecutionProvider",
    "opencl": "OpenCLExecutionProvider",
}


def _ort_name(tessera_name):
    return _ORT_NAMES.get(tessera_name, tessera_name)


def get_available_providers():
    """Execution providers built into this module and usable on this machine
    (a device was found), in priority order, spelled as onnxruntime spells
    them (e.g. ``['OpenCLExecutionProvider', 'CPUExecutionProvider']``).
    Tessera's short names (``'cpu'``) are accepted everywhere too."""
    return [_ort_name(p) for p in _C.available_providers()]


# onnxruntime's provider names (get_all_providers lists them, CPU last) plus
# Tessera's OpenCL provider. Known names that are not built in are skipped
# with a warning, as onnxruntime skips them; other names are unknown.
_ALL_PROVIDERS = [
    "TensorrtExecutionProvider", "CUDAExecutionProvider", "MIGraphXExecutionProvider", "ROCMExecutionProvider",
    "OpenVINOExecutionProvider", "DnnlExecutionProvider", "OpenCLExecutionProvider", "VitisAIExecutionProvider",
    "QNNExecutionProvider", "NnapiExecutionProvider", "VSINPUExecutionProvider", "JsExecutionProvider",
    "CoreMLExecutionProvider", "ArmNNExecutionProvider", "ACLExecutionProvider", "DmlExecutionProvider",
    "RknpuExecutionProvider", "WebNNExecutionProvider", "WebGpuExecutionProvider", "XnnpackExecutionProvider",
    "CANNExecutionProvider", "AzureExecutionProvider", "CPUExecutionProvider",
]


def get_all_providers():
    """Every execution provider name Tessera knows, built in or not, with
    the CPU provider last (as onnxruntime lists them)."""
    return list(_ALL_PROVIDERS)


def get_version_string():
    """Tessera's version, e.g. '0.9.0'."""
    return __version__


def get_build_info():
    """One line: version, build type, compiler and the providers built in."""
    return _C.build_info()


def enable_telemetry_events():
    """Accepted for compatibility: Tessera sends no telemetry, so there is
    nothing to enable."""


def disable_telemetry_events():
    """Accepted for compatibility: Tessera sends no telemetry."""


def set_default_logger_callback(callback):
    """Routes every log line of the runtime to callback(severity, category,
    logid, code_location, message) instead of stderr (severity 0 verbose ..
    4 fatal; category 'tessera'; code_location ''). None restores stderr.
    The callback may be called from the runtime's threads."""
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {type(callback).__name__}")
    _C.set_log_sink(callback)




def get_device():
    """The device the default provider computes on."""
    return "CPU"


_default_logger_severity = 2
_default_logger_verbosity = 0


def set_default_logger_severity(severity):
    """Default log severity (0 verbose, 1 info, 2 warning, 3 error, 4 fatal)
    for sessions whose SessionOptions.log_severity_level is -1 (the default)."""
    global _default_logger_severity
    severity = _check_int("severity", severity)
    if not 0 <= severity <= 4:
        raise ValueError(f"Invalid logger severity {severity}: expected 0 (verbose) .. 4 (fatal)")
    _default_logger_severity = severity


def set_default_logger_verbosity(verbosity):
    """Stored for compatibility: Tessera has no verbose-log levels."""
    global _default_logger_verbosity
    _default_logger_verbosity = _check_int("verbosity", verbosity)


# -------------------------------------------------------------------- options


def _check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return value


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def _check_dim(name, value):
    value = _check_int(name, value)
    if value < 0:
        raise InvalidArgument(f"{name} must be >= 0, got {value}")
    return value


def _check_str(name, value):
    if isinstance(value, _os.PathLike):
        value = _os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


class GraphOptimizationLevel(_enum.IntEnum):
    """How far Tessera's graph optimizer rewrites the model at session
    creation: every pass of each level up to this one runs (basic, then
    extended, then layout); see docs/optimizer.md."""
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_LAYOUT = 3
    ORT_ENABLE_ALL = 99


class ExecutionMode(_enum.IntEnum):
    """Stored in SessionOptions; Tessera always runs nodes in order
    (parallelism is inside kernels, see intra_op_num_threads)."""
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class ExecutionOrder(_enum.IntEnum):
    """Stored in SessionOptions; Tessera always uses a topological order."""
    DEFAULT = 0
    PRIORITY_BASED = 1
    MEMORY_EFFICIENT = 2


class _Option:
    """A typed attribute with a default, validated on assignment."""

    def __init__(self, default, check):
        self.default = default
        self.check = check

    def __set_name__(self, owner, name):
        self.name = name
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(obj, self.slot, self.default)

    def __set__(self, obj, value):
        setattr(obj, self.slot, self.check(self.name, value))


_LEVEL_NAMES = {"disabled": GraphOptimizationLevel.ORT_DISABLE_ALL, "basic": GraphOptimizationLevel.ORT_ENABLE_BASIC,
                "extended": GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                "layout": GraphOptimizationLevel.ORT_ENABLE_LAYOUT, "all": GraphOptimizationLevel.ORT_ENABLE_ALL}


# Other spellings of an enum's members its options accept (by lowercase name).
_ENUM_ALIASES = {GraphOptimizationLevel: _LEVEL_NAMES}


def _enum_check(enum_cls):
    """The check of an option whose values are members of enum_cls (or their
    int values, or for enums in _ENUM_ALIASES, member or alias names)."""
    article = "an" if enum_cls.__name__[0] in "AEIOU" else "a"
    aliases = _ENUM_ALIASES.get(enum_cls)

    def check(name, value):
        if isinstance(value, enum_cls):
            return value
        if isinstance(value, str) and aliases is not None:
            key = value.strip()
            if key.lower() in aliases:
                return aliases[key.lower()]
            if key in enum_cls.__members__:
                return enum_cls[key]
            raise TypeError(f"{name} must be {article} {enum_cls.__name__} or one of {sorted(aliases)}, got {value!r}")
        value = _check_int(name, value)
        try:
            return enum_cls(value)
        except ValueError:
            raise TypeError(f"{name} must be {article} {enum_cls.__name__}, got {value!r}") from None
    return check


_KIND_CHECKS = {"int": _check_int, "bool": _check_bool, "str": _check_str}


def _declare_options(cls, rows):
    """Adds one validated attribute to cls per row of the C++ option table
    (src/tessera/api/session_option_table.cc), which is where options are
    declared: (name, kind, enum type, default, doc, applied) each."""
    for name, kind, enum_type, default, doc, _applied in rows:
        if kind == "enum":
            enum_cls = globals()[enum_type]
            option = _Option(enum_cls(default), _enum_check(enum_cls))
        else:
            option = _Option(default, _KIND_CHECKS[kind])
        option.__doc__ = doc
        option.__set_name__(cls, name)
        setattr(cls, name, option)
    cls._option_names = tuple(row[0] for row in rows)
    return cls


_WINOGRAD_KEY = "tessera.winograd_convolutions"
_EXTERNAL_INITIALIZERS_FILE_KEY = "session.optimized_model_external_initializers_file_name"
_EXTERNAL_INITIALIZERS_MIN_SIZE_KEY = "session.optimized_model_external_initializers_min_size_in_bytes"
_MAX_ISA_KEY = "tessera.max_isa"


class SessionOptions:
    """Options for creating an InferenceSession (onnxruntime.SessionOptions).

    Applied by Tessera: log_severity_level, logid, intra_op_num_threads,
    enable_profiling and profile_file_prefix (a Chrome trace written by
    end_profiling()), graph_optimization_level, optimized_model_filepath
    (the optimized model, written at session creation). Everything else is
    stored and readable but has no effect; see docs/python.md."""

    # The attributes (log_severity_level, intra_op_num_threads...) come from
    # the C++ option table: _declare_options below.

    def __init__(self):
        self._config = {}
        self._free_dimension_overrides = []  # (by_denotation, key, value)
        self._initializers = {}              # name -> OrtValue (kept alive here)
        self._files_in_memory = {}           # file name -> buffer (kept alive here)

    def add_free_dimension_override_by_name(self, dim_name, dim_value):
        """Fixes every graph input dimension whose symbol is dim_name
        ('batch') to dim_value at session creation."""
        dim_name = _check_str("dim_name", dim_name)
        self._free_dimension_overrides.append((False, dim_name, _check_dim("dim_value", dim_value)))

    def add_free_dimension_override_by_denotation(self, dim_denotation, dim_value):
        """Fixes every graph input dimension with this denotation
        ('DATA_BATCH') to dim_value at session creation."""
        dim_denotation = _check_str("dim_denotation", dim_denotation)
        self._free_dimension_overrides.append((True, dim_denotation, _check_dim("dim_value", dim_value)))

    def add_initializer(self, name, ortvalue):
        """Replaces the model's initializer `name` by an OrtValue (CPU tensor
        of the same type and shape). The session reads its memory in place:
        the OrtValue (and its numpy array) are kept alive by these options."""
        name = _check_str("name", name)
        if not isinstance(ortvalue, OrtValue) and not isinstance(ortvalue, _C.OrtValue):
            raise Fail("The provided Python object must be an OrtValue")
        if not _unwrap(ortvalue).is_tensor():
            raise InvalidArgument(f"initializer '{name}': the OrtValue must hold a tensor")
        self._initializers[name] = ortvalue

    def add_external_initializers(self, names, ortvalues):
        """add_initializer for each (name, OrtValue) pair."""
        names, ortvalues = list(names), list(ortvalues)
        if len(names) != len(ortvalues):
            raise InvalidArgument(f"add_external_initializers: {len(names)} names but {len(ortvalues)} values")
        for n, v in zip(names, ortvalues):
            self.add_initializer(n, v)

    def add_external_initializers_from_files_in_memory(self, file_names, buffer_array, file_lengths):
        """Supplies the files a model's external data names (location) from
        memory: buffer_array[i] (bytes, bytearray, a numpy array, anything
        with the buffer protocol) holds file_lengths[i] bytes of the file
        file_names[i]. The session reads the initializers from these buffers
        instead of the disk, without copying aligned ones."""
        file_names, buffers, lengths = list(file_names), list(buffer_array), list(file_lengths)
        if not len(file_names) == len(buffers) == len(lengths):
            raise InvalidArgument("add_external_initializers_from_files_in_memory: file_names, buffer_array and "
                                  "file_lengths must be the same length")
        for name, buf, length in zip(file_names, buffers, lengths):
            name = _check_str("file name", name)
            view = memoryview(buf).cast("B")
            length = _check_int("file length", int(length))
            if length < 0 or length > view.nbytes:
                raise InvalidArgument(f"file '{name}': length {length} but the buffer holds {view.nbytes} bytes")
            self._files_in_memory[name] = view[:length]

    def add_session_config_entry(self, key, value):
        """Stores a session configuration entry. Tessera reads
        "tessera.winograd_convolutions": "0" keeps 3x3 convolutions on the
        direct method (default "1": Winograd where oneDNN has a kernel);
        "tessera.max_isa": "avx512", "avx2", "sse4" or "scalar" caps the
        SIMD level of the kernels, process-wide, as TESSERA_MAX_ISA does;
        other keys are stored only."""
        key = _check_str("key", key)
        value = _check_str("value", value)
        if not key:
            raise InvalidArgument("session config key must not be empty")
        self._config[key] = value

    def get_session_config_entry(self, key):
        key = _check_str("key", key)
        if key not in self._config:
            raise InvalidArgument(f"SessionOptions does not have configuration with key: {key}")
        return self._config[key]

    def _winograd_convolutions(self):
        value = self._config.get(_WINOGRAD_KEY, "1")
        if value not in ("0", "1"):
            raise InvalidArgument(f"session config {_WINOGRAD_KEY} must be '0' or '1', got '{value}'")
        return value == "1"

    def _option_values(self):
        """{attribute: value} for every row of the option table."""
        return {name: getattr(self, name) for name in self._option_names}

    def __repr__(self):
        fields = ", ".join(f"{name}={value!r}" for name, value in self._option_values().items())
        return f"SessionOptions({fields})"


_declare_options(SessionOptions, _C.session_option_rows())


class RunOptions:
    """Options for one run (onnxruntime.RunOptions). `terminate` set before a
    run makes it fail at once; a run already under way is not interrupted.
    The log fields are stored only (the session's logger is used)."""

    log_severity_level = _Option(-1, _check_int)
    log_verbosity_level = _Option(0, _check_int)
    logid = _Option("", _check_str)
    terminate = _Option(False, _check_bool)
    only_execute_path_to_fetches = _Option(False, _check_bool)

    def __init__(self):
        self._config = {}

    # onnxruntime calls the run's log id `run_tag` in C and `logid` in Python;
    # `log_tag` is accepted as an alias.
    @property
    def log_tag(self):
        return self.logid

    @log_tag.setter
    def log_tag(self, value):
        self.logid = value

    def add_run_config_entry(self, key, value):
        self._config[_check_str("key", key)] = _check_str("value", value)

    def get_run_config_entry(self, key):
        key = _check_str("key", key)
        if key not in self._config:
            raise InvalidArgument(f"RunOptions does not have configuration with key: {key}")
        return self._config[key]


# ----------------------------------------------------------------- metadata


class NodeArg:
    """A model input or output: name, type string and shape (ints for known
    dimensions, str for symbolic ones, None for unknown ones; [] for a
    scalar or when the rank is unknown, as in onnxruntime)."""

    __slots__ = ("name", "type", "shape", "doc_string")

    def __init__(self, name, type, shape, doc_string=""):  # noqa: A002
        self.name = name
        self.type = type
        self.shape = shape
        self.doc_string = doc_string

    def __repr__(self):
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"

    __str__ = __repr__


class ModelMetadata:
    """What get_modelmeta() returns."""

    __slots__ = ("producer_name", "producer_version", "graph_name", "graph_description", "domain", "description",
                 "version", "custom_metadata_map", "ir_version", "opset_imports")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    def __repr__(self):
        return (f"ModelMetadata(producer_name={self.producer_name!r}, graph_name={self.graph_name!r}, "
                f"domain={self.domain!r}, version={self.version!r})")


# ------------------------------------------------------------------ session


def _normalize_providers(providers, provider_options):
    """Returns (names, options) from onnxruntime's forms: a list of names, of
    (name, options-dict) tuples, or a mix, plus an optional parallel list of
    option dicts."""
    if providers is None:
        if provider_options is not None:
            raise ValueError("provider_options given without providers")
        # The host providers by default (oneDNN ahead of the CPU EP when
        # built in); device providers (OpenCL, say) only when asked for.
        names = _C.default_providers()
        return names, [{} for _ in names]
    if isinstance(providers, str):
        raise TypeError("providers must be a list of provider names, not a str")
    names, options = [], []
    for p in providers:
        if isinstance(p, tuple):
            if len(p) != 2 or not isinstance(p[0], str) or not isinstance(p[1], dict):
                raise ValueError("a provider tuple must be (name: str, options: dict)")
            if provider_options is not None:
                raise ValueError("'providers' has (name, options) tuples and 'provider_options' is also given")
            names.append(p[0])
            options.append(dict(p[1]))
        elif isinstance(p, str):
            names.append(p)
            options.append({})
        else:
            raise TypeError(f"provider must be a str or a (str, dict) tuple, got {type(p).__name__}")
    if provider_options is not None:
        if len(provider_options) != len(names):
            raise ValueError("'providers' and 'provider_options' should be the same length if both are given.")
        options = []
        for o in provider_options:
            if not isinstance(o, dict):
                raise TypeError("provider_options must be a list of dicts")
            options.append(dict(o))
    for n, o in zip(names, options):
        if o:
            _warnings.warn(f"provider options for {n} are ignored: Tessera's providers take no options "
                           f"(got {sorted(o)})", RuntimeWarning, stacklevel=3)
    return _usable_providers(names, options)


def _usable_providers(names, options):
    """Drops what onnxruntime drops: a duplicate (warned), and a known
    provider that is not built in or has no device here (warned, skipped).
    A name no provider has raises 'Unknown Provider Type' (RuntimeException),
    which InferenceSession answers as onnxruntime does, by falling back to
    the CPU provider."""
    available = get_available_providers()
    known = set(_ALL_PROVIDERS) | set(_ORT_NAMES)
    kept, kept_options, seen = [], [], set()
    for n, o in zip(names, options):
        canonical = _C.canonical_provider_name(n)
        if canonical in seen:
            _warnings.warn(f"Duplicate provider '{n}' encountered, ignoring.", stacklevel=4)
            continue
        if _ort_name(canonical) not in available:
            _warnings.warn(f"Specified provider '{n}' is not in available provider names."
                           f"Available providers: '{', '.join(available)}'", stacklevel=4)
            if _ort_name(canonical) not in known and canonical not in known:
                raise RuntimeException(f"Unknown Provider Type: {n}")
            continue
        seen.add(canonical)
        kept.append(n)
        kept_options.append(o)
    return kept, kept_options


class InferenceSession:
    """A loaded model, ready to run (onnxruntime.InferenceSession).

    path_or_bytes: a file path (str or os.PathLike) or the serialized model.
    providers: execution provider names in priority order (onnxruntime's
    'CPUExecutionProvider' or Tessera's 'cpu'); None = every available one.
    The CPU provider is always appended as the fallback."""

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        for k in kwargs:
            if k not in ("disabled_optimizers", "read_config_from_model"):
                raise TypeError(f"InferenceSession() got an unexpected keyword argument '{k}'")
        if "read_config_from_model" in kwargs:
            read_config = int(kwargs["read_config_from_model"]) == 1
        else:
            read_config = _os.environ.get("ORT_LOAD_CONFIG_FROM_MODEL") == "1"
        disabled = kwargs.get("disabled_optimizers") or []
        if isinstance(disabled, str) or not all(isinstance(d, str) for d in disabled):
            raise TypeError("disabled_optimizers must be a list of pass names (str)")
        if isinstance(path_or_bytes, (str, _os.PathLike)):
            source = _os.fspath(path_or_bytes)
            if isinstance(source, bytes):
                source = _os.fsdecode(source)
            self._model_path, self._model_bytes = source, None
        elif isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            source = bytes(path_or_bytes)
            self._model_path, self._model_bytes = None, source
        else:
            raise TypeError(f"Unable to load from type '{type(path_or_bytes)}'")
        if sess_options is not None and not isinstance(sess_options, SessionOptions):
            raise TypeError(f"sess_options must be a SessionOptions, got {type(sess_options).__name__}")
        self._sess_options = sess_options if sess_options is not None else SessionOptions()
        opts = self._sess_options
        config = _C.SessionConfig()
        config.options = opts._option_values()
        config.default_log_severity = _default_logger_severity
        config.disabled_optimizers = list(disabled)
        config.winograd_convolutions = opts._winograd_convolutions()
        config.max_isa = opts._config.get(_MAX_ISA_KEY, "")
        config.free_dimension_overrides = list(opts._free_dimension_overrides)
        config.initializers = [(name, _unwrap(v)) for name, v in opts._initializers.items()]
        config.read_config_from_model = read_config
        external = opts._config.get(_EXTERNAL_INITIALIZERS_FILE_KEY, "")
        if external:
            if _os.path.isabs(external) or _os.sep in external or (_os.altsep and _os.altsep in external):
                raise InvalidArgument(f"{_EXTERNAL_INITIALIZERS_FILE_KEY} must be a file name next to the optimized "
                                      f"model, got '{external}'")
            config.optimized_model_external_file = external
            min_size = opts._config.get(_EXTERNAL_INITIALIZERS_MIN_SIZE_KEY, "1024")
            try:
                config.optimized_model_external_min_bytes = int(min_size)
            except ValueError:
                raise InvalidArgument(f"{_EXTERNAL_INITIALIZERS_MIN_SIZE_KEY} must be an integer, "
                                      f"got '{min_size}'") from None
        self._in_memory_files = dict(opts._files_in_memory)
        config.files_in_memory = list(self._in_memory_files.items())
        self._config = config
        try:
            names, options = _normalize_providers(providers, provider_options)
        except RuntimeException as e:
            # onnxruntime answers a provider it cannot create by retrying once
            # with the CPU provider, and says so on stdout.
            if "Unknown Provider Type" not in str(e):
                raise
            print("*************** EP Error ***************")
            print(f"EP Error {e} when using {providers}")
            print("Falling back to ['CPUExecutionProvider'] and retrying.")
            print("****************************************")
            names, options = ["CPUExecutionProvider"], [{}]
        self._sess = _C.Session(source, config, names)
        self._provider_options = options
        from_model = self._sess.config_from_model()
        if from_model:
            # get_session_options() reports what the session runs with.
            applied = SessionOptions()
            applied.__dict__.update(opts.__dict__)
            applied._config = dict(opts._config)
            for key, value in from_model.items():
                if key == "enable_profiling":
                    value = bool(value)
                setattr(applied, key, value)
            self._sess_options = applied
        self._refresh_metadata()

    def _refresh_metadata(self):
        self._inputs = [NodeArg(*i) for i in self._sess.inputs()]
        self._outputs = [NodeArg(*o) for o in self._sess.outputs()]
        self._overridable = [NodeArg(*o) for o in self._sess.overridable_initializers()]
        self._meta = ModelMetadata(self._sess.metadata())

    # ---------------------------------------------------------------- queries

    def get_inputs(self):
        """The inputs a caller feeds (initializer-backed inputs are listed by
        get_overridable_initializers())."""
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_overridable_initializers(self):
        return list(self._overridable)

    def get_modelmeta(self):
        return self._meta

    def get_providers(self):
        """The session's providers in priority order, onnxruntime-style names
        (['CPUExecutionProvider']) whichever spelling was passed in."""
        return [_ort_name(p) for p in self._sess.providers()]

    def get_instruction_sets(self):
        """Tessera's extension: the instruction set each library of the
        session runs with, e.g. {'onednn': 'avx2', 'highway': 'AVX2',
        'openblas': 'Haswell'} (see the "tessera.max_isa" config entry)."""
        return dict(self._sess.instruction_sets())

    def get_provider_options(self):
        return {_ort_name(p): {} for p in self._sess.providers()}

    def get_session_options(self):
        return self._sess_options

    def get_node_placement(self):
        """Which provider runs each node: a list of dicts with keys node,
        op_type, domain and provider (onnxruntime-style provider name)."""
        out = self._sess.placement()
        for d in out:
            d["provider"] = _ort_name(d["provider"])
        return out

    @property
    def _model_path_or_bytes(self):
        return self._model_path if self._model_path is not None else self._model_bytes

    # -------------------------------------------------------------- running

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model. output_names: list of names, or None/[] for all
        outputs in graph order. input_feed: {input name: value}, where a
        value is a numpy array (or anything numpy.asarray takes), a list for
        a sequence input, a dict for a map input, None for an empty optional.
        Returns a list: numpy arrays for tensors, lists for sequences, dicts
        for maps, None for empty optionals."""
        if run_options is not None:
            if not isinstance(run_options, RunOptions):
                raise TypeError(f"run_options must be a RunOptions, got {type(run_options).__name__}")
            if run_options.terminate:
                raise RuntimeException("Exiting due to terminate flag being set to true.")
        if not isinstance(input_feed, dict):
            try:
                input_feed = dict(input_feed)
            except (TypeError, ValueError):
                raise TypeError(f"input_feed must be a dict of name -> value, got {type(input_feed).__name__}") \
                    from None
        if isinstance(output_names, str):
            raise TypeError("output_names must be a list of names (or None), not a str")
        if output_names is not None and len(output_names) == 0:
            output_names = None
        feed = {}
        for name, value in input_feed.items():
            if isinstance(value, OrtValue):
                if value.is_sparse_tensor():
                    raise NotImplemented(f"input '{name}': Tessera's runtime takes dense tensors; sparse tensor "
                                         "inputs are not supported")
                value = value._ortvalue
            feed[name] = value
        return self._sess.run(output_names, feed)

    # ------------------------------------------------------------ providers

    def set_providers(self, providers=None, provider_options=None):
        """Re-creates the session with new providers (None = the defaults)."""
        try:
            names, options = _normalize_providers(providers, provider_options)
        except RuntimeException as e:
            if "Unknown Provider Type" not in str(e):
                raise
            print(f"EP Error {e} when using {providers}")
            print("Falling back to ['CPUExecutionProvider'] and retrying.")
            names, options = ["CPUExecutionProvider"], [{}]
        self._sess.reset_providers(names)
        self._provider_options = options

    def disable_fallback(self):
        """Not supported: Tessera always keeps the CPU provider as fallback."""
        raise NotImplemented("disable_fallback: Tessera always falls back to the CPU provider")

    def enable_fallback(self):
        """The CPU fallback is always on; nothing to do."""

    # ------------------------------------------------------------ profiling

    def end_profiling(self):
        """Stops profiling and writes the Chrome trace (chrome://tracing,
        Perfetto) to `<profile_file_prefix>_<timestamp>.json`; returns that
        path, or '' when profiling is off or already ended."""
        return self._sess.end_profiling()

    def get_profiling_start_time_ns(self):
        """When profiling started (the trace's time 0), in nanoseconds since
        the Unix epoch (time.time_ns()'s clock); 0 when profiling is off."""
        return self._sess.profiling_start_time_ns()

    def get_input_memory_infos(self):
        """Where each input must be (one OrtMemoryInfo per get_inputs()
        entry): host memory, whatever the providers (they copy)."""
        return [_cpu_memory_info() for _ in self._inputs]

    def get_output_memory_infos(self):
        """Where each output is produced: host memory."""
        return [_cpu_memory_info() for _ in self._outputs]

    # ------------------------------------------------------ OrtValue runs

    def _check_run_options(self, run_options):
        if run_options is not None:
            if not isinstance(run_options, RunOptions):
                raise TypeError(f"run_options must be a RunOptions, got {type(run_options).__name__}")
            if run_options.terminate:
                raise RuntimeException("Exiting due to terminate flag being set to true.")

    def _run_ort_values(self, output_names, feeds, run_options, bound=None):
        self._check_run_options(run_options)
        c_feeds = {}
        for name, value in feeds.items():
            value = _unwrap(value)
            if hasattr(value, "is_sparse_tensor") and value.is_sparse_tensor():
                raise NotImplemented(f"input '{name}': Tessera's runtime takes dense tensors; sparse tensor "
                                     "inputs are not supported")
            c_feeds[name] = value
        if isinstance(output_names, str):
            raise TypeError("output_names must be a list of names (or None), not a str")
        return self._sess.run_with_ort_values(list(output_names) if output_names else None, c_feeds, bound or {})

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        """Runs with OrtValue feeds ({name: OrtValue}); returns a list of
        OrtValues, whose memory numpy() then views without a copy."""
        if not isinstance(input_dict_ort_values, dict):
            raise TypeError("input_dict_ort_values must be a dict of name -> OrtValue")
        return [OrtValue(v) for v in self._run_ort_values(output_names, input_dict_ort_values, run_options)]

    def run_with_ortvaluevector(self, run_options, feed_names, feeds, fetch_names, fetches, fetch_devices):
        """Runs with parallel lists of names and OrtValues; the results are
        appended to `fetches` (an OrtValueVector)."""
        if len(feed_names) != len(feeds):
            raise ValueError("feed_names and feeds must be the same length")
        results = self._run_ort_values(fetch_names, dict(zip(feed_names, feeds)), run_options)
        del fetches[:]
        for r in results:
            fetches.append(r)

    def io_binding(self):
        """An IOBinding for this session (see IOBinding)."""
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        """Runs with the inputs and outputs bound in `iobinding`; read the
        results with iobinding.get_outputs() or copy_outputs_to_cpu()."""
        if not isinstance(iobinding, IOBinding):
            raise TypeError(f"iobinding must be an IOBinding, got {type(iobinding).__name__}")
        if iobinding._session is not self:
            raise InvalidArgument("the IOBinding belongs to another session")
        iobinding._run(run_options)

    def run_async(self, output_names, input_feed, callback, user_data, run_options=None):
        """Runs on another thread and returns at once; when the run ends,
        callback(results, user_data, err) is called from that thread:
        results as run() returns them and err '' on success, or results
        None and err the error's message."""
        if not callable(callback):
            raise TypeError("callback must be callable")
        if not isinstance(input_feed, dict):
            raise TypeError(f"input_feed must be a dict of name -> value, got {type(input_feed).__name__}")
        missing = [i.name for i in self._inputs if i.name not in input_feed and not i.type.startswith("optional")]
        if missing:
            raise ValueError(f"Required inputs ({missing}) are missing from input feed ({list(input_feed)}).")
        import threading

        def work():
            try:
                results = self.run(output_names, input_feed, run_options)
            except Exception as e:  # the callback gets every failure as a message
                callback(None, user_data, str(e))
                return
            callback(results, user_data, "")

        threading.Thread(target=work, name="tessera.run_async", daemon=True).start()

    def __repr__(self):
        src = self._model_path if self._model_path is not None else f"<{len(self._model_bytes)} bytes>"
        return f"<tessera.InferenceSession {src!r} providers={self.get_providers()}>"


# ------------------------------------------------------------- validation


def plan(model, providers=None):
    """Where each node of `model` (a path, the serialized bytes or an
    InferenceSession) would run, without running it: a list of dicts with
    keys node, op_type, domain and provider, as
    InferenceSession.get_node_placement() returns."""
    sess = model if isinstance(model, InferenceSession) else InferenceSession(model, providers=providers)
    return sess.get_node_placement()


class ValidationReport:
    """The result of tessera.validate(): `outputs` maps each model output
    name to a dict with elements, mismatched, max_abs_error, max_rel_error,
    mismatch_fraction, passed, checked and message; `passed` is True when
    every output checked is within tolerance. Truthy exactly when passed."""

    def __init__(self, outputs, rtol, atol, sets):
        self.outputs = outputs
        self.rtol = rtol
        self.atol = atol
        self.sets = sets

    @property
    def passed(self):
        return all(r["passed"] for r in self.outputs.values())

    def __bool__(self):
        return self.passed

    def __getitem__(self, name):
        return self.outputs[name]

    def to_dict(self):
        return {"passed": self.passed, "rtol": self.rtol, "atol": self.atol, "sets": self.sets,
                "outputs": [dict(name=k, **v) for k, v in self.outputs.items()]}

    def __str__(self):
        lines = [f"tolerance |actual - expected| <= {self.atol:g} + {self.rtol:g} * |expected|",
                 f"{'output':<24} {'max abs err':>12} {'max rel err':>12} {'outside tol':>12}  verdict"]
        for name, r in self.outputs.items():
            if not r["checked"]:
                lines.append(f"{name:<24} {'-':>12} {'-':>12} {'-':>12}  not checked (no reference)")
                continue
            lines.append(f"{name:<24} {r['max_abs_error']:>12.6g} {r['max_rel_error']:>12.6g} "
                         f"{100 * r['mismatch_fraction']:>11.4g}%  {'PASS' if r['passed'] else 'FAIL'}")
            if not r["passed"]:
                lines.append(f"    {r['message']}")
        lines.append("PASSED" if self.passed else "FAILED")
        return "\n".join(lines)

    def __repr__(self):
        return f"<tessera.ValidationReport passed={self.passed} outputs={list(self.outputs)}>"


def _read_reference_file(path):
    import numpy as np
    if path.endswith(".npy"):
        return np.load(path, allow_pickle=False)
    try:
        from onnx import TensorProto, numpy_helper
    except ImportError:
        raise ImportError(f"reading {path} needs the onnx package (python3-onnx); or save it as .npy") from None
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def _reference_sets(reference, input_names, output_names):
    """[(label, {input name: array}, {output name: array})] from a dict, a
    .npz path or a folder (test_data_set_*/ or input_i/output_i .pb/.npy)."""
    import numpy as np
    known = set(input_names) | set(output_names)

    def by_name(label, arrays):
        extra = [k for k in arrays if k not in known]
        if extra:
            raise ValueError(f"'{extra[0]}' in the reference is neither an input nor an output of the model "
                             f"(inputs: {', '.join(input_names)}; outputs: {', '.join(output_names)})")
        return (label, {k: arrays[k] for k in input_names if k in arrays},
                {k: arrays[k] for k in output_names if k in arrays})

    if isinstance(reference, dict):
        return [by_name("dict", reference)]
    if not isinstance(reference, (str, _os.PathLike)):
        raise TypeError(f"reference must be a dict, a .npz path or a folder, got {type(reference).__name__}")
    path = _os.fspath(reference)
    if _os.path.isdir(path):
        dirs = sorted(_os.path.join(path, d) for d in _os.listdir(path)
                      if d.startswith("test_data_set_") and _os.path.isdir(_os.path.join(path, d)))
        sets = []
        for d in dirs or [path]:
            def find(stem):
                for ext in (".pb", ".npy"):
                    if _os.path.exists(_os.path.join(d, stem + ext)):
                        return _os.path.join(d, stem + ext)
                return None
            got = {}
            for kind, names in (("input", input_names), ("output", output_names)):
                i = 0
                while find(f"{kind}_{i}"):
                    if i >= len(names):
                        raise ValueError(f"{d} has more {kind}s than the model ({len(names)})")
                    got[names[i]] = _read_reference_file(find(f"{kind}_{i}"))
                    i += 1
            if not got:
                raise ValueError(f"no input_N / output_N files (.pb or .npy) in {d}")
            sets.append(by_name(_os.path.basename(d), got))
        return sets
    if not _os.path.exists(path):
        raise FileNotFoundError(f"reference '{path}' does not exist")
    if not path.endswith(".npz"):
        raise ValueError(f"reference must be a folder or a .npz file, got '{path}'")
    with np.load(path, allow_pickle=False) as z:
        return [by_name(_os.path.basename(path), {k: z[k] for k in z.files})]


def validate(model, reference, rtol=1e-3, atol=1e-5, providers=None):
    """Runs `model` (a path, serialized bytes or an InferenceSession) on the
    reference inputs and compares its outputs with the reference outputs.

    reference: a dict {name: numpy array} holding the model's inputs and
    (some of) its outputs, a path to a .npz archive with arrays named the
    same way, or a folder in the ONNX test layout (test_data_set_N/ holding
    input_i.pb / output_i.pb, or input_i / output_i .pb or .npy directly).
    An element is within tolerance when |actual - expected| <= atol + rtol *
    |expected|. Returns a ValidationReport (see its doc)."""
    sess = model if isinstance(model, InferenceSession) else InferenceSession(model, providers=providers)
    inputs = sess.get_inputs()
    input_names = [i.name for i in inputs]
    output_names = [o.name for o in sess.get_outputs()]
    sets = _reference_sets(reference, input_names, output_names)
    verdicts = {name: _C.OutputVerdict(name) for name in output_names}
    for label, feeds, expected in sets:
        for arg in inputs:
            if arg.name not in feeds:
                raise ValueError(f"the reference ({label}) has no value for model input '{arg.name}'")
            value = feeds[arg.name]
            shape = getattr(value, "shape", None)
            if arg.shape is not None and shape is not None:
                declared = list(arg.shape)
                if len(declared) != len(shape) or any(isinstance(d, int) and d >= 0 and d != s
                                                      for d, s in zip(declared, shape)):
                    raise ValueError(f"the reference ({label}) input '{arg.name}' has shape {list(shape)}, "
                                     f"but the model declares {declared}")
        if not expected:
            raise ValueError(f"the reference ({label}) has no expected value for any model output")
        actual = sess.run(None, feeds)
        for name, value in zip(output_names, actual):
            if name in expected:
                # The rule of `tessera validate`, in C++ (ir/output_verdict.h).
                verdicts[name].add(value, expected[name], rtol, atol, label if len(sets) > 1 else "")
    reports = {name: v.to_dict() for name, v in verdicts.items()}
    return ValidationReport(reports, rtol, atol, len(sets))
