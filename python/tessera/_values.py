"""OrtValue, SparseTensor, OrtDevice and the memory-info classes, shaped as
onnxruntime's (onnxruntime.OrtValue wraps a C-level value; here the C-level
value is _tessera.OrtValue). Tessera computes on the host: every value lives
in CPU memory, and device names other than "cpu" are refused."""

import enum as _enum

from . import _tessera as _C


def _numpy():
    import numpy as np
    return np


# ------------------------------------------------------------------ devices


class _COrtDevice:
    """onnxruntime.capi._pybind_state.OrtDevice: a device type, a memory type
    and a device id."""

    _TYPES = {"cpu": 0, "cuda": 1, "fpga": 2, "npu": 3, "dml": 4, "webgpu": 5, "cann": 6}

    def __init__(self, device_type, memory_type=0, device_id=0, vendor_id=0):
        self._type = int(device_type)
        self._mem = int(memory_type)
        self._id = int(device_id)
        self._vendor = int(vendor_id)

    @staticmethod
    def cpu():
        return 0

    @staticmethod
    def cuda():
        return 1

    @staticmethod
    def fpga():
        return 2

    @staticmethod
    def npu():
        return 3

    @staticmethod
    def dml():
        return 4

    @staticmethod
    def webgpu():
        return 5

    @staticmethod
    def cann():
        return 6

    @staticmethod
    def default_memory():
        return 0

    def device_type(self):
        return self._type

    def device_id(self):
        return self._id

    def mem_type(self):
        return self._mem

    def vendor_id(self):
        return self._vendor

    def __eq__(self, other):
        return isinstance(other, _COrtDevice) and (self._type, self._mem, self._id) == (
            other._type, other._mem, other._id)

    def __hash__(self):
        return hash((self._type, self._mem, self._id))

    def __repr__(self):
        name = {v: k for k, v in self._TYPES.items()}.get(self._type, str(self._type))
        return f"OrtDevice(type={name}, memory_type={self._mem}, device_id={self._id})"


def _device_type_code(device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a str, got {type(device_type).__name__}")
    code = _COrtDevice._TYPES.get(device_type.lower())
    if code is None:
        raise Exception("Unsupported device type: " + device_type)  # onnxruntime raises a plain Exception
    return code


def _check_host(device_type, what):
    if _device_type_code(device_type) != _COrtDevice.cpu():
        from . import NotImplemented as _NotImplemented
        raise _NotImplemented(f"{what}: Tessera keeps values in host memory; device '{device_type}' is not "
                              "supported (use 'cpu')")


class OrtDevice:
    """A device (onnxruntime.OrtDevice): OrtDevice.make('cpu', 0)."""

    def __init__(self, c_ort_device):
        if not isinstance(c_ort_device, _COrtDevice):
            raise ValueError("`Provided object` needs to be of type "
                             "`onnxruntime.capi.onnxruntime_pybind11_state.OrtDevice`")
        self._ort_device = c_ort_device

    def _get_c_device(self):
        return self._ort_device

    @staticmethod
    def make(ort_device_name, device_id):
        return OrtDevice(_COrtDevice(_device_type_code(ort_device_name), _COrtDevice.default_memory(), device_id))

    def device_id(self):
        return self._ort_device.device_id()

    def device_type(self):
        return self._ort_device.device_type()

    def __repr__(self):
        return repr(self._ort_device)


class OrtAllocatorType(_enum.IntEnum):
    INVALID = -1
    ORT_DEVICE_ALLOCATOR = 0
    ORT_ARENA_ALLOCATOR = 1


class OrtMemType(_enum.IntEnum):
    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1
    DEFAULT = 0


class OrtMemoryInfo:
    """Where a value's memory is (onnxruntime.OrtMemoryInfo(name, alloc_type,
    device_id, mem_type)); Tessera's values are all in "Cpu" memory."""

    _NAMES = ("Cpu", "Cuda", "CudaPinned", "Cann", "CannPinned", "DML", "WebGPU_Buffer")

    def __init__(self, name, alloc_type, device_id, mem_type):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if name not in self._NAMES:
            from . import InvalidArgument
            raise InvalidArgument(f"Specified device is not supported: '{name}' (one of {', '.join(self._NAMES)})")
        self.name = name
        self.alloc_type = OrtAllocatorType(int(alloc_type))
        self.device_id = int(device_id)
        self.mem_type = OrtMemType(int(mem_type))

    @property
    def device(self):
        kind = {"Cpu": _COrtDevice.cpu(), "CudaPinned": _COrtDevice.cpu(), "CannPinned": _COrtDevice.cpu(),
                "Cuda": _COrtDevice.cuda(), "Cann": _COrtDevice.cann(), "DML": _COrtDevice.dml(),
                "WebGPU_Buffer": _COrtDevice.webgpu()}[self.name]
        return _COrtDevice(kind, _COrtDevice.default_memory(), self.device_id)

    def __eq__(self, other):
        return isinstance(other, OrtMemoryInfo) and (self.name, self.alloc_type, self.device_id, self.mem_type) == (
            other.name, other.alloc_type, other.device_id, other.mem_type)

    def __hash__(self):
        return hash((self.name, int(self.alloc_type), self.device_id, int(self.mem_type)))

    def __repr__(self):
        return (f"OrtMemoryInfo(name={self.name!r}, alloc_type={self.alloc_type.name}, "
                f"device_id={self.device_id}, mem_type={self.mem_type.name})")


def _cpu_memory_info():
    return OrtMemoryInfo("Cpu", OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, OrtMemType.DEFAULT)


class OrtArenaCfg:
    """Arena settings (onnxruntime.OrtArenaCfg): either the four positional
    values (max_mem, arena_extend_strategy, initial_chunk_size_bytes,
    max_dead_bytes_per_chunk) or a dict of any of the keys below. -1 means
    the default."""

    _KEYS = ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes", "max_dead_bytes_per_chunk",
             "initial_growth_chunk_size_bytes", "max_power_of_two_extend_bytes")

    def __init__(self, *args):
        for k in self._KEYS:
            setattr(self, k, -1 if k != "max_mem" else 0)
        if len(args) == 1 and isinstance(args[0], dict):
            for k, v in args[0].items():
                if k not in self._KEYS:
                    from . import InvalidArgument
                    raise InvalidArgument(f"Invalid OrtArenaCfg option: {k} (valid: {', '.join(self._KEYS)})")
                setattr(self, k, int(v))
        elif len(args) == 4:
            for k, v in zip(self._KEYS, args):
                setattr(self, k, int(v))
        elif args:
            raise TypeError("OrtArenaCfg takes (max_mem, arena_extend_strategy, initial_chunk_size_bytes, "
                            "max_dead_bytes_per_chunk) or a dict")
        if self.arena_extend_strategy not in (-1, 0, 1):
            raise ValueError(f"arena_extend_strategy must be -1, 0 (kNextPowerOfTwo) or 1 (kSameAsRequested), "
                             f"got {self.arena_extend_strategy}")

    def __repr__(self):
        return "OrtArenaCfg(" + ", ".join(f"{k}={getattr(self, k)}" for k in self._KEYS) + ")"


# Allocators registered with the environment, by memory info.
_shared_allocators = {}


def create_and_register_allocator(mem_info, arena_cfg=None):
    """Registers a shared CPU allocator (onnxruntime's env allocator), which
    sessions created with the "session.use_env_allocators" = "1" config
    entry share. Tessera's sessions draw their per-run arenas from the
    process heap either way (docs/python.md); the registration is checked as
    onnxruntime checks it: CPU memory only, once per memory info."""
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError(f"mem_info must be an OrtMemoryInfo, got {type(mem_info).__name__}")
    if arena_cfg is not None and not isinstance(arena_cfg, OrtArenaCfg):
        raise TypeError(f"arena_cfg must be an OrtArenaCfg or None, got {type(arena_cfg).__name__}")
    if mem_info.device.device_type() != _COrtDevice.cpu():
        from . import InvalidArgument
        raise InvalidArgument(f"Only CPU allocators can be shared between sessions; got {mem_info!r}")
    if mem_info in _shared_allocators:
        from . import InvalidArgument
        raise InvalidArgument(f"An allocator for {mem_info!r} is already registered")
    _shared_allocators[mem_info] = arena_cfg


def create_and_register_allocator_v2(provider_type, mem_info, provider_options, arena_cfg=None):
    if _C.canonical_provider_name(provider_type) != "cpu":
        from . import InvalidArgument
        raise InvalidArgument(f"Tessera shares allocators of the CPU provider only, not {provider_type}")
    create_and_register_allocator(mem_info, arena_cfg)


# ------------------------------------------------------------------ OrtValue


def _unwrap(value):
    """The C-level value of an OrtValue (or the value itself)."""
    return value._ortvalue if isinstance(value, OrtValue) else value


class _DLPackCapsule:
    """Lets numpy.from_dlpack take a bare DLPack capsule (onnxruntime's
    from_dlpack accepts one); numpy's DLPack is CPU-only."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0


class OrtValue:
    """A value for or from a session (onnxruntime.OrtValue): a tensor, a
    sparse tensor, a sequence or a map. Made from numpy, it shares the
    array's memory (the array is kept alive)."""

    def __init__(self, ortvalue, numpy_obj=None):
        if not isinstance(ortvalue, (_C.OrtValue, _SparseOrtValue)):
            raise ValueError("`Provided ortvalue` needs to be of type "
                             "`onnxruntime.capi.onnxruntime_pybind11_state.OrtValue`")
        self._ortvalue = ortvalue
        self._numpy_obj = numpy_obj

    def _get_c_value(self):
        return self._ortvalue

    @staticmethod
    def ortvalue_from_numpy(numpy_obj, device_type="cpu", device_id=0):
        """An OrtValue over the array's memory (no copy when the array is
        C-contiguous, aligned and native-endian; else over one copy)."""
        _check_host(device_type, "ortvalue_from_numpy")
        np = _numpy()
        if not isinstance(numpy_obj, np.ndarray):
            raise TypeError(f"ortvalue_from_numpy takes a numpy array, got {type(numpy_obj).__name__}")
        return OrtValue(_C.OrtValue.ortvalue_from_numpy(numpy_obj), numpy_obj)

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(data, onnx_element_type):
        """An OrtValue over the array's memory, its elements read as the ONNX
        type onnx_element_type (of the same width: bfloat16 over uint16...)."""
        return OrtValue(_C.OrtValue.ortvalue_from_numpy_with_onnx_type(data, int(onnx_element_type)), data)

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type="cpu", device_id=0):
        """A new zero-filled tensor; element_type: a numpy type or an ONNX
        TensorProto code (int)."""
        _check_host(device_type, "ortvalue_from_shape_and_type")
        if isinstance(element_type, int) and not isinstance(element_type, bool):
            return OrtValue(_C.OrtValue.ortvalue_from_shape_and_onnx_type(list(shape), element_type))
        return OrtValue(_C.OrtValue.ortvalue_from_shape_and_type(list(shape), element_type))

    @staticmethod
    def ort_value_from_sparse_tensor(sparse_tensor):
        if not isinstance(sparse_tensor, SparseTensor):
            raise TypeError("ort_value_from_sparse_tensor takes a SparseTensor")
        return OrtValue(_SparseOrtValue(sparse_tensor._get_c_tensor()))

    @staticmethod
    def from_dlpack(data, is_bool_tensor=False):
        """An OrtValue sharing the memory of a DLPack producer (an object
        with __dlpack__, or a DLPack capsule); CPU memory only."""
        np = _numpy()
        source = data if hasattr(data, "__dlpack__") else _DLPackCapsule(data)
        arr = np.from_dlpack(source)
        if is_bool_tensor and arr.dtype != np.bool_:
            arr = arr.view(np.bool_)
        return OrtValue(_C.OrtValue.ortvalue_from_numpy(arr), arr)

    def as_sparse_tensor(self):
        if not isinstance(self._ortvalue, _SparseOrtValue):
            raise TypeError("this OrtValue does not hold a SparseTensor")
        return SparseTensor(self._ortvalue.as_sparse_tensor())

    def data_ptr(self):
        """Address of the first element of the tensor's memory."""
        return self._ortvalue.data_ptr()

    def device_name(self):
        return self._ortvalue.device_name().lower()

    def shape(self):
        return self._ortvalue.shape()

    def data_type(self):
        """The type as a string, e.g. 'tensor(float)'."""
        return self._ortvalue.data_type()

    def element_type(self):
        """The ONNX TensorProto element type code (1 = float...)."""
        return self._ortvalue.element_type()

    def has_value(self):
        return self._ortvalue.has_value()

    def is_tensor(self):
        return self._ortvalue.is_tensor()

    def is_sparse_tensor(self):
        return self._ortvalue.is_sparse_tensor()

    def is_tensor_sequence(self):
        return self._ortvalue.is_tensor_sequence()

    def numpy(self):
        """The tensor as a numpy array over the same memory when the memory
        is the caller's or this value's alone; a copy when the model still
        holds it (an initializer passed through to an output)."""
        return self._ortvalue.numpy()

    def update_inplace(self, np_arr):
        """Copies np_arr (same type and shape) into this value's memory."""
        self._ortvalue.update_inplace(np_arr)

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        if dtype is not None and arr.dtype != _numpy().dtype(dtype):
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __dlpack__(self, stream=None):
        return self.numpy().__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)

    def to_dlpack(self):
        """A DLPack capsule over the tensor's memory (no copy)."""
        return self.__dlpack__()

    def __repr__(self):
        if self.is_tensor():
            return f"<tessera.OrtValue {self.data_type()} shape={self.shape()}>"
        return f"<tessera.OrtValue {self.data_type()}>"


class OrtValueVector(list):
    """A list of C-level OrtValues (onnxruntime.capi._pybind_state.OrtValueVector)."""

    def push_back(self, ortvalue):
        self.append(_unwrap(ortvalue))

    def reserve(self, n):
        pass  # a Python list grows on its own

    def element_type_at(self, index):
        return self[index].element_type()

    def shape_at(self, index):
        return self[index].shape()

    def to_dlpacks(self, to_tensor=None):
        out = [OrtValue(v).to_dlpack() for v in self]
        return [to_tensor(c) for c in out] if to_tensor else out

    def bool_tensor_indices(self):
        return [i for i, v in enumerate(self) if v.is_tensor() and v.element_type() == 9]


# ------------------------------------------------------------- SparseTensor


class OrtSparseFormat(_enum.IntEnum):
    ORT_SPARSE_UNDEFINED = 0
    ORT_SPARSE_COO = 1
    ORT_SPARSE_CSRC = 2
    ORT_SPARSE_BLOCK_SPARSE = 4


class _CooView:
    def __init__(self, indices):
        self._indices = indices

    def indices(self):
        return self._indices


class _CsrView:
    def __init__(self, inner, outer):
        self._inner, self._outer = inner, outer

    def inner(self):
        return self._inner

    def outer(self):
        return self._outer


_ONNX_NAMES = {"float32": "float", "float64": "double", "float16": "float16", "int8": "int8", "int16": "int16",
               "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
               "uint64": "uint64", "bool": "bool", "complex64": "complex64", "complex128": "complex128"}


class _CSparseTensor:
    """onnxruntime.capi._pybind_state.SparseTensor: numeric values and
    indices stay in the caller's numpy arrays (no copy); strings are copied."""

    def __init__(self, fmt, dense_shape, values, views):
        self.format = fmt
        self._dense_shape = dense_shape
        self._values = values
        self._views = views

    @staticmethod
    def _values_array(values):
        np = _numpy()
        values = values if isinstance(values, np.ndarray) else np.asarray(values)
        if values.ndim != 1:
            raise ValueError("values must be a 1-D array")
        if values.dtype.kind in "OUS":
            return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in values], dtype=object)
        if values.dtype.name not in _ONNX_NAMES:
            raise ValueError(f"values of dtype {values.dtype} have no ONNX element type")
        if not values.flags["C_CONTIGUOUS"]:
            raise ValueError("values must be a contiguous array")
        return values

    @staticmethod
    def _index_array(indices, what):
        np = _numpy()
        if not isinstance(indices, np.ndarray) or indices.dtype != np.int64 or not indices.flags["C_CONTIGUOUS"]:
            raise ValueError(f"{what} must be a contiguous numpy int64 array")
        return indices

    @staticmethod
    def _shape(dense_shape):
        np = _numpy()
        shape = [int(d) for d in (dense_shape.tolist() if isinstance(dense_shape, np.ndarray) else dense_shape)]
        if any(d < 0 for d in shape):
            raise ValueError(f"dense_shape must have dimensions >= 0, got {shape}")
        return shape

    @classmethod
    def sparse_coo_from_numpy(cls, dense_shape, values, coo_indices, ort_device):
        shape = cls._shape(dense_shape)
        values = cls._values_array(values)
        idx = cls._index_array(coo_indices, "coo_indices")
        n = values.shape[0]
        total = 1
        for d in shape:
            total *= d
        if idx.ndim == 1:
            if idx.shape[0] != n:
                raise ValueError(f"linear coo_indices must have one index per value ({n}), got {idx.shape[0]}")
            if n and (idx.min() < 0 or idx.max() >= total):
                raise ValueError(f"a linear COO index lies outside the dense shape {shape}")
        elif idx.ndim == 2:
            if idx.shape != (n, len(shape)):
                raise ValueError(f"2-D coo_indices must be [{n}, {len(shape)}], got {list(idx.shape)}")
            if n and (idx.min() < 0 or (idx >= _numpy().asarray(shape)).any()):
                raise ValueError(f"a COO coordinate lies outside the dense shape {shape}")
        else:
            raise ValueError("coo_indices must be 1-D (linear) or 2-D (coordinates)")
        return cls(OrtSparseFormat.ORT_SPARSE_COO, shape, values, _CooView(idx))

    @classmethod
    def sparse_csr_from_numpy(cls, dense_shape, values, inner_indices, outer_indices, ort_device):
        shape = cls._shape(dense_shape)
        if len(shape) != 2:
            raise ValueError(f"CSR(C) needs a 2-D dense shape, got {shape}")
        values = cls._values_array(values)
        inner = cls._index_array(inner_indices, "inner_indices")
        outer = cls._index_array(outer_indices, "outer_indices")
        if inner.ndim != 1 or inner.shape[0] != values.shape[0]:
            raise ValueError("inner_indices must be 1-D with one index per value")
        if outer.ndim != 1 or outer.shape[0] != shape[0] + 1:
            raise ValueError(f"outer_indices must hold rows + 1 = {shape[0] + 1} entries")
        if outer.shape[0] and (outer[0] != 0 or outer[-1] != values.shape[0] or (_numpy().diff(outer) < 0).any()):
            raise ValueError("outer_indices must rise from 0 to the number of values")
        if inner.shape[0] and (inner.min() < 0 or inner.max() >= shape[1]):
            raise ValueError(f"an inner (column) index lies outside the {shape[1]} columns")
        return cls(OrtSparseFormat.ORT_SPARSE_CSRC, shape, values, _CsrView(inner, outer))

    def values(self):
        return self._values

    def get_coo_data(self):
        if self.format != OrtSparseFormat.ORT_SPARSE_COO:
            raise TypeError("this sparse tensor is not in COO format")
        return self._views

    def get_csrc_data(self):
        if self.format != OrtSparseFormat.ORT_SPARSE_CSRC:
            raise TypeError("this sparse tensor is not in CSR(C) format")
        return self._views

    def get_blocksparse_data(self):
        raise TypeError("this sparse tensor is not in BlockSparse format")

    def dense_shape(self):
        return _numpy().asarray(self._dense_shape, dtype=_numpy().int64)

    def data_type(self):
        kind = "string" if self._values.dtype == object else _ONNX_NAMES[self._values.dtype.name]
        return f"sparse_tensor({kind})"

    def device_name(self):
        return "Cpu"

    def to_cuda(self, ort_device):
        from . import NotImplemented as _NotImplemented
        raise _NotImplemented("Tessera has no CUDA memory: sparse tensors stay on the CPU")

    def to_dense(self):
        """The dense numpy array (Tessera's addition, for checking)."""
        np = _numpy()
        out = np.zeros(self._dense_shape, dtype=self._values.dtype)
        if self.format == OrtSparseFormat.ORT_SPARSE_COO:
            idx = self._views.indices()
            if idx.ndim == 1:
                out.reshape(-1)[idx] = self._values
            else:
                out[tuple(idx.T)] = self._values
        else:
            outer, inner = self._views.outer(), self._views.inner()
            for r in range(self._dense_shape[0]):
                out[r, inner[outer[r]:outer[r + 1]]] = self._values[outer[r]:outer[r + 1]]
        return out


class _SparseOrtValue:
    """The C-level OrtValue interface over a sparse tensor."""

    def __init__(self, tensor):
        self._tensor = tensor

    def as_sparse_tensor(self):
        return self._tensor

    def is_sparse_tensor(self):
        return True

    def is_tensor(self):
        return False

    def is_tensor_sequence(self):
        return False

    def has_value(self):
        return True

    def data_type(self):
        return self._tensor.data_type()

    def device_name(self):
        return "Cpu"

    def shape(self):
        return list(self._tensor._dense_shape)

    def element_type(self):
        raise TypeError("element_type() is for tensors; this OrtValue holds a sparse tensor")

    def data_ptr(self):
        raise TypeError("data_ptr() is for tensors; this OrtValue holds a sparse tensor")

    def numpy(self):
        raise TypeError("numpy() is for tensors; use as_sparse_tensor() for a sparse tensor")

    def update_inplace(self, np_arr):
        raise TypeError("update_inplace() is for tensors")


class SparseTensor:
    """A sparse tensor in COO or CSR(C) format (onnxruntime.SparseTensor);
    its numeric buffers are the numpy arrays it was made from."""

    def __init__(self, sparse_tensor):
        if not isinstance(sparse_tensor, _CSparseTensor):
            raise ValueError("`Provided object` needs to be of type "
                             "`onnxruntime.capi.onnxruntime_pybind11_state.SparseTensor`")
        self._tensor = sparse_tensor

    def _get_c_tensor(self):
        return self._tensor

    @staticmethod
    def sparse_coo_from_numpy(dense_shape, values, coo_indices, ort_device):
        return SparseTensor(_CSparseTensor.sparse_coo_from_numpy(dense_shape, values, coo_indices, ort_device))

    @staticmethod
    def sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices, ort_device):
        return SparseTensor(_CSparseTensor.sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices,
                                                                 ort_device))

    def values(self):
        return self._tensor.values()

    def as_coo_view(self):
        return self._tensor.get_coo_data()

    def as_csrc_view(self):
        return self._tensor.get_csrc_data()

    def as_blocksparse_view(self):
        return self._tensor.get_blocksparse_data()

    def to_cuda(self, ort_device):
        return SparseTensor(self._tensor.to_cuda(ort_device))

    def format(self):
        return self._tensor.format

    def dense_shape(self):
        return self._tensor.dense_shape()

    def data_type(self):
        return self._tensor.data_type()

    def device_name(self):
        return self._tensor.device_name().lower()
