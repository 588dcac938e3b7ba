// TensorProto <-> onnxruntime-node tensors, and the backend-test comparison
// (|actual - expected| <= atol + rtol * |expected|, NaN matches NaN,
// infinities exactly, integers / bools / strings exactly, as Tessera's
// ir/tensor_compare.h).
'use strict';

// ONNX element type code -> binding type name and typed array.
const TYPES = {
  1: ['float32', Float32Array],
  2: ['uint8', Uint8Array],
  3: ['int8', Int8Array],
  4: ['uint16', Uint16Array],
  5: ['int16', Int16Array],
  6: ['int32', Int32Array],
  7: ['int64', BigInt64Array],
  8: ['string', null],
  9: ['bool', Uint8Array],
  10: ['float16', Uint16Array],  // raw bits
  11: ['float64', Float64Array],
  12: ['uint32', Uint32Array],
  13: ['uint64', BigUint64Array],
};

function values(proto) {
  switch (proto.dataType) {
    case 1: return proto.floats;
    case 11: return proto.doubles;
    case 7: return proto.int64s;
    case 12: return proto.uint64s.map(Number);
    case 13: return proto.uint64s;
    case 8: return proto.strings;
    default: return proto.ints;  // int32, int16, int8, uint16, uint8, bool, float16 bits
  }
}

function fromProto(ort, proto) {
  const entry = TYPES[proto.dataType];
  if (!entry) throw new Error(`element type ${proto.dataType} is not expressible in onnxruntime-node`);
  if (proto.external) throw new Error('external tensor data is not read by this runner');
  const [type, Ctor] = entry;
  let data;
  if (type === 'string') data = proto.strings;
  else if (proto.raw) data = new Ctor(new Uint8Array(proto.raw).buffer);
  else data = Ctor.from(values(proto));
  return new ort.Tensor(type, data, proto.dims);
}
fromProto.supports = (code) => code in TYPES;

function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

// Returns null when `actual` (an ort.Tensor) matches, else what differs.
// tol: {rtol, atol, scaled}; scaled > 0 replaces them by atol = scaled *
// max|expected|, rtol = 0.
function compare(actual, proto, tol) {
  if (!actual) return 'missing from the results';
  const [type, Ctor] = TYPES[proto.dataType];
  if (actual.type !== type) return `type ${actual.type}, expected ${type}`;
  const dims = Array.from(actual.dims);
  if (dims.length !== proto.dims.length || dims.some((d, i) => d !== proto.dims[i]))
    return `shape [${dims}], expected [${proto.dims}]`;
  let expected;
  if (type === 'string') expected = proto.strings;
  else if (proto.raw) expected = new Ctor(new Uint8Array(proto.raw).buffer);
  else expected = Ctor.from(values(proto));
  const got = actual.data;
  if (got.length !== expected.length) return `${got.length} elements, expected ${expected.length}`;
  const isFloat = type === 'float32' || type === 'float64' || type === 'float16';
  let { rtol, atol } = tol;
  if (tol.scaled > 0 && isFloat) {
    let peak = 0;
    for (let i = 0; i < expected.length; ++i) {
      const e = type === 'float16' ? halfToFloat(expected[i]) : expected[i];
      if (Number.isFinite(e)) peak = Math.max(peak, Math.abs(e));
    }
    atol = tol.scaled * peak;
    rtol = 0;
  }
  for (let i = 0; i < got.length; ++i) {
    if (!isFloat) {
      if (got[i] !== expected[i]) return `element ${i} is ${got[i]}, expected ${expected[i]}`;
      continue;
    }
    const a = type === 'float16' ? halfToFloat(got[i]) : got[i];
    const e = type === 'float16' ? halfToFloat(expected[i]) : expected[i];
    if (Number.isNaN(a) || Number.isNaN(e)) {
      if (!(Number.isNaN(a) && Number.isNaN(e))) return `element ${i} is ${a}, expected ${e}`;
    } else if (!Number.isFinite(a) || !Number.isFinite(e)) {
      if (a !== e) return `element ${i} is ${a}, expected ${e}`;
    } else if (Math.abs(a - e) > atol + rtol * Math.abs(e)) {
      return `element ${i} is ${a}, expected ${e} (rtol ${rtol}, atol ${atol})`;
    }
  }
  return null;
}

module.exports = { fromProto, compare, halfToFloat, TYPES };
