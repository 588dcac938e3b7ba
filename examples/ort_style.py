"""An onnxruntime-style inference script. The only change from the
onnxruntime version is the import line: `import tessera as ort` instead of
`import onnxruntime as ort`.

    PYTHONPATH=build/python /usr/bin/python3 examples/ort_style.py [MODEL]

Without MODEL it runs the repository's default model (models/default) and
checks the result against the reference output stored next to it.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

import tessera as ort  # was: import onnxruntime as ort

here = os.path.dirname(os.path.abspath(__file__))
model_dir = os.path.join(here, "..", "models", "default")
model_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(model_dir, "model.onnx")

sess_options = ort.SessionOptions()
sess_options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess_options.intra_op_num_threads = 2
sess_options.log_severity_level = 3

print("available providers:", ort.get_available_providers())
session = ort.InferenceSession(model_path, sess_options, providers=["CPUExecutionProvider"])
print("session providers:", session.get_providers())

for inp in session.get_inputs():
    print(f"input  {inp.name} {inp.type} {inp.shape}")
for out in session.get_outputs():
    print(f"output {out.name} {out.type} {out.shape}")
meta = session.get_modelmeta()
print("graph:", meta.graph_name, "| producer:", meta.producer_name)

input_name = session.get_inputs()[0].name
output_name = session.get_outputs()[0].name

# A batch of 4 random images: the batch dimension is symbolic, any size works.
rng = np.random.default_rng(0)
batch = rng.standard_normal((4, 3, 32, 32)).astype(np.float32)
probs = session.run([output_name], {input_name: batch})[0]
print("batch output shape:", probs.shape)
print("predicted classes:", probs.argmax(axis=1).tolist())
print("rows sum to 1:", bool(np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)))

# Compare with the reference output stored with the model.
if len(sys.argv) <= 1:
    data_dir = os.path.join(model_dir, "test_data_set_0")
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(data_dir, "input_0.pb")))
    expected = numpy_helper.to_array(onnx.load_tensor(os.path.join(data_dir, "output_0.pb")))
    (result,) = session.run(None, {input_name: x})
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-6)
    print("reference check: OK (max abs diff %.3g)" % float(np.abs(result - expected).max()))
