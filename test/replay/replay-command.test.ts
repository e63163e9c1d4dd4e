/**
 * `amsflow replay --histories`: exported histories (test/histories/, the recordings the replay
 * suite uses, with their workflow-ids.json) replayed against a bot module as the worker bundles
 * it. The same code passes; an incompatible change fails, naming the workflow and why; a file
 * that is not a history fails the command before anything is bundled. (Fetching histories from a
 * cluster is covered by test/cluster/deploys.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { reasonOf } from '../../worker/replay-check';
import { run } from '../client/cli-runner';
import { historiesDir, recordedWorkflowIds } from '../support/histories';

jest.setTimeout(120_000);

const compatible = resolve(__dirname, 'all-workflows.ts');
const incompatible = resolve(__dirname, 'incompatible-workflows.ts');
const greeting = recordedWorkflowIds()['smoke-greeting'];

describe('amsflow replay --histories', () => {
  it('passes the code the histories were recorded from', async () => {
    const started = Date.now();
    const { code, out } = await run(['replay', '--workflows', compatible, '--histories', historiesDir], {});
    console.log(`replay check of test/histories: ${Date.now() - started} ms; ${out}`);
    expect(code).toBe(0);
    expect(out).toMatch(
      new RegExp(
        `^amsflow replay: ${Object.keys(recordedWorkflowIds()).length} histories of \\d workflow types replayed against .*all-workflows\\.ts in [\\d.]+ s: 0 would fail$`,
      ),
    );
  });

  it('fails an incompatible change, naming the workflow and the non-determinism', async () => {
    const { code, out } = await run(['replay', '--workflows', incompatible, '--histories', historiesDir], {});
    expect(code).toBe(1);
    const lines = out.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^FAIL ${greeting} \\(smokeGreeting; pinned: it fails only if moved to the new build\\): DeterminismViolationError: \\[TMPRL1100\\] Nondeterminism error: `,
      ),
    );
    expect(lines[1]).toMatch(/: 1 would fail$/);
  });

  it('with --allow-pinned, fails only on workflows that move to the new build by themselves', async () => {
    const file = join(historiesDir, 'smoke-greeting.json');
    const { code, out } = await run(
      ['replay', '--workflows', incompatible, '--histories', file, '--allow-pinned'],
      {},
    );
    // A single file: its workflow id is its name.
    expect({ code, first: out.split('\n')[0] }).toEqual({
      code: 0,
      first: expect.stringMatching(/^FAIL smoke-greeting \(smokeGreeting; pinned/),
    });
  });

  it('refuses what is not a history, and an empty set unless --allow-empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-replay-'));
    try {
      writeFileSync(join(dir, 'broken.json'), '{"not":"a history"}');
      const broken = await run(['replay', '--workflows', compatible, '--histories', dir], {});
      expect(broken).toEqual({
        code: 1,
        out: '',
        err: `amsflow replay: ${join(dir, 'broken.json')} is not a history exported as JSON: it has no events`,
      });
      const missing = await run(['replay', '--workflows', compatible, '--histories', join(dir, 'nope')], {});
      expect(missing).toMatchObject({
        code: 1,
        err: `amsflow replay: no history file or folder at ${join(dir, 'nope')}`,
      });
      rmSync(join(dir, 'broken.json'));
      const empty = await run(['replay', '--workflows', compatible, '--histories', dir], {});
      expect(empty).toMatchObject({ code: 1, err: expect.stringContaining('nothing to replay') });
      const allowed = await run(
        ['replay', '--workflows', compatible, '--histories', dir, '--allow-empty'],
        {},
      );
      expect(allowed.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says why in one line: the core message a determinism failure wraps', () => {
    const wrapped = Object.assign(
      new Error(
        'Replay failed. Details: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Timer machine does not handle this event", source: "" }) }',
      ),
      { name: 'DeterminismViolationError' },
    );
    expect(reasonOf(wrapped)).toBe(
      'DeterminismViolationError: [TMPRL1100] Nondeterminism error: Timer machine does not handle this event',
    );
    expect(reasonOf(new TypeError('no such workflow type\nstack'))).toBe('TypeError: no such workflow type');
  });
});
