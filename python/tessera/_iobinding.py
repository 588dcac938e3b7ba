"""IOBinding (onnxruntime.IOBinding): inputs and outputs bound before a run,
so a run reads the caller's memory and writes into memory the caller chose."""

from . import _tessera as _C
from ._values import OrtValue, OrtValueVector, _check_host, _unwrap


class IOBinding:
    """Made by InferenceSession.io_binding(). Inputs bound from numpy
    (bind_cpu_input) or raw memory (bind_input) are read in place; an
    output bound to memory (bind_output with buffer_ptr, or
    bind_ortvalue_output) receives its result in that memory."""

    def __init__(self, session):
        self._session = session
        self._inputs = {}   # name -> C-level OrtValue
        self._outputs = {}  # name -> C-level OrtValue (bound memory) or None (runtime allocates)
        self._results = []
        self._numpy_obj_references = {}

    # ------------------------------------------------------------- inputs

    def _check_input(self, name):
        if not isinstance(name, str):
            raise TypeError(f"input name must be a str, got {type(name).__name__}")
        names = [i.name for i in self._session.get_inputs()] + \
            [i.name for i in self._session.get_overridable_initializers()]
        if name not in names:
            from . import InvalidArgument
            raise InvalidArgument(f"Failed to find input name in the mapping: {name} (inputs: {', '.join(names)})")

    def bind_cpu_input(self, name, arr_on_cpu):
        """Binds an input to a numpy array; its memory is read by the run
        without a copy (the array is kept alive)."""
        self._check_input(name)
        import numpy as np
        arr = arr_on_cpu if isinstance(arr_on_cpu, np.ndarray) else np.asarray(arr_on_cpu)
        self._numpy_obj_references[name] = arr
        self._inputs[name] = _C.OrtValue.ortvalue_from_numpy(arr)

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds an input to memory at buffer_ptr (the caller keeps it alive)."""
        self._check_input(name)
        _check_host(device_type, "bind_input")
        self._inputs[name] = _C.OrtValue.from_pointer(int(buffer_ptr), list(shape), element_type)

    def bind_ortvalue_input(self, name, ortvalue):
        self._check_input(name)
        self._inputs[name] = _unwrap(ortvalue)

    def synchronize_inputs(self):
        """Nothing to wait for: Tessera's inputs are host memory."""

    def clear_binding_inputs(self):
        self._inputs.clear()
        self._numpy_obj_references.clear()

    # ------------------------------------------------------------ outputs

    def _check_output(self, name):
        if not isinstance(name, str):
            raise TypeError(f"output name must be a str, got {type(name).__name__}")
        names = [o.name for o in self._session.get_outputs()]
        if name not in names:
            from . import InvalidArgument
            raise InvalidArgument(f"Failed to find output name in the mapping: {name} (outputs: {', '.join(names)})")

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None, buffer_ptr=None):
        """Binds an output: with buffer_ptr (and element_type, shape) the
        result is written to that memory; without, the run allocates it."""
        self._check_output(name)
        _check_host(device_type, "bind_output")
        if buffer_ptr is None:
            self._outputs[name] = None
            return
        if element_type is None or shape is None:
            raise ValueError("`element_type` and `shape` are to be provided if pre-allocated memory is provided")
        self._outputs[name] = _C.OrtValue.from_pointer(int(buffer_ptr), list(shape), element_type)

    def bind_ortvalue_output(self, name, ortvalue):
        """Binds an output to an OrtValue's memory (its type and shape must
        be the result's)."""
        self._check_output(name)
        self._outputs[name] = _unwrap(ortvalue)

    def synchronize_outputs(self):
        """Nothing to wait for: runs finish before returning."""

    def clear_binding_outputs(self):
        self._outputs.clear()
        self._results = []

    def get_outputs(self):
        """The outputs of the last run_with_iobinding, as OrtValues, in the
        order they were bound; bound memory is returned as itself."""
        return [OrtValue(v) for v in self._results]

    def get_outputs_as_ortvaluevector(self):
        return OrtValueVector(self._results)

    def copy_outputs_to_cpu(self):
        """The outputs of the last run as numpy arrays (copies)."""
        out = []
        for v in self._results:
            value = v.to_python()
            out.append(value.copy() if hasattr(value, "copy") and hasattr(value, "dtype") else value)
        return out

    # ---------------------------------------------------------------- run

    def _run(self, run_options):
        if not self._outputs:
            from . import InvalidArgument
            raise InvalidArgument("At least one output should be bound.")
        names = list(self._outputs)
        bound = {n: v for n, v in self._outputs.items() if v is not None}
        self._results = list(self._session._run_ort_values(names, dict(self._inputs), run_options, bound))
