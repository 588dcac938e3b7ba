"""Shared helpers for the Python API tests: paths and tiny ONNX models built
with Debian's python3-onnx (1.12: newer element types are given by number)."""
import os
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_MODEL_DIR = os.path.join(REPO, "models", "default")
DEFAULT_MODEL = os.path.join(DEFAULT_MODEL_DIR, "model.onnx")

# Let `pytest tests/python` work from a build tree without PYTHONPATH set.
if "tessera" not in sys.modules:
    try:
        import tessera  # noqa: F401
    except ImportError:
        for build in ("build", "build-py"):
            candidate = os.path.join(REPO, build, "python")
            if os.path.isdir(os.path.join(candidate, "tessera")):
                sys.path.insert(0, candidate)
                break


@pytest.fixture(scope="session")
def default_model_path():
    return DEFAULT_MODEL
