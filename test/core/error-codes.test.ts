/**
 * One style of error code (core/error-codes.ts): every code an amsflow error carries is in the
 * one table, in the one style, and documented in docs/OPERATIONS.md; a class of our own that
 * spells a code by hand, in another style, or outside the table fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isLintProbe } from '../lint/lint-probes';
import { AmsflowError } from '../../core/amsflow-error';
import { AmsflowErrorCodes } from '../../core/error-codes';
import { ErrorCodes as MessagingErrorCodes } from '../../messaging/errors';
import { ApprovalError, ApprovalRequestError } from '../../client/approvals';
import { ConversationError } from '../../client/conversations';
import { InvalidAgentKeyError } from '../../client/agents';
import { DurationFormatError } from '../../core/durations';
import { ConfigError } from '../../worker/config';
import { SimulatorStateError } from '../../simulator';

const root = resolve(__dirname, '..', '..');
const SOURCE_DIRS = [
  'activities',
  'client',
  'core',
  'messaging',
  'protocol',
  'scripts',
  'simulator',
  'testing',
  'worker',
  'workflows',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') && !isLintProbe(path) ? [path] : [];
  });
}

const ours = Object.values(AmsflowErrorCodes) as string[];

describe('the error code table', () => {
  it('holds distinct AMSFLOW_ codes in upper snake case', () => {
    expect(new Set(ours).size).toBe(ours.length);
    for (const code of ours) expect(code).toMatch(/^AMSFLOW_[A-Z]+(_[A-Z]+)*$/);
    for (const code of Object.values(MessagingErrorCodes)) expect(code).toMatch(/^AMS_[A-Z]+(_[A-Z]+)*$/);
  });

  it('is the only source of the codes that error classes carry', () => {
    const handWritten = SOURCE_DIRS.flatMap((dir) =>
      sourceFiles(join(root, dir)).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/readonly code(?:: [\w.]+)? = '([^']+)'/g)].map((m) => ({
          file: file.slice(root.length + 1),
          code: m[1],
        })),
      ),
    );
    expect(handWritten.length).toBeGreaterThan(0);
    // A literal is tolerated only in files this change leaves to others (scripts/, worker/codec/),
    // and only if the table has it.
    expect(handWritten.filter(({ code }) => !ours.includes(code))).toEqual([]);
  });

  it('is documented, code by code, in docs/OPERATIONS.md', () => {
    const doc = readFileSync(join(root, 'docs', 'OPERATIONS.md'), 'utf8');
    // The table under "### Error codes" (other tables list AMSFLOW_ variables).
    const section = doc.slice(doc.indexOf('### Error codes')).split(/\n#{1,3} /)[0];
    const documented = [...section.matchAll(/^\| `(AMSFLOW_[A-Z_]+)`/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...ours].sort());
  });
});

describe("amsflow's errors", () => {
  const cause = new Error('inner');
  it.each<[string, AmsflowError, string]>([
    ['ConfigError', new ConfigError(['X: bad']), AmsflowErrorCodes.config],
    ['SimulatorStateError', new SimulatorStateError('/s.json', 'broken'), AmsflowErrorCodes.simulatorState],
    ['InvalidAgentKeyError', new InvalidAgentKeyError('bad key'), AmsflowErrorCodes.invalidAgentKey],
    [
      'ApprovalRequestError',
      new ApprovalRequestError('id', 'bad id', { cause }),
      AmsflowErrorCodes.invalidApprovalRequest,
    ],
    [
      'ApprovalError',
      new ApprovalError(AmsflowErrorCodes.approvalClosed, 'approval:a:1', 'ended'),
      'AMSFLOW_APPROVAL_CLOSED',
    ],
    [
      'ConversationError',
      new ConversationError(AmsflowErrorCodes.conversationNotFound, 'w', 'none'),
      'AMSFLOW_CONVERSATION_NOT_FOUND',
    ],
    ['DurationFormatError', new DurationFormatError('10x', 'bad unit'), AmsflowErrorCodes.invalidDuration],
  ])('%s has its name, its code from the table, and a hidden cause', (name, err, code) => {
    expect(err).toBeInstanceOf(AmsflowError);
    expect(err.name).toBe(name);
    expect(err.code).toBe(code);
    expect(Object.keys(err)).not.toContain('cause');
    expect(JSON.stringify(err)).not.toContain('inner');
  });

  it('keeps a cause it is given, for whoever asks', () => {
    expect(new ApprovalRequestError('id', 'bad id', { cause }).cause).toBe(cause);
  });
});
