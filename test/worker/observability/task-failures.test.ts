/**
 * The worker's logger reports a workflow task failure once: the SDK logs every attempt from two
 * places ("Workflow failed" or "Failed to process Workflow Activation" from the worker, "Failing
 * workflow task" from the core, which names only the run). The calls below have the shapes of a
 * real run's (SDK 1.24: a handler reading a property of undefined, and a workflow type missing
 * from the bundle); the whole path through a real worker is in test/testing/fail-fast.test.ts.
 */
import { AmsflowLogger } from '../../../worker/observability/logger';
import {
  authorFrame,
  TaskFailureLogger,
  type TaskFailure,
} from '../../../worker/observability/task-failures';

const WF = 'agent:shop:msg:wamid.1';
const RUN = 'run-1';
const BUG = "Cannot read properties of undefined (reading 'x')";

/** A copy of a sandbox error, as the worker's log sink hands it on: a plain Error with its stack. */
function sandboxError(message: string, stackHead: string): Error {
  const error = new Error(message);
  error.stack = `${stackHead}: ${message}\n    at /home/me/bot/bot.ts:6:50\n    at handler (/x/node_modules/amsflow/workflows/handlers.ts:117:12)`;
  return error;
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const inner = new AmsflowLogger({
    format: 'json',
    level: 'info',
    stream: { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  const logger = new TaskFailureLogger(inner);
  const heard: TaskFailure[] = [];
  logger.onFailure((f) => heard.push(f));
  return { logger, lines, heard };
}

function attempt(logger: TaskFailureLogger, message = BUG): void {
  logger.trace('Creating workflow', {
    workflowId: WF,
    runId: RUN,
    workflowType: 'onMessage',
    taskQueue: 'q',
  });
  logger.warn('Workflow failed', {
    sdkComponent: 'worker',
    workflowId: WF,
    runId: RUN,
    workflowType: 'onMessage',
    error: sandboxError(message, 'TypeError'),
  });
  logger.warn('Failing workflow task', {
    sdkComponent: 'core',
    runId: RUN,
    failure: `Failure { failure: Some(Failure { message: "${message.replace(/'/g, "'")}", source: "TypeScriptSDK", stack_trace: "..." }) }`,
  });
}

describe('workflow task failures in the log', () => {
  it('one line per workflow and message, with the workflow id, however often the task is retried', () => {
    const { logger, lines, heard } = capture();
    for (let i = 0; i < 5; i++) attempt(logger);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      agentKey: 'shop',
      workflowId: WF,
      runId: RUN,
      workflowType: 'onMessage',
      at: '/home/me/bot/bot.ts:6:50',
    });
    expect(lines[0].msg).toMatch(
      /^Workflow task failed: Cannot read properties of undefined \(reading 'x'\)\. /,
    );
    expect(heard).toEqual([
      expect.objectContaining({ kind: 'task', workflowId: WF, message: BUG, taskQueue: 'q' }),
    ]);

    // Another message of the same workflow (the code changed), or another workflow: a line each.
    attempt(logger, 'other bug');
    expect(lines).toHaveLength(2);
  });

  it('a workflow type missing from the bundle: the activation failure and the core line, once', () => {
    const { logger, lines } = capture();
    const missing =
      "Failed to initialize workflow of type 'onMessage': no such function is exported by the workflow bundle";
    for (let i = 0; i < 3; i++) {
      logger.trace('Creating workflow', { workflowId: WF, runId: RUN, workflowType: 'onMessage' });
      logger.error('Failed to process Workflow Activation', { runId: RUN, error: new TypeError(missing) });
      logger.warn('Failing workflow task', {
        runId: RUN,
        failure: `Failure { failure: Some(Failure { message: "${missing}", source: "x" }) }`,
      });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ workflowId: WF, msg: expect.stringContaining(missing) as string });
  });

  it('a workflow that fails (a Temporal failure) is not a task failure: its line passes through', () => {
    const { logger, lines, heard } = capture();
    logger.warn('Workflow failed', {
      workflowId: WF,
      runId: RUN,
      error: sandboxError('boom', 'ApplicationFailure'),
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'Workflow failed', workflowId: WF }),
    ]);
    expect(heard).toEqual([expect.objectContaining({ kind: 'workflow', message: 'boom' })]);
  });

  it('everything else passes through unchanged', () => {
    const { logger, lines, heard } = capture();
    logger.info('Worker state changed', { state: 'RUNNING' });
    logger.debug('hidden at info');
    expect(lines).toEqual([expect.objectContaining({ msg: 'Worker state changed', state: 'RUNNING' })]);
    expect(heard).toEqual([]);
  });

  it('the author’s frame skips the SDK, the bundle and amsflow', () => {
    expect(
      authorFrame(
        'TypeError: x\n    at f (/x/node_modules/@temporalio/workflow/a.js:1:2)\n    at g (/me/bot.ts:3:4)',
      ),
    ).toBe('/me/bot.ts:3:4');
    expect(authorFrame('TypeError: x\n    at evalmachine.<anonymous>:27:34')).toBeUndefined();
  });
});

describe('a query refused by the activation guard, in the log', () => {
  const REASON =
    'query on a rebuilt run: this worker rebuilt the run from its history and ran its newest events live just before this query';

  it('is one INFO line with the reason, not a task failure', () => {
    const { logger, lines, heard } = capture();
    logger.error('Failed to process Workflow Activation', {
      sdkComponent: 'worker',
      workflowId: WF,
      runId: RUN,
      error: sandboxError(REASON, 'ActivationGuardError'),
    });
    logger.warn('Failing legacy query request', {
      sdkComponent: 'core',
      failure: `Failure { failure: Some(Failure { message: "${REASON}", source: "TypeScriptSDK", stack_trace: "..." }) }`,
    });
    expect(heard).toEqual([]);
    expect(lines.map((l) => [l.level, l.msg ?? l.message])).toEqual([
      [
        'info',
        `A query was refused by amsflow's activation guard (the run is rebuilt from its history; ask again): ${REASON}`,
      ],
    ]);
  });

  it('leaves other failed activations and failed queries as they were', () => {
    const { logger, heard } = capture();
    logger.error('Failed to process Workflow Activation', {
      sdkComponent: 'worker',
      workflowId: WF,
      runId: RUN,
      error: sandboxError(BUG, 'TypeError'),
    });
    expect(heard.map((f) => f.message)).toEqual([BUG]);
  });
});
