#!/usr/bin/python3
# A static QDQ model from a float CNN, for measuring the int8 path
# (docs/quantization.md) until `tessera quantize` exists: per-channel
# symmetric int8 weights, uint8 activations calibrated by min/max on one
# input, QuantizeLinear/DequantizeLinear around every Conv's input and
# output (after its Relu where one follows), MaxPool outputs sharing their
# input's parameters, float biases kept. With --ops, also around the
# activations of those ops (their computed inputs and their output, after
# a sole Relu reader as for Conv): add (residual Adds), mul, concat,
# gap (GlobalAveragePool), sigmoid; --ops all is every one of them. The
# result is a standard ONNX QDQ model that ONNX Runtime runs too.
#
#   /usr/bin/python3 bench/make_qdq.py FLOAT.onnx OUT.onnx INPUT.pb [--ops add,concat,...|all]
#
# Needs Debian's python3-onnx and python3-numpy, and the built Python module
# (build/python) for the calibration run.
import os, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build', 'python'))
import tessera

EXTRA_OPS = {'add': 'Add', 'mul': 'Mul', 'concat': 'Concat', 'gap': 'GlobalAveragePool', 'sigmoid': 'Sigmoid'}
args = sys.argv[1:]
extra = set()
if '--ops' in args:
    k = args.index('--ops')
    names = args[k + 1].split(',') if k + 1 < len(args) else []
    del args[k:k + 2]
    if names == ['all']: names = list(EXTRA_OPS)
    if not names or any(n not in EXTRA_OPS for n in names):
        sys.exit('--ops takes a comma-separated list of ' + ', '.join(EXTRA_OPS) + ', or all')
    extra = {EXTRA_OPS[n] for n in names}
if len(args) != 3:
    sys.exit('usage: bench/make_qdq.py FLOAT.onnx OUT.onnx INPUT.pb [--ops add,mul,concat,gap,sigmoid|all]')

src, dst, inp = args
m = onnx.load(src)
g = m.graph
init = {t.name: t for t in g.initializer}
constants = set(init) | {o for n in g.node if n.op_type == 'Constant' for o in n.output}
convs = [n for n in g.node if n.op_type == 'Conv']
# The ops whose activations are quantized: every Conv, and those --ops names.
quantized_ops = [n for n in g.node if n.op_type in extra]
def computed(names): return [v for v in names if v and v not in constants]
acts = sorted({n.input[0] for n in convs} | {n.output[0] for n in convs} |
              {v for n in quantized_ops for v in computed(n.input) + list(n.output[:1])})
for n in g.node:
    if n.op_type == 'Relu': acts.append(n.output[0])
    if n.op_type == 'MaxPool': acts.append(n.input[0])
# Conv outputs read through a Relu: calibrate the Relu's output instead.
consumers = {}
for n in g.node:
    for i in n.input: consumers.setdefault(i, []).append(n)
# Calibration: the float model with every activation of interest as output.
cal = onnx.ModelProto(); cal.CopyFrom(m)
names = set(o.name for o in cal.graph.output)
for a in acts:
    if a not in names: cal.graph.output.append(helper.make_tensor_value_info(a, TensorProto.FLOAT, None))
import tempfile
cal_path = os.path.join(tempfile.mkdtemp(), 'calibration.onnx')
onnx.save(cal, cal_path)
x = numpy_helper.to_array(onnx.load_tensor(inp))
s = tessera.InferenceSession(cal_path, providers=['CPUExecutionProvider'])
outs = dict(zip([o.name for o in s.get_outputs()], s.run(None, {g.input[0].name: x})))
# MaxPool's output takes its input's parameters, as ORT's quantizer does.
share = {n.output[0]: n.input[0] for n in g.node if n.op_type == 'MaxPool'}
def qparams(a):
    while a in share: a = share[a]
    lo, hi = min(0.0, float(outs[a].min())), max(0.0, float(outs[a].max()))
    scale = (hi - lo) / 255.0 or 1.0
    zero = int(round(-lo / scale))
    return np.float32(scale), np.uint8(min(255, max(0, zero)))
new_nodes, new_init = [], list(g.initializer)
qdq_of = {}
def qdq(a):
    if a in qdq_of: return qdq_of[a]
    sc, zp = qparams(a)
    sn, zn = a + '_s', a + '_z'
    new_init.extend([numpy_helper.from_array(np.array(sc, np.float32), sn), numpy_helper.from_array(np.array(zp, np.uint8), zn)])
    new_nodes.append(helper.make_node('QuantizeLinear', [a, sn, zn], [a + '_q']))
    new_nodes.append(helper.make_node('DequantizeLinear', [a + '_q', sn, zn], [a + '_dq']))
    qdq_of[a] = a + '_dq'
    return qdq_of[a]
relu_after = {n.output[0] for n in convs + quantized_ops
              if len(consumers.get(n.output[0], [])) == 1 and consumers[n.output[0]][0].op_type == 'Relu'}
for n in g.node:
    if n.op_type != 'Conv':
        # readers of a quantized output read its dequantized form; the
        # --ops ops read every computed input quantized
        ins = [qdq(i) if n.op_type in extra and i in computed(n.input) else qdq_of.get(i, i) for i in n.input]
        n2 = helper.make_node(n.op_type, ins, list(n.output), name=n.name)
        n2.attribute.extend(n.attribute); n2.domain = n.domain
        new_nodes.append(n2)
        if n.op_type == 'Relu' and n.input[0] in relu_after: qdq(n.output[0])
        if n.op_type in extra and n.output[0] not in relu_after: qdq(n.output[0])
        continue
    w = numpy_helper.to_array(init[n.input[1]])
    ws = np.maximum(np.abs(w).reshape(w.shape[0], -1).max(axis=1) / 127.0, 1e-8).astype(np.float32)
    wq = np.clip(np.round(w / ws.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
    wn = n.input[1]
    new_init.extend([numpy_helper.from_array(wq, wn + '_q'), numpy_helper.from_array(ws, wn + '_s'),
                     numpy_helper.from_array(np.zeros(w.shape[0], np.int8), wn + '_z')])
    new_nodes.append(helper.make_node('DequantizeLinear', [wn + '_q', wn + '_s', wn + '_z'], [wn + '_dq'], axis=0))
    xin = qdq(n.input[0])
    c = helper.make_node('Conv', [xin, wn + '_dq'] + list(n.input[2:]), list(n.output), name=n.name)
    c.attribute.extend(n.attribute)
    new_nodes.append(c)
    if n.output[0] not in relu_after: qdq(n.output[0])
# Drop the float weights of convs; keep the rest.
conv_w = {n.input[1] for n in convs}
new_init = [t for t in new_init if t.name not in conv_w]
del g.node[:]; g.node.extend(new_nodes)
del g.initializer[:]; g.initializer.extend(new_init)
onnx.checker.check_model(m)
onnx.save(m, dst)
print('wrote', dst, len(m.graph.node), 'nodes')
