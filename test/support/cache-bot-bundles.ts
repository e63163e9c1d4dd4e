/**
 * Jest setup file: `bundleBot` of this test file's modules (the harness's, an in-process
 * runAmsflow's) reuses the run's bundles (bot-bundle-cache.ts), and the bundles this jest worker
 * process makes share webpack's cache (bundle-cache.ts). Outside the global setup, nothing.
 */
import * as botBundle from '../../worker/bot-bundle';
import * as bundling from '../../worker/bundling';
import { cacheBotBundles } from './bot-bundle-cache';

const dir = process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR;
if (dir) cacheBotBundles(botBundle, bundling, dir, { webpackCache: true });
