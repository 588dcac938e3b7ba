#!/usr/bin/python3
# Accuracy of the int8 bench models (bench/make_int8.sh) against their fp32
# models, for Tessera and for ONNX Runtime on the same int8 files: cosine
# similarity of the first output, and for classifiers the top-1 agreement
# with the fp32 model, over EVAL inputs drawn as the bench input is
# (standard normal, seed 2: neither the bench input nor the calibration set).
# bert_base takes its bench input only.
#
#   ORT_NODE_PATH=/tmp/ort /usr/bin/python3 bench/int8_accuracy.py OUT_DIR [EVAL=8]
#
# Needs the built Python module (build/python) and node with
# onnxruntime-node (ORT_NODE_PATH/node_modules).
import glob, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import numpy_helper

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
sys.path.insert(0, os.path.join(root, 'build', 'python'))
import tessera

out_dir = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 8
node_path = os.path.join(os.environ.get('ORT_NODE_PATH', '/tmp/ort'), 'node_modules')
runner = os.path.join(root, 'tests', 'support', 'ort_run.js')


def bench_inputs(model_dir):
    feeds = {}
    for f in sorted(glob.glob(os.path.join(model_dir, 'test_data_set_0', 'input_*.pb'))):
        t = onnx.load_tensor(f)
        feeds[t.name] = numpy_helper.to_array(t)
    return feeds


def eval_feeds(model_dir):
    bench = bench_inputs(model_dir)
    if any(v.dtype != np.float32 for v in bench.values()):
        return [bench]
    rng = np.random.default_rng(2)
    return [{k: rng.standard_normal(v.shape, dtype=np.float32) for k, v in bench.items()} for _ in range(count)]


def ort_first_output(model, feed):
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for k, v in feed.items():
            np.save(os.path.join(tmp, k + '.npy'), v)
            args.append(f'{k}={os.path.join(tmp, k + ".npy")}')
        subprocess.run(['node', runner, model, tmp] + args, check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, NODE_PATH=node_path))
        return np.load(os.path.join(tmp, 'output_0.npy'))


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


print('| model | inputs | Tessera cosine | ORT cosine | Tessera top-1 | ORT top-1 | fp32 MB | int8 MB |')
print('|---|---:|---:|---:|---:|---:|---:|---:|')
for q in sorted(glob.glob(os.path.join(out_dir, '*_int8'))):
    name = os.path.basename(q)[:-5]
    f = os.path.join(out_dir, name)
    if not os.path.exists(os.path.join(f, 'model.onnx')):
        continue
    fp32 = tessera.InferenceSession(os.path.join(f, 'model.onnx'))
    int8 = tessera.InferenceSession(os.path.join(q, 'model.onnx'))
    cos_t, cos_o, top_t, top_o = [], [], [], []
    feeds = eval_feeds(q)
    for feed in feeds:
        ref = fp32.run(None, feed)[0]
        got = int8.run(None, feed)[0]
        ort = ort_first_output(os.path.join(q, 'model.onnx'), feed)
        cos_t.append(cosine(ref, got))
        cos_o.append(cosine(ref, ort))
        if ref.ndim == 2:  # logits [1, classes]
            top_t.append(float(np.argmax(ref) == np.argmax(got)))
            top_o.append(float(np.argmax(ref) == np.argmax(ort)))
    top = lambda v: f'{np.mean(v):.2f}' if v else '-'
    mb = lambda d: os.path.getsize(os.path.join(d, 'model.onnx')) / 1e6
    print(f'| {name} | {len(feeds)} | {np.mean(cos_t):.5f} | {np.mean(cos_o):.5f} | {top(top_t)} | {top(top_o)} '
          f'| {mb(f):.1f} | {mb(q):.1f} |')
