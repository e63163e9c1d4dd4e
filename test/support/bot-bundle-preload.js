/**
 * Preloaded into the suites' node children with ts-node-cache.js (NODE_OPTIONS): once a process
 * loads worker/bot-bundle (a worker bundling AMSFLOW_WORKFLOWS, npm start), its `bundleBot`
 * reuses the run's bundles (bot-bundle-cache.ts; AMSFLOW_TEST_BUNDLE_CACHE_DIR names the folder).
 * Only in processes that run the TypeScript sources through ts-node: the cache is TypeScript too.
 */
'use strict';
const Module = require('node:module');
const { dirname, join } = require('node:path');

const DIR = process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR;
const BOT_BUNDLE = /[\\/]worker[\\/]bot-bundle\.ts$/;

if (DIR) {
  const load = Module._load;
  Module._load = function loadWithBundleCache(request, parent, isMain) {
    const loaded = load.apply(this, arguments);
    if (loaded && typeof loaded.bundleBot === 'function' && /bot-bundle$/.test(request)) {
      const file = Module._resolveFilename(request, parent, isMain);
      if (BOT_BUNDLE.test(file)) {
        const { cacheBotBundles } = require('./bot-bundle-cache.ts');
        cacheBotBundles(loaded, require(join(dirname(file), 'bundling')), DIR);
      }
    }
    return loaded;
  };
}
