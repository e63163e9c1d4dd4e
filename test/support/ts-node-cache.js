/**
 * A disk cache for ts-node's transpile-only output, for the child processes the suites start
 * (worker/main.ts, npm start, the CLI, scripts). ts-node transpiles every .ts file afresh in every
 * process: about 6 s of CPU before a worker can start, paid by a hundred-odd processes per run.
 * The global setup preloads this file into every node child (`NODE_OPTIONS=--require …`) and names
 * the run's cache folder (`AMSFLOW_TS_NODE_CACHE_DIR`, removed with the run). It does nothing until
 * ts-node registers itself (ts-node sets `process[Symbol.for('ts-node.register.instance')]`), then
 * wraps that service's `compile`. What runs is ts-node's own output, byte for byte: the key
 * is the file's name and text, ts-node's and TypeScript's versions and the compiler options.
 * Type-checking services are left alone (their diagnostics depend on other files). Cached files
 * keep their stack traces: the output carries its inline source map, handed to source-map-support
 * as ts-node's own cache would.
 */
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const INSTANCE = Symbol.for('ts-node.register.instance');
const DIR = process.env.AMSFLOW_TS_NODE_CACHE_DIR;

/** The ts-node that registered (loaded by then): its index file and version. */
function tsNode() {
  const index = Object.keys(require.cache).find((f) => /[\\/]ts-node[\\/]dist[\\/]index\.js$/.test(f));
  return index ? { index, version: require.cache[index].exports.VERSION } : undefined;
}

function cached(service) {
  const { options } = service;
  if (!options.transpileOnly || options.typeCheck || options.swc || options.transpiler) return service;
  const own = tsNode();
  if (!own) return service;
  const salt = JSON.stringify([own, service.ts.version, service.config.options, options.compilerOptions]);
  const outputs = new Map();
  // The copy ts-node installed (its handlers live in one shared global anyway).
  const sourceMapSupport = require(
    require.resolve('@cspotcode/source-map-support', { paths: [dirname(own.index)] }),
  );
  // Ahead of ts-node's handler, which answers '' for a file it did not compile itself.
  sourceMapSupport.install({ environment: 'node', retrieveFile: (path) => outputs.get(path) || '' });
  const compile = service.compile;
  service.compile = function compileCached(code, fileName, lineOffset = 0) {
    const key = createHash('sha256')
      .update(salt)
      .update(`\0${fileName}\0${lineOffset}\0`)
      .update(code)
      .digest('hex');
    const file = join(DIR, `${key}.js`);
    let output;
    try {
      output = readFileSync(file, 'utf8');
    } catch {
      output = compile.call(this, code, fileName, lineOffset);
      try {
        mkdirSync(DIR, { recursive: true });
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, output);
        renameSync(partial, file); // whole or absent, for processes reading at the same time
      } catch {
        // A cache that cannot be written only costs time.
      }
    }
    outputs.set(fileName.replace(/\\/g, '/'), output);
    return output;
  };
  return service;
}

let current;
if (DIR)
  Object.defineProperty(process, INSTANCE, {
    configurable: true,
    enumerable: false,
    get: () => current,
    set: (service) => {
      current = service && typeof service.compile === 'function' ? cached(service) : service;
    },
  });
