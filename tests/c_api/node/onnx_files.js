// Reads what the ONNX backend tests store, without an ONNX package: the
// tensor files (TensorProto) and, from model.onnx, the graph's input and
// output types, enough to tell which tests onnxruntime-node can express
// (tensor inputs and outputs of the element types it has).
'use strict';

const fs = require('fs');

class Reader {
  constructor(buf, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }
  done() { return this.pos >= this.end; }
  varint() {  // as BigInt: int64 fields need all 64 bits
    let result = 0n, shift = 0n;
    for (;;) {
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  }
  key() {
    const k = Number(this.varint());
    return [k >>> 3, k & 7];
  }
  bytes() {
    const n = Number(this.varint());
    const start = this.pos;
    this.pos += n;
    return [start, this.pos];
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

// Repeated scalar field, packed or not: calls fn(reader) per element.
function repeated(r, wire, elementWire, fn) {
  if (wire === 2 && elementWire !== 2) {
    const [s, e] = r.bytes();
    const inner = new Reader(r.buf, s, e);
    while (!inner.done()) fn(inner);
  } else {
    fn(r);
  }
}

const asInt64 = (v) => BigInt.asIntN(64, v);

// TensorProto -> {name, dataType, dims, raw (Buffer) | values (array)}.
function parseTensor(buf, start = 0, end = buf.length) {
  const r = new Reader(buf, start, end);
  const t = { name: '', dataType: 0, dims: [], raw: null, floats: [], ints: [], int64s: [], doubles: [], uint64s: [],
    strings: [], external: false };
  while (!r.done()) {
    const [field, wire] = r.key();
    switch (field) {
      case 1: repeated(r, wire, 0, (x) => t.dims.push(Number(asInt64(x.varint())))); break;
      case 2: t.dataType = Number(r.varint()); break;
      case 4: repeated(r, wire, 5, (x) => { t.floats.push(x.buf.readFloatLE(x.pos)); x.pos += 4; }); break;
      case 5: repeated(r, wire, 0, (x) => t.ints.push(Number(BigInt.asIntN(32, x.varint())))); break;
      case 6: { const [s, e] = r.bytes(); t.strings.push(buf.toString('utf8', s, e)); break; }
      case 7: repeated(r, wire, 0, (x) => t.int64s.push(asInt64(x.varint()))); break;
      case 8: { const [s, e] = r.bytes(); t.name = buf.toString('utf8', s, e); break; }
      case 9: { const [s, e] = r.bytes(); t.raw = Buffer.from(buf.subarray(s, e)); break; }
      case 10: repeated(r, wire, 1, (x) => { t.doubles.push(x.buf.readDoubleLE(x.pos)); x.pos += 8; }); break;
      case 11: repeated(r, wire, 0, (x) => t.uint64s.push(BigInt.asUintN(64, x.varint()))); break;
      case 13: t.external = true; r.skip(wire); break;
      default: r.skip(wire);
    }
  }
  return t;
}

function readTensorFile(path) { return parseTensor(fs.readFileSync(path)); }

// TypeProto -> {kind: 'tensor'|'other', elemType}.
function parseType(buf, start, end) {
  const r = new Reader(buf, start, end);
  let result = { kind: 'other', elemType: 0 };
  while (!r.done()) {
    const [field, wire] = r.key();
    if (field === 1 && wire === 2) {
      const [s, e] = r.bytes();
      const inner = new Reader(buf, s, e);
      let elemType = 0;
      while (!inner.done()) {
        const [f, w] = inner.key();
        if (f === 1) elemType = Number(inner.varint());
        else inner.skip(w);
      }
      result = { kind: 'tensor', elemType };
    } else {
      r.skip(wire);
    }
  }
  return result;
}

function parseValueInfo(buf, start, end) {
  const r = new Reader(buf, start, end);
  const info = { name: '', type: { kind: 'other', elemType: 0 } };
  while (!r.done()) {
    const [field, wire] = r.key();
    if (field === 1) { const [s, e] = r.bytes(); info.name = buf.toString('utf8', s, e); }
    else if (field === 2) { const [s, e] = r.bytes(); info.type = parseType(buf, s, e); }
    else r.skip(wire);
  }
  return info;
}

// model.onnx -> {inputs, outputs, initializers: Set} of the main graph.
function readModelSignature(path) {
  const buf = fs.readFileSync(path);
  const r = new Reader(buf);
  const sig = { inputs: [], outputs: [], initializers: new Set() };
  while (!r.done()) {
    const [field, wire] = r.key();
    if (field !== 7) { r.skip(wire); continue; }
    const [gs, ge] = r.bytes();
    const g = new Reader(buf, gs, ge);
    while (!g.done()) {
      const [f, w] = g.key();
      if (f === 11 || f === 12) {
        const [s, e] = g.bytes();
        (f === 11 ? sig.inputs : sig.outputs).push(parseValueInfo(buf, s, e));
      } else if (f === 5) {
        const [s, e] = g.bytes();
        sig.initializers.add(parseTensor(buf, s, e).name);
      } else {
        g.skip(w);
      }
    }
  }
  return sig;
}

module.exports = { readTensorFile, readModelSignature };
