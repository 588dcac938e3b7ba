"""tessera.validate / tessera.plan and the `tessera validate` CLI: models
exported from PyTorch (when Debian's python3-torch is installed) checked
against PyTorch's own outputs, plus the error paths."""
import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import tessera
import tiny_models as tm


def _cli():
    """The `tessera` binary of the build tree this package comes from
    (<build>/python/tessera -> <build>/bin/tessera)."""
    here = os.path.dirname(os.path.abspath(tessera.__file__))
    path = os.path.normpath(os.path.join(here, "..", "..", "bin", "tessera"))
    return path if os.access(path, os.X_OK) else None


def run_cli(*args):
    exe = _cli()
    if exe is None:
        pytest.skip("the tessera binary is not next to the package (not a build tree)")
    return subprocess.run([exe, "validate", *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def add_model(tmp_path):
    """z = x + y, w = 2x over float [n, 4]."""
    path = tmp_path / "add.onnx"
    path.write_bytes(tm.add_model())
    return str(path)


def add_reference(n=3):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = rng.standard_normal((n, 4)).astype(np.float32)
    return {"x": x, "y": y, "z": x + y, "w": x * 2}


# ------------------------------------------------------------ tiny models


def test_plan_lists_nodes_without_running(add_model):
    placement = tessera.plan(add_model)
    assert [(p["node"], p["op_type"]) for p in placement] == [("add", "Add"), ("double", "Mul")]
    assert all(p["provider"] == "CPUExecutionProvider" and p["domain"] in ("", "ai.onnx") for p in placement)
    assert tessera.plan(add_model, providers=["CPUExecutionProvider"]) == placement


def test_validate_dict_npz_and_folder(add_model, tmp_path):
    ref = add_reference()
    report = tessera.validate(add_model, ref)
    assert report.passed and bool(report)
    assert set(report.outputs) == {"z", "w"}
    for r in report.outputs.values():
        assert r["checked"] and r["passed"] and r["elements"] == 12 and r["mismatch_fraction"] == 0.0
        assert r["max_abs_error"] <= 1e-6
    assert "PASSED" in str(report)
    assert report.to_dict()["passed"] is True

    npz = tmp_path / "ref.npz"
    np.savez(npz, **ref)
    assert tessera.validate(add_model, str(npz)).passed
    folder = tmp_path / "ref"
    (folder / "test_data_set_0").mkdir(parents=True)
    for i, name in enumerate(["x", "y"]):
        np.save(folder / "test_data_set_0" / f"input_{i}.npy", ref[name])
    for i, name in enumerate(["z", "w"]):
        np.save(folder / "test_data_set_0" / f"output_{i}.npy", ref[name])
    assert tessera.validate(add_model, folder).passed

    for reference in (npz, folder):
        proc = run_cli(add_model, "--reference", reference)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "PASS" in proc.stdout
        proc = run_cli(add_model, "--reference", reference, "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["passed"] is True and doc["rtol"] == 1e-3 and doc["atol"] == 1e-5
        assert {o["name"] for o in doc["outputs"]} == {"z", "w"}


def test_mismatch_is_reported(add_model, tmp_path):
    ref = add_reference()
    ref["z"] = ref["z"].copy()
    ref["z"][0, :2] += 1.0  # 2 of 12 elements off
    report = tessera.validate(add_model, ref)
    assert not report.passed
    z = report["z"]
    assert not z["passed"] and z["mismatched"] == 2
    assert z["mismatch_fraction"] == pytest.approx(2 / 12)
    assert z["max_abs_error"] == pytest.approx(1.0, rel=1e-5)
    assert report["w"]["passed"]
    assert "FAIL" in str(report)
    # Loose enough tolerances accept it.
    assert tessera.validate(add_model, ref, atol=2.0).passed

    npz = tmp_path / "bad.npz"
    np.savez(npz, **ref)
    proc = run_cli(add_model, "--reference", npz, "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    z = next(o for o in doc["outputs"] if o["name"] == "z")
    assert doc["passed"] is False and z["passed"] is False and z["mismatched"] == 2
    assert z["mismatch_fraction"] == pytest.approx(2 / 12, rel=1e-4)
    assert run_cli(add_model, "--reference", npz, "--atol", "2").returncode == 0


def test_missing_reference_input(add_model, tmp_path):
    ref = add_reference()
    del ref["y"]
    with pytest.raises(ValueError, match="no value for model input 'y'"):
        tessera.validate(add_model, ref)
    npz = tmp_path / "ref.npz"
    np.savez(npz, **ref)
    proc = run_cli(add_model, "--reference", npz)
    assert proc.returncode == 1 and "no value for model input 'y'" in proc.stderr


def test_wrong_shape(add_model, tmp_path):
    ref = add_reference()
    ref["x"] = np.zeros((3, 5), np.float32)
    with pytest.raises(ValueError, match="input 'x' has shape"):
        tessera.validate(add_model, ref)
    npz = tmp_path / "in.npz"
    np.savez(npz, **ref)
    proc = run_cli(add_model, "--reference", npz)
    assert proc.returncode == 1 and "error" in proc.stderr

    # An expected output of the wrong shape fails that output.
    ref = add_reference()
    ref["w"] = ref["w"][:2]
    report = tessera.validate(add_model, ref)
    assert not report.passed and not report["w"]["passed"] and report["z"]["passed"]
    assert "shape" in report["w"]["message"] and report["w"]["mismatch_fraction"] == 1.0
    npz = tmp_path / "out.npz"
    np.savez(npz, **ref)
    proc = run_cli(add_model, "--reference", npz)
    assert proc.returncode == 1 and "shape" in proc.stdout


def test_unknown_array_and_compressed_npz(add_model, tmp_path):
    ref = add_reference()
    with pytest.raises(ValueError, match="'q' in the reference is neither"):
        tessera.validate(add_model, dict(ref, q=np.zeros(1)))
    npz = tmp_path / "c.npz"
    np.savez_compressed(npz, **ref)
    proc = run_cli(add_model, "--reference", npz)
    assert proc.returncode == 1
    assert "savez_compressed" in proc.stderr and "numpy.savez" in proc.stderr
    # Python reads compressed archives itself.
    assert tessera.validate(add_model, str(npz)).passed


# --------------------------------------------------------- PyTorch exports


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Exports four small PyTorch models (opset 17) and saves each one's
    inputs and PyTorch outputs: {name: (model path, reference .npz, folder)}."""
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    root = tmp_path_factory.mktemp("torch_exports")

    class Branch(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2 + 1
            return x.abs() - 3

    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
    cases = {
        "squeezenet": (torchvision.models.squeezenet1_1(weights=None), [torch.randn(1, 3, 64, 64)], ["logits"]),
        "transformer": (torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False),
                        [torch.randn(2, 5, 32)], ["y"]),
        "lstm": (torch.nn.LSTM(8, 16, num_layers=2, batch_first=True), [torch.randn(3, 7, 8)], ["y", "h", "c"]),
        "if": (torch.jit.script(Branch()), [torch.randn(4, 6).abs()], ["y"]),
    }
    out = {}
    for name, (model, inputs, output_names) in cases.items():
        model.eval()
        input_names = [f"input{i}" for i in range(len(inputs))]
        path = root / f"{name}.onnx"
        # Exported with autograd on: under no_grad, PyTorch 1.13 takes the
        # fused TransformerEncoder fast path, which has no ONNX export.
        with warnings.catch_warnings():  # the exporter's tracer warnings
            warnings.simplefilter("ignore")
            torch.onnx.export(model, tuple(inputs), str(path), opset_version=17, input_names=input_names,
                              output_names=output_names)
        with torch.no_grad():
            result = model(*inputs)
        flat = []
        for r in result if isinstance(result, tuple) else (result,):
            flat.extend(r if isinstance(r, tuple) else (r,))
        arrays = {n: t.numpy() for n, t in zip(input_names, inputs)}
        arrays.update({n: t.numpy() for n, t in zip(output_names, flat)})
        npz = root / f"{name}.npz"
        np.savez(npz, **arrays)
        folder = root / name
        folder.mkdir()
        for i, n in enumerate(input_names):
            np.save(folder / f"input_{i}.npy", arrays[n])
        for i, n in enumerate(output_names):
            np.save(folder / f"output_{i}.npy", arrays[n])
        out[name] = (str(path), str(npz), str(folder), arrays)
    return out


@pytest.mark.parametrize("name", ["squeezenet", "transformer", "lstm", "if"])
def test_pytorch_export_matches(exported, name):
    path, npz, folder, arrays = exported[name]
    report = tessera.validate(path, arrays)
    assert report.passed, str(report)
    assert all(r["checked"] for r in report.outputs.values())
    assert tessera.validate(path, npz).passed
    assert tessera.plan(path)
    proc = run_cli(path, "--reference", npz)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli(path, "--reference", folder, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["passed"] is True


def test_pytorch_if_other_branch(exported):
    """The exported `If` follows the data: negative inputs take the else branch."""
    path, _, _, arrays = exported["if"]
    x = -arrays["input0"]
    expected = np.abs(x) - 3
    assert tessera.validate(path, {"input0": x, "y": expected}).passed
    assert not tessera.validate(path, {"input0": x, "y": x * 2 + 1}).passed


# ------------------------------------------------ Python and the CLI agree


def test_python_and_cli_agree_at_the_tolerance_edge_and_on_nan_inf(add_model, tmp_path):
    """tessera.validate() and `tessera validate` use the one C++ rule:
    |actual - expected| <= atol + rtol * |expected|, NaN matches only NaN,
    an infinity only the same infinity."""
    rtol, atol = 1e-3, 1e-5
    x = np.ones((4, 4), np.float32)
    x[2] = [np.nan, np.inf, -np.inf, 3.0]
    y = np.zeros((4, 4), np.float32)
    z = (x + y).copy()
    # Rows 0-1: the float32 neighbours of the largest expected value 1.0 is
    # within tolerance of, (1 + atol) / (1 - rtol): some inside, some out.
    edge = np.float32((1 + atol) / (1 - rtol))
    near = [edge]
    for _ in range(4):
        near.insert(0, np.nextafter(near[0], np.float32(0)))
        near.append(np.nextafter(near[-1], np.float32(2)))
    z[0:2] = np.array(near[:8], np.float32).reshape(2, 4)
    z[2] = [np.nan, np.inf, np.inf, np.nan]  # actual nan, inf, -inf, 3
    z[3] = [np.inf, -np.inf, 1.0, 1.0]  # actual 1, 1, 1, 1
    e = z[0:2].astype(np.float64)
    outside_edge = int(np.count_nonzero(np.abs(1.0 - e) > atol + rtol * np.abs(e)))
    assert 0 < outside_edge < 8
    ref = {"x": x, "y": y, "z": z, "w": x * 2}

    report = tessera.validate(add_model, ref, rtol=rtol, atol=atol)
    assert report["z"]["mismatched"] == outside_edge + 4 and not report["z"]["passed"]
    assert report["w"]["passed"] and report["w"]["mismatched"] == 0

    npz = tmp_path / "edge.npz"
    np.savez(npz, **ref)
    proc = run_cli(add_model, "--reference", npz, "--json", "--rtol", rtol, "--atol", atol)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for out in json.loads(proc.stdout)["outputs"]:
        mine = report[out["name"]]
        for key in ("checked", "elements", "mismatched", "passed", "message"):
            assert out[key] == mine[key], (out["name"], key)
        for key in ("max_abs_error", "max_rel_error", "mismatch_fraction"):
            assert out[key] == pytest.approx(mine[key], rel=1e-5), (out["name"], key)
