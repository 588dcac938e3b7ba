"""Drop-in check: examples/ort_style.py is an onnxruntime script with only the
import changed (`import tessera as ort`); it must run unmodified and print
what onnxruntime would."""
import ast
import os
import re
import subprocess
import sys

import tessera
from conftest import REPO

EXAMPLE = os.path.join(REPO, "examples", "ort_style.py")


def run_example(*args):
    env = dict(os.environ)
    # The package this test imported, so the child finds the same build.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, EXAMPLE, *args], env=env, capture_output=True, text=True, timeout=300)


def test_example_only_changes_the_import():
    with open(EXAMPLE) as f:
        tree = ast.parse(f.read())
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    tessera_imports = [n for n in imports if isinstance(n, ast.Import) and n.names[0].name == "tessera"]
    assert len(tessera_imports) == 1 and tessera_imports[0].names[0].asname == "ort"
    assert not any(isinstance(n, ast.ImportFrom) and (n.module or "").startswith("tessera") for n in imports)
    # The code never names tessera again: everything goes through `ort`.
    assert not any(isinstance(n, ast.Name) and n.id == "tessera" for n in ast.walk(tree))


def test_example_runs_and_matches_reference():
    proc = run_example()
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "available providers: [" in out and "'CPUExecutionProvider']" in out  # OpenCL listed where a device exists
    assert "session providers: ['CPUExecutionProvider']" in out
    assert "input  image tensor(float) ['batch', 3, 32, 32]" in out
    assert "output probabilities tensor(float) ['batch', 10]" in out
    assert "graph: tiny_cnn | producer: tessera" in out
    assert "batch output shape: (4, 10)" in out
    assert "rows sum to 1: True" in out
    m = re.search(r"predicted classes: \[([0-9, ]+)\]", out)
    assert m and all(0 <= int(c) < 10 for c in m.group(1).split(","))
    assert "reference check: OK" in out


def test_example_with_explicit_model_path():
    proc = run_example(os.path.join(REPO, "models", "default", "model.onnx"))
    assert proc.returncode == 0, proc.stderr
    assert "batch output shape: (4, 10)" in proc.stdout
    assert "reference check" not in proc.stdout


def test_example_reports_missing_model():
    proc = run_example("/nonexistent/model.onnx")
    assert proc.returncode != 0
    assert "tessera.IoError" in proc.stderr and "/nonexistent/model.onnx" in proc.stderr


def test_docs_example_runs_verbatim():
    with open(os.path.join(REPO, "docs", "python.md")) as f:
        doc = f.read()
    m = re.search(r"```python\n(.*?)```", doc, re.S)
    assert m, "docs/python.md has a python example"
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-c", m.group(1)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(4, 10) [")
