/**
 * `bundleBot` with the run's bundle cache (bot-bundle-cache.ts, installed by the setup file
 * cache-bot-bundles.ts): a bot's bundle is reused while its files are unchanged, and a module
 * without its handler is refused every time, also after it bundled well once.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BotModuleError, bundleBot } from '../../worker/bot-bundle';

const artifacts = resolve(__dirname, '..', '..', 'test-artifacts');
const cacheDir = process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR!;

describe('bundleBot with the run’s bundle cache', () => {
  let dir: string;
  let bot: string;
  const entries = () => readdirSync(cacheDir);

  beforeAll(() => {
    expect(cacheDir).toBeDefined();
    mkdirSync(artifacts, { recursive: true });
    mkdirSync(cacheDir, { recursive: true });
    dir = mkdtempSync(join(artifacts, 'bot-bundle-cache-'));
    bot = join(dir, 'bot.ts');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a module without its handler every time', async () => {
    writeFileSync(bot, 'export async function other(): Promise<void> {}\n');
    for (let run = 0; run < 2; run++) {
      await expect(bundleBot({ workflowsPath: bot })).rejects.toBeInstanceOf(BotModuleError);
    }
  }, 120_000);

  it('reuses a bundle, and refuses the module again once it lost its handler', async () => {
    writeFileSync(bot, "export async function onMessage(): Promise<string> {\n  return 'marker-bot-1';\n}\n");
    const before = new Set(entries());
    expect((await bundleBot({ workflowsPath: bot })).code.includes('marker-bot-1')).toBe(true);
    // Other suites, running at the same time, add their own bundles to the run's cache: this bot's
    // entry is the new one that holds its code.
    const added = entries().filter(
      (e) => !before.has(e) && readFileSync(join(cacheDir, e), 'utf8').includes('marker-bot-1'),
    );
    expect(added).toHaveLength(1);
    // The next bundle of the same files is the entry as it is (here made to say something else).
    const entry = join(cacheDir, added[0]);
    writeFileSync(
      entry,
      JSON.stringify({ ...JSON.parse(readFileSync(entry, 'utf8')), code: 'from the cache' }),
    );
    expect((await bundleBot({ workflowsPath: bot })).code === 'from the cache').toBe(true);
    writeFileSync(bot, 'export async function other(): Promise<void> {}\n');
    await expect(bundleBot({ workflowsPath: bot })).rejects.toBeInstanceOf(BotModuleError);
  }, 120_000);
});
