// onnxruntime-node's options and paths beyond a plain run, on Tessera's
// library: every session option the binding forwards, run options,
// profiling, preallocated outputs (the binding's IoBinding path), string
// tensors, metadata, errors surfacing as JS exceptions with Tessera's text.
//
// node binding_options.js --lib LIB --model models/default/model.onnx
'use strict';

const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { loadOrt } = require('./ort_package');

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) throw new Error(`--${name} is required`);
  return process.argv[i + 1];
}

async function main() {
  const { ort, cleanup } = loadOrt(path.resolve(arg('lib')));
  const model = arg('model');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-binding-options-'));
  try {
    const prefix = path.join(scratch, 'node_binding_profile');
    const session = await ort.InferenceSession.create(model, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'extended',
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      enableCpuMemArena: false,
      enableMemPattern: true,
      enableProfiling: true,
      profileFilePrefix: prefix,
      logId: 'binding-options',
      logSeverityLevel: 3,
      extra: { session: { disable_prepacking: '1' } },
    });
    assert.deepStrictEqual(session.inputNames, ['image']);
    assert.deepStrictEqual(session.outputNames, ['probabilities']);
    const meta = session.inputMetadata[0];
    assert.strictEqual(meta.isTensor, true);
    assert.strictEqual(meta.type, 'float32');
    assert.deepStrictEqual(meta.shape, ['batch', 3, 32, 32]);

    const n = 2 * 3 * 32 * 32;
    const image = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => ((i * 31) % 17) / 17), [2, 3, 32, 32]);
    const plain = await session.run({ image }, { tag: 'first', logSeverityLevel: 2 });
    const probabilities = plain.probabilities;
    assert.deepStrictEqual(probabilities.dims, [2, 10]);
    for (let row = 0; row < 2; ++row) {
      const sum = probabilities.data.slice(row * 10, row * 10 + 10).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-4, `softmax row ${row} sums to ${sum}`);
    }

    // A preallocated output: the binding binds it and runs with the binding.
    const into = new ort.Tensor('float32', new Float32Array(20), [2, 10]);
    const bound = await session.run({ image }, { probabilities: into });
    assert.deepStrictEqual(Array.from(into.data), Array.from(probabilities.data), 'the result lands in `into`');
    assert.deepStrictEqual(Array.from(bound.probabilities.data), Array.from(probabilities.data));

    session.endProfiling();  // the JS API drops the trace's path: look for the file
    const traces = fs.readdirSync(scratch).filter((f) => f.startsWith('node_binding_profile'));
    assert.strictEqual(traces.length, 1, `one profile trace in ${scratch}, found ${traces}`);
    assert.ok(JSON.parse(fs.readFileSync(path.join(scratch, traces[0]), 'utf8')), 'the trace is JSON');
    fs.unlinkSync(path.join(scratch, traces[0]));

    // Errors come back as exceptions carrying Tessera's message.
    await assert.rejects(session.run({ image: new ort.Tensor('int32', new Int32Array(n), [2, 3, 32, 32]) }),
                         /image/);
    await assert.rejects(session.run({ image: new ort.Tensor('float32', new Float32Array(12), [1, 3, 2, 2]) }),
                         /image/);
    await assert.rejects(ort.InferenceSession.create(model, { executionProviders: ['cuda'] }), /CUDA|cuda/);
    await assert.rejects(ort.InferenceSession.create(Uint8Array.from([1, 2, 3, 4])), /./);
    await assert.rejects(ort.InferenceSession.create('/nonexistent/model.onnx'), /nonexistent/);
    // Tessera's own config keys arrive through the binding's `extra`.
    await assert.rejects(ort.InferenceSession.create(model, { extra: { tessera: { winograd_convolutions: '2' } } }),
                         /tessera.winograd_convolutions/);
    await session.release();

    // Bytes instead of a path.
    const fromBytes = await ort.InferenceSession.create(new Uint8Array(fs.readFileSync(model)));
    const again = await fromBytes.run({ image });
    assert.deepStrictEqual(Array.from(again.probabilities.data), Array.from(probabilities.data));
    await fromBytes.release();
    console.log('binding_options: all checks passed');
  } finally {
    cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
