/**
 * A bot module that exports only its handler, through the bot test harness: the bot and the
 * test that `amsflow init` writes (client/init-templates.ts), run here as written (`amsflow`
 * and `amsflow/testing` resolve to this repository). Its reminder fires with time skipping and an
 * approval asked from outside is answered, so the harness bundled amsflow's own workflows with
 * it. A module without `onMessage` is refused by the harness, naming the file.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BOT, BOT_TEST } from '../../client/init-templates';
import { createBotTestEnv } from '../../testing';
import { displayPath } from '../../worker/bot-bundle';

jest.setTimeout(180_000);

const root = resolve(__dirname, '..', '..');
mkdirSync(join(root, 'test-artifacts'), { recursive: true });
const dir = mkdtempSync(join(root, 'test-artifacts', 'handlers-only-'));
writeFileSync(join(dir, 'bot.ts'), BOT);
writeFileSync(join(dir, 'bot.test.ts'), BOT_TEST);

describe("the scaffold's bot (handlers only) and its test, through createBotTestEnv", () => {
  it('exports nothing but onMessage', () => {
    expect(BOT.match(/^export .*/gm)).toEqual([expect.stringMatching(/^export const onMessage = /)]);
  });
  // Registers the scaffold's own tests (hello, a reminder that fires, an approval) in this suite.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the scaffold's test file, loaded as jest would
  require(join(dir, 'bot.test.ts'));
});

describe('the harness refuses a module without onMessage', () => {
  it('naming the file and the handler it expected', async () => {
    const file = join(dir, 'no-handler.ts');
    writeFileSync(
      file,
      "import { handleMessages, reply } from 'amsflow/workflows';\n" +
        "export const onMsg = handleMessages(async (msg) => void (await reply(msg, 'hi')));\n",
    );
    await expect(createBotTestEnv({ workflows: file })).rejects.toThrow(
      `${displayPath(file)} exports no workflow 'onMessage'`,
    );
  });
});
