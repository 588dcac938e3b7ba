// Runs the same script (run_backend_tests.js) through onnxruntime-node on the
// real ONNX Runtime 1.30 and on Tessera's libonnxruntime.so.1, each in its
// own process (both libraries have one soname, so a process holds only
// one), and compares their outputs. Where they differ beyond tolerance, the
// real ORT must be the one missing the test's reference output while
// Tessera meets it; any other difference fails.
//
// node compare_backends.js --lib LIB --tests DIR [--skip F]... [--tolerances F] [--scaled-atol S]
// With --scaled-atol S (the bench models' criterion) outputs agree when
// max|difference| <= S * max|ORT's output|; else within rtol 1e-3, atol 1e-5.
'use strict';

const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { SKIP } = require('./ort_package');

const RTOL = 1e-3;
const ATOL = 1e-5;

function runner(extra, tmp, tag, passThrough) {
  const dump = path.join(tmp, `${tag}.dump.json`);
  const report = path.join(tmp, `${tag}.report.json`);
  const r = spawnSync(process.execPath, [path.join(__dirname, 'run_backend_tests.js'), ...extra, ...passThrough,
    '--dump', dump, '--report', report], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status === SKIP) {
    console.log(r.stdout.trim());
    process.exit(SKIP);
  }
  const summary = (r.stdout || '').split('\n').find((l) => l.startsWith('onnxruntime-node on'));
  if (!summary) throw new Error(`runner (${tag}) failed: ${r.stderr}`);
  console.log(summary);
  return { dumps: JSON.parse(fs.readFileSync(dump, 'utf8')), report: JSON.parse(fs.readFileSync(report, 'utf8')) };
}

function close(a, b, scaled) {
  if (a.type !== b.type) return `types ${a.type} / ${b.type}`;
  if (a.dims.join(',') !== b.dims.join(',')) return `shapes [${a.dims}] / [${b.dims}]`;
  if (a.data.length !== b.data.length) return 'element counts differ';
  const isFloat = ['float32', 'float64', 'float16'].includes(a.type);
  const { halfToFloat } = require('./tensors');
  let rtol = RTOL, atol = ATOL;
  if (scaled > 0 && isFloat) {
    let peak = 0;
    for (const y of b.data) {
      const v = a.type === 'float16' ? halfToFloat(y) : y;
      if (v !== null && Number.isFinite(v)) peak = Math.max(peak, Math.abs(v));
    }
    [rtol, atol] = [0, scaled * peak];
  }
  for (let i = 0; i < a.data.length; ++i) {
    let x = a.data[i], y = b.data[i];
    if (!isFloat) {
      if (x !== y) return `element ${i}: ${x} / ${y}`;
      continue;
    }
    if (a.type === 'float16') [x, y] = [halfToFloat(x), halfToFloat(y)];
    if (x === null || y === null || Number.isNaN(x) || Number.isNaN(y)) {  // JSON writes NaN as null
      if (!((x === null || Number.isNaN(x)) && (y === null || Number.isNaN(y)))) return `element ${i}: ${x} / ${y}`;
    } else if (Math.abs(x - y) > atol + rtol * Math.abs(y)) {
      return `element ${i}: ${x} / ${y}`;
    }
  }
  return null;
}

function main() {
  const argv = process.argv.slice(2);
  const libAt = argv.indexOf('--lib');
  if (libAt < 0 || !argv.includes('--tests')) {
    console.error('usage: compare_backends.js --lib LIB --tests DIR [--skip F]... [--tolerances F]');
    return 2;
  }
  const lib = argv[libAt + 1];
  const rest = argv.filter((_, i) => i !== libAt && i !== libAt + 1);
  const scaledAt = argv.indexOf('--scaled-atol');
  const scaled = scaledAt >= 0 ? Number(argv[scaledAt + 1]) : 0;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-compare-'));
  try {
    const real = runner(['--real'], tmp, 'ort', rest);
    const ours = runner(['--lib', lib], tmp, 'tessera', rest);
    const realPassed = new Set(real.report.passed);
    const oursPassed = new Set(ours.report.passed);
    let both = 0, agree = 0;
    const explained = [], unexplained = [];
    for (const [test, outputs] of Object.entries(ours.dumps)) {
      const theirs = real.dumps[test];
      if (!theirs || Object.keys(theirs).length === 0 || Object.keys(outputs).length === 0) continue;
      ++both;
      let problem = null;
      for (const [name, t] of Object.entries(outputs)) {
        problem = theirs[name] ? close(t, theirs[name], scaled) : `output ${name} missing from ORT's`;
        if (problem) break;
      }
      if (!problem) ++agree;
      else if (!realPassed.has(test) && oursPassed.has(test)) explained.push(test);
      else unexplained.push(`${test}: ${problem}`);
    }
    const rule = scaled > 0 ? `max error <= ${scaled} x max|ORT output|` : `rtol ${RTOL}, atol ${ATOL}`;
    console.log(`both ran ${both} tests: outputs agree (${rule}) on ${agree}; ` +
                `${explained.length} differ where only Tessera meets the reference output`);
    for (const u of unexplained) console.log(`  DIFFER: ${u}`);
    return both > 0 && unexplained.length === 0 ? 0 : 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

process.exit(main());
