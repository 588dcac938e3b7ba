#!/usr/bin/env node
// The greedy loop of `tessera generate` on ONNX Runtime 1.30 (npm
// onnxruntime-node), for the decoder comparison in docs/performance.md:
//   NODE_PATH=~/.cache/tessera/ort-1.30.0/node_modules node bench/ort_generate.js MODEL THREADS PROMPT_LEN NEW_TOKENS
// The prompt is tokens 1..PROMPT_LEN; presents feed the next step's pasts.
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  const [model, threads, promptLen, newTokens] = [process.argv[2], +process.argv[3], +process.argv[4], +process.argv[5]];
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1 });
  const pasts = session.inputNames.filter((n) => n.startsWith('past_key_values.'));
  const meta = session.inputMetadata ? Object.fromEntries(
    session.inputNames.map((n, i) => [n, session.inputMetadata[i]])) : {};
  let tokens = Array.from({ length: promptLen }, (_, i) => BigInt(i + 1));
  let step = tokens.slice();
  const cache = {};
  for (const p of pasts) {
    const shape = meta[p] && meta[p].shape ? meta[p].shape : null;
    const heads = shape && typeof shape[1] === 'number' ? shape[1] : 1;
    const head = shape && typeof shape[3] === 'number' ? shape[3] : 1;
    cache[p] = new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, head]);
  }
  let prefill = 0, decode = 0;
  const out = [];
  for (let s = 0; s < newTokens; ++s) {
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(step), [1, step.length]),
      attention_mask: new ort.Tensor('int64', BigInt64Array.from(tokens.map(() => 1n)), [1, tokens.length]),
      ...cache,
    };
    const t0 = process.hrtime.bigint();
    const r = await session.run(feeds);
    const dt = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s === 0) prefill += dt; else decode += dt;
    const logits = r.logits;
    const vocab = logits.dims[2];
    const last = logits.data.subarray((logits.dims[1] - 1) * vocab, logits.dims[1] * vocab);
    let best = 0;
    for (let i = 1; i < vocab; ++i) if (last[i] > last[best]) best = i;
    for (const p of pasts) cache[p] = r[p.replace('past_key_values.', 'present.')];
    tokens.push(BigInt(best));
    step = [BigInt(best)];
    out.push(best);
  }
  console.log(`generated ${out.join(',')}`);
  console.log(`prefill  ${promptLen} tokens in ${(prefill * 1e3).toFixed(2)} ms: ${(promptLen / prefill).toFixed(1)} tokens/s`);
  console.log(`decode   ${newTokens - 1} tokens in ${(decode * 1e3).toFixed(2)} ms: ${((newTokens - 1) / decode).toFixed(1)} tokens/s`);
}

main().catch((e) => { console.error(`ort_generate: ${e.message}`); process.exit(1); });
