#!/usr/bin/env node
// Runs a model on ONNX Runtime (onnxruntime-node, CPU EP) as a test oracle
// (quantization tests, tests/contrib's references):
//   node ort_run.js MODEL.onnx OUT_DIR NAME=IN.npy ...
// writes OUT_DIR/output_K.npy for each graph output, in graph order.
// float32/64, float16, int64/32/16, uint16, int8, uint8 and bool .npy files (C order,
// little-endian) only.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const NPY_TYPES = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '<i4': ['int32', Int32Array], '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array], '|b1': ['bool', Uint8Array], '<i2': ['int16', Int16Array],
  '<u2': ['uint16', Uint16Array] };

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12);
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order is not supported`);
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const t = NPY_TYPES[descr];
  if (!t) throw new Error(`${file}: dtype ${descr} is not supported`);
  const body = buf.subarray(start + headerLen);
  const copy = body.buffer.slice(body.byteOffset, body.byteOffset + body.length);
  return new ort.Tensor(t[0], new t[1](copy), dims);
}

function writeNpy(file, tensor) {
  const entry = Object.entries(NPY_TYPES).find(([, v]) => v[0] === tensor.type);
  if (!entry) throw new Error(`output type ${tensor.type} is not supported`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${entry[0]}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

async function main() {
  const [model, outDir, ...feeds] = process.argv.slice(2);
  if (!model || !outDir) throw new Error('usage: node ort_run.js MODEL.onnx OUT_DIR NAME=IN.npy ...');
  const inputs = {};
  for (const f of feeds) {
    const eq = f.indexOf('=');
    inputs[f.slice(0, eq)] = readNpy(f.slice(eq + 1));
  }
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
  const results = await session.run(inputs);
  session.outputNames.forEach((name, k) => {
    if (results[name]) writeNpy(path.join(outDir, `output_${k}.npy`), results[name]);
  });
  process.stdout.write(`ort ${ort.env.versions ? JSON.stringify(ort.env.versions) : ''} ran ${model}\n`);
}

main().catch((e) => { process.stderr.write(`ort_run: ${e.message}\n`); process.exit(1); });
