// Runs ONNX backend tests (model.onnx + test_data_set_*/{input,output}_*.pb)
// through npm onnxruntime-node, on Tessera's libonnxruntime.so.1 (--lib) or
// on the real ORT (--real), and checks the result against Tessera's own
// runner: the tests that pass here must be exactly those that
// `tessera conformance` passes on the same folder (--tessera CLI: it is run
// with the same skip and tolerance files), or the expected-pass list
// (--expected), among the tests the binding can express (tensor inputs and
// outputs of the types it has). Same comparison rules as `tessera
// conformance`.
//
// node run_backend_tests.js (--lib LIB | --real) --tests DIR [--tessera CLI | --expected F]
//      [--skip F]... [--tolerances F] [--rtol R] [--atol A] [--scaled-atol S]
//      [--report OUT.json] [--dump OUT.json]
// --scaled-atol S: an output passes when max|error| <= S * max|expected|
// (the bench models' criterion). --dump writes every output of each test's
// first data set (compare_backends.js compares two such dumps). Without
// --expected, every expressible test must pass.
'use strict';

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { loadOrt } = require('./ort_package');
const { readModelSignature, readTensorFile } = require('./onnx_files');
const { fromProto, compare } = require('./tensors');

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--real') args.real = true;
    else if (a === '--skip') (args.skip = args.skip || []).push(argv[++i]);
    else if (a.startsWith('--')) args[a.slice(2)] = argv[++i];
  }
  if (!args.tests || (!args.lib && !args.real)) {
    console.error('usage: run_backend_tests.js (--lib LIB | --real) --tests DIR [--expected F] [--skip F] ' +
                  '[--tolerances F] [--report OUT.json]');
    process.exit(2);
  }
  return args;
}

// "name [rest]" lines, '#' comments.
function readList(file) {
  if (!file) return new Map();
  const out = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const text = line.replace(/#.*/, '').trim();
    if (!text) continue;
    const [name, ...rest] = text.split(/\s+/);
    out.set(name, rest);
  }
  return out;
}

function expressible(sig) {
  const feeds = sig.inputs.filter((i) => !sig.initializers.has(i.name));
  for (const v of [...feeds, ...sig.outputs]) {
    if (v.type.kind !== 'tensor' || !fromProto.supports(v.type.elemType)) return false;
  }
  return sig.outputs.length > 0;
}

// A JSON-able copy of an output (BigInts as strings).
function dumpTensor(t) {
  return { type: t.type, dims: Array.from(t.dims), data: Array.from(t.data, (x) => (typeof x === 'bigint' ? String(x) : x)) };
}

async function runTest(ort, dir, sig, tol, dump) {
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
  try {
    const feedNames = sig.inputs.filter((i) => !sig.initializers.has(i.name)).map((i) => i.name);
    const sets = fs.readdirSync(dir).filter((d) => d.startsWith('test_data_set_')).sort();
    if (sets.length === 0) throw new Error('no test_data_set_*');
    for (const set of sets) {
      const files = fs.readdirSync(path.join(dir, set));
      const count = (prefix) => files.filter((f) => f.startsWith(prefix) && f.endsWith('.pb')).length;
      const feeds = {};
      for (let i = 0; i < count('input_'); ++i) {
        const proto = readTensorFile(path.join(dir, set, `input_${i}.pb`));
        feeds[proto.name || feedNames[i]] = fromProto(ort, proto);
      }
      const expected = [];
      for (let i = 0; i < count('output_'); ++i) {
        const proto = readTensorFile(path.join(dir, set, `output_${i}.pb`));
        expected.push([proto.name || sig.outputs[i].name, proto]);
      }
      const results = await session.run(feeds, expected.map(([name]) => name));
      if (dump && set === sets[0]) for (const [name] of expected) if (results[name]) dump[name] = dumpTensor(results[name]);
      for (const [name, proto] of expected) {
        const problem = compare(results[name], proto, tol);
        if (problem) throw new Error(`${set} output '${name}': ${problem}`);
      }
    }
  } finally {
    await session.release();
  }
}

// The tests `tessera conformance` passes on the same folder, with the same
// skip and tolerance files (its default providers, as the binding's).
function tesseraPasses(args) {
  const report = path.join(fs.mkdtempSync(path.join(require('os').tmpdir(), 'tessera-conformance-')), 'report.json');
  const cli = [args.tessera, 'conformance', args.tests, '--report', report, '--quiet'];
  for (const f of args.skip || []) cli.push('--skip', f);
  if (args.tolerances) cli.push('--tolerances', args.tolerances);
  if (args.rtol) cli.push('--rtol', args.rtol);
  if (args.atol) cli.push('--atol', args.atol);
  if (args['scaled-atol']) cli.push('--scaled-atol', args['scaled-atol']);
  spawnSync(cli[0], cli.slice(1), { stdio: 'ignore' });  // exits non-zero when any test fails
  if (!fs.existsSync(report)) throw new Error(`${cli.join(' ')} wrote no report`);
  const tests = JSON.parse(fs.readFileSync(report, 'utf8')).tests;
  fs.rmSync(path.dirname(report), { recursive: true, force: true });
  return new Map(tests.filter((t) => t.status === 'pass').map((t) => [t.name, []]));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.tests)) {
    console.log(`SKIPPED: no tests in ${args.tests}`);
    return 77;
  }
  const expected = readList(args.expected);
  const skip = new Map();
  for (const f of args.skip || []) for (const [k, v] of readList(f)) skip.set(k, v);
  const tolerances = readList(args.tolerances);
  const { ort, cleanup } = loadOrt(args.real ? null : path.resolve(args.lib));
  const started = Date.now();
  const report = { passed: [], failed: {}, inexpressible: [] };
  const dumps = {};
  try {
    for (const name of fs.readdirSync(args.tests).sort()) {
      const dir = path.join(args.tests, name);
      if (skip.has(name) || !fs.existsSync(path.join(dir, 'model.onnx'))) continue;
      let sig;
      try {
        sig = readModelSignature(path.join(dir, 'model.onnx'));
      } catch (e) {
        report.inexpressible.push(name);
        continue;
      }
      if (!expressible(sig)) {
        report.inexpressible.push(name);
        continue;
      }
      const t = tolerances.get(name);
      const tol = {
        rtol: t ? Number(t[0]) : Number(args.rtol || 1e-3),
        atol: t ? Number(t[1]) : Number(args.atol || 1e-7),
        scaled: Number(args['scaled-atol'] || 0),
      };
      const dump = args.dump ? (dumps[name] = {}) : null;
      try {
        await runTest(ort, dir, sig, tol, dump);
        report.passed.push(name);
      } catch (e) {
        report.failed[name] = String(e.message || e).split('\n')[0];
      }
    }
  } finally {
    cleanup();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const total = report.passed.length + Object.keys(report.failed).length;
  const which = args.real ? 'real ONNX Runtime 1.30' : 'Tessera';
  console.log(`onnxruntime-node on ${which}: ${report.passed.length}/${total} expressible tests pass ` +
              `(${report.inexpressible.length} not expressible in the binding), ${seconds} s`);
  if (args.report) fs.writeFileSync(args.report, JSON.stringify(report, null, 1));
  if (args.dump) fs.writeFileSync(args.dump, JSON.stringify(dumps));
  let reference = expected;
  let source = 'expected_pass.txt';
  if (args.tessera) {
    reference = tesseraPasses(args);
    source = 'tessera conformance';
  } else if (!args.expected) {
    for (const [n, why] of Object.entries(report.failed)) console.log(`  FAIL: ${n}: ${why}`);
    return total > 0 && report.passed.length === total ? 0 : 1;
  }
  const passed = new Set(report.passed);
  const tried = new Set([...report.passed, ...Object.keys(report.failed)]);
  const mustPass = [...reference.keys()].filter((n) => tried.has(n));
  const missing = mustPass.filter((n) => !passed.has(n));
  const extra = report.passed.filter((n) => !reference.has(n));
  console.log(`Tessera's runner on the same tests: ${mustPass.length} pass (${source})`);
  for (const n of missing) console.log(`  FAIL through the binding: ${n}: ${report.failed[n]}`);
  for (const n of extra) console.log(`  passes through the binding but not for ${source}: ${n}`);
  return missing.length === 0 && extra.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(1);
});
