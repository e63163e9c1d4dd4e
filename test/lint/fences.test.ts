/**
 * The "may import" table of docs/ARCHITECTURE.md is lint rules (eslint.config.mjs): a file planted
 * in each folder that imports across its fence is reported by `eslint`, one that imports what the
 * table allows is not. The planted files are real files in the real folders (so the config's file
 * globs are what is tested), removed afterwards. That the tree as it is breaks no fence is
 * `npm run lint`'s to say (`npm test` runs it first), not a second ESLint run here.
 *
 * Only the fence rules run (`ruleFilter`), without type information: the type-aware rules would
 * cost a full program per run and say nothing about fences.
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { ROOT } from './import-graph';
import { lintProbePath } from './lint-probes';

/**
 * Runs the project's ESLint (its own process: ESLint loads its config with import(), which jest's
 * VM does not allow) with the fence rules only; the messages per file.
 */
const RUNNER = `
import { ESLint } from 'eslint';
const rules = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => rules.has(ruleId),
});
const results = await eslint.lintFiles(process.argv.slice(1));
console.log(JSON.stringify(results.map((r) => [r.filePath, r.messages.map((m) => (m.ruleId ?? 'parse') + ': ' + m.message)])));
`;

async function lint(files: string[]): Promise<Map<string, string[]>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', RUNNER, ...files],
    {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return new Map(JSON.parse(stdout) as [string, string[]][]);
}

/** [folder, an import across its fence, what the report says] */
const BREAKS: [string, string, RegExp][] = [
  ['core', "import { resolveLimits } from '../messaging/limits';", /core\/ imports nothing of ours/],
  ['core', "import { readFileSync } from 'node:fs';", /Node built-ins/],
  [
    'messaging',
    "import { DEFAULT_TASK_QUEUE } from '../protocol/agent';",
    /messaging\/ may import core\/ only/,
  ],
  ['protocol', "import type { CarriedState } from '../workflows/engine/runtime';", /nothing of the engine/],
  ['protocol', "import { resolveLimits } from '../messaging/limits';", /messaging\/ by type only/],
  ['activities', "import { agentWorkflow } from '../workflows/engine/workflow';", /activities\/ may import/],
  ['workflows', "import { startDevServer } from '../worker/dev-server';", /workflows\/ may import/],
  ['workflows', "import { resolveLimits } from '../messaging/limits';", /by type only/],
  [
    'workflows/author',
    "import { agentWorkflow } from '../engine/workflow';",
    /author API imports no other room/,
  ],
  [
    'workflows/author',
    "import type { MediaKind } from '../media/media';",
    /author API imports no other room/,
  ],
  ['workflows/engine', "import { approvalWorkflow } from '../approvals/approval';", /no use-case workflow/],
  ['workflows/media', "import { remindersWorkflow } from '../reminders/reminders';", /author API only/],
  ['workflows/approvals', "import { agentWorkflow } from '../engine/workflow';", /author API only/],
  ['workflows/approvals', "import { answerWithModel } from '../models/model-turn';", /author API only/],
  ['workflows/models', "import { agentWorkflow } from '../engine/workflow';", /model turns build on/],
  ['workflows/models', "import { sendMedia } from '../media/media';", /model turns build on/],
  [
    'workflows/models',
    "import { generateText } from 'ai';",
    /AI SDK by type only: a model call is an activity/,
  ],
  ['workflows/reminders', "import { log } from '../../messaging/client';", /by type only/],
  ['worker', "import { ensureAgent } from '../client/agents';", /worker\/ may import/],
  ['client', "import { bundleBot } from '../worker/bot-bundle';", /client\/ may import/],
  ['client', "import { textMessage } from '../workflows/author/builders';", /client\/ may import/],
  ['client/cli', "import { createBotTestEnv } from '../../index';", /client\/ may import/],
  ['workflows/author', "import { reply } from '../index';", /workflows\/ may import/],
  ['client/cli', "import { MessagingClient } from '../../messaging/client';", /messaging\/ by type only/],
  ['testing', "import { resolveTemporalBinaries } from '../scripts/setup';", /testing\/ may import/],
  ['simulator', "import { agentWorkflowId } from '../protocol/agent';", /simulator\/ may import core\/ only/],
  ['codec', "import { Observability } from '../worker/observability';", /codec\/ may import core\/ only/],
  ['tools', "import { backoff } from '../core/backoff';", /tools\/ imports nothing of ours/],
  ['examples/signup', "import { agentWorkflow } from '../../workflows/engine/workflow';", /public API only/],
  ['examples/signup', "import { DEFAULT_TUNING } from 'amsflow/internal';", /public API only/],
];

/** [folder, an import the table allows] */
const ALLOWED: [string, string][] = [
  ['core', "import { backoffDelay } from './backoff';"],
  ['protocol', "import type { Limits } from '../messaging/limits';"],
  ['workflows', "import type { Activities } from '../activities';"],
  ['workflows/media', "import { reply } from '../author/sending';"],
  ['workflows/engine', "import { textOf } from '../author/text';"],
  ['workflows/models', "import { remindIn } from '../reminders/reminders';"],
  ['workflows/models', "import { askApproval } from '../approvals/ask-approval';"],
  ['worker', "import { startSimulator } from '../simulator';"],
  ['client', "import { resolveLimits } from '../messaging/limits';"],
  ['client', "import { dataConverterFor } from '../codec';"],
  ['testing', "import { ensureAgent } from '../client/agents';"],
  ['examples/signup', "import { handleMessages } from 'amsflow/workflows';"],
  ['examples/reference', "export { agentWorkflow } from '../../workflows/engine-workflows';"],
];

describe('the fences (eslint.config.mjs)', () => {
  const cases = [...BREAKS, ...ALLOWED];
  const probe = (i: number) => lintProbePath(cases[i][0], `fence-${i}`);
  let reports: Map<string, string[]>;

  beforeAll(async () => {
    cases.forEach(([, source], i) => writeFileSync(probe(i), `${source}\nexport const probe = ${i};\n`));
    try {
      reports = await lint(cases.map((_, i) => probe(i)));
    } finally {
      cases.forEach((_, i) => rmSync(probe(i), { force: true }));
    }
  }, 120_000);

  it.each(BREAKS.map((c, i) => [...c, i] as const))('%s: reports %s', (_folder, _source, expected, i) => {
    expect(reports.get(probe(i))?.join('\n')).toMatch(expected);
  });

  it.each(ALLOWED.map((c, i) => [...c, BREAKS.length + i] as const))(
    '%s: lets %s through',
    (_folder, _source, i) => {
      expect(reports.get(probe(i))).toEqual([]);
    },
  );
});
