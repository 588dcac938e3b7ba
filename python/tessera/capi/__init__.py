"""Mirrors onnxruntime.capi so `from tessera.capi.onnxruntime_pybind11_state
import InvalidArgument` style imports keep working after `import tessera as ort`."""
