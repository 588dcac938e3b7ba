// Loads npm onnxruntime-node 1.30 (scripts/setup.sh installs it under
// $ORT_NODE_PATH or ~/.cache/tessera/ort-1.30.0), either as published or
// from a temporary copy whose bin/.../libonnxruntime.so.1 is replaced by
// Tessera's: the binding itself is unchanged, so everything it does goes
// through Tessera's C API.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const SKIP = 77;  // ctest's skip code

function findInstall() {
  for (const dir of [process.env.ORT_NODE_PATH, path.join(os.homedir(), '.cache/tessera/ort-1.30.0')]) {
    if (dir && fs.existsSync(path.join(dir, 'node_modules/onnxruntime-node'))) return path.join(dir, 'node_modules');
  }
  return null;
}

const BINDING_DIR = 'bin/napi-v6/linux/x64';

// lib: Tessera's libonnxruntime.so.1, or null for the real ORT.
function loadOrt(lib) {
  const modules = findInstall();
  if (!modules) {
    console.log('SKIPPED: onnxruntime-node 1.30 is not installed (scripts/setup.sh installs it)');
    process.exit(SKIP);
  }
  if (!lib) return { ort: require(path.join(modules, 'onnxruntime-node')), cleanup: () => {} };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-ort-node-'));
  // The copy leaves out the package's other platforms and ORT's own
  // library (44 MB): only the Linux binding and the JS travel.
  const nodePkg = path.join(modules, 'onnxruntime-node');
  const keep = (src) => {
    const rel = path.relative(nodePkg, src);
    if (!rel.startsWith('bin')) return true;
    return BINDING_DIR.startsWith(rel) || (rel.startsWith(BINDING_DIR) && !rel.endsWith('libonnxruntime.so.1'));
  };
  fs.cpSync(nodePkg, path.join(tmp, 'node_modules/onnxruntime-node'), { recursive: true, filter: keep });
  fs.cpSync(path.join(modules, 'onnxruntime-common'), path.join(tmp, 'node_modules/onnxruntime-common'),
            { recursive: true });
  const target = path.join(tmp, 'node_modules/onnxruntime-node', BINDING_DIR, 'libonnxruntime.so.1');
  if (!fs.existsSync(path.join(nodePkg, BINDING_DIR, 'libonnxruntime.so.1')))
    throw new Error(`${nodePkg}/${BINDING_DIR}: no libonnxruntime.so.1 to replace (package layout changed?)`);
  fs.copyFileSync(lib, target);
  const ort = require(path.join(tmp, 'node_modules/onnxruntime-node'));
  return { ort, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
}

module.exports = { loadOrt, SKIP };
