/**
 * The rules of versioned workers, without a server: the default build id (a digest of the bundle
 * that ignores what differs between two bundlings of the same code), the deployment settings from
 * the environment, when a starting worker promotes its build, how a deployment's description and
 * a build's drain are read, and how `deploy status` prints a build.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLine } from '../../client/cli/deploy-commands';
import {
  deploymentNameFor,
  deploymentViewOf,
  isDrained,
  runningQueries,
  versionName,
} from '../../protocol/deployments';
import { bundleDigest, codeDigest } from '../../worker/build-id';
import { loadConfig } from '../../worker/config';
import { shouldPromote } from '../../worker/promotion';
import { deploymentOptions, resolveBuild } from '../../worker/versioning';
import { problemsOf } from './config-problems';

const bundled = (entryDir: string, body: string) =>
  `/***/ "../../../tmp/${entryDir}/bot-entry.js"\n${body}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(entryDir).toString('base64')}\n`;

describe('the default build id', () => {
  it('is the same for two bundlings of the same code: the entry folder and the source map are left out', () => {
    const a = codeDigest(bundled('amsflow-entry-1msRfn', 'function onMessage() { return 1; }'));
    const b = codeDigest(bundled('amsflow-entry-4hwKLN', 'function onMessage() { return 1; }'));
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with any change to the code', () => {
    const a = codeDigest(bundled('amsflow-entry-1msRfn', 'function onMessage() { return 1; }'));
    expect(codeDigest(bundled('amsflow-entry-1msRfn', 'function onMessage() { return 2; }'))).not.toBe(a);
  });

  it('of a prebuilt bundle file is the digest of its code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-digest-'));
    try {
      const code = bundled('amsflow-entry-x1', 'code');
      writeFileSync(join(dir, 'bundle.js'), code);
      expect(bundleDigest({ codePath: join(dir, 'bundle.js') })).toBe(bundleDigest({ code }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the build of every worker of the process, in the task queue’s deployment unless one is named', () => {
    const code = bundled('amsflow-entry-a', 'x');
    expect(resolveBuild({}, 'amsflow', { code })).toEqual({
      deploymentName: 'amsflow',
      buildId: codeDigest(code),
    });
    expect(resolveBuild({ deploymentName: 'bots', buildId: 'v7' }, 'amsflow', { code })).toEqual({
      deploymentName: 'bots',
      buildId: 'v7',
    });
    expect(deploymentNameFor('team.bots:eu')).toBe('team-bots-eu');
    expect(deploymentOptions({ deploymentName: 'amsflow', buildId: 'v7' })).toEqual({
      version: { deploymentName: 'amsflow', buildId: 'v7' },
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'PINNED',
    });
  });
});

describe('deployment settings', () => {
  it('default: versioned, the build from the bundle; promoted at every start with the embedded server, only a first build against a cluster', () => {
    expect(loadConfig({}).deploy).toEqual({ versioned: true, promote: 'always', exitWhenDrained: false });
    expect(loadConfig({ TEMPORAL_ADDRESS: 't:7233' }).deploy).toEqual({
      versioned: true,
      promote: 'first',
      exitWhenDrained: false,
    });
  });

  it('reads AMSFLOW_DEPLOYMENT (off: unversioned), AMSFLOW_BUILD_ID, AMSFLOW_PROMOTE, AMSFLOW_EXIT_WHEN_DRAINED', () => {
    expect(
      loadConfig({
        AMSFLOW_DEPLOYMENT: 'bots',
        AMSFLOW_BUILD_ID: '1.4.0+abc',
        AMSFLOW_PROMOTE: 'never',
        AMSFLOW_EXIT_WHEN_DRAINED: '1',
      }).deploy,
    ).toEqual({
      versioned: true,
      deploymentName: 'bots',
      buildId: '1.4.0+abc',
      promote: 'never',
      exitWhenDrained: true,
    });
    expect(loadConfig({ AMSFLOW_DEPLOYMENT: 'off' }).deploy.versioned).toBe(false);
  });

  it('names each bad one', () => {
    expect(
      problemsOf({
        AMSFLOW_DEPLOYMENT: 'a.b',
        AMSFLOW_BUILD_ID: 'x:y',
        AMSFLOW_PROMOTE: 'sometimes',
        AMSFLOW_EXIT_WHEN_DRAINED: 'yes',
      }),
    ).toEqual([
      expect.stringMatching(
        /^AMSFLOW_DEPLOYMENT: must be 1 to 200 characters without "\.", ":" or spaces, or off$/,
      ),
      expect.stringMatching(/^AMSFLOW_BUILD_ID: must be 1 to 200 letters, digits/),
      expect.stringMatching(/^AMSFLOW_PROMOTE: /),
      expect.stringMatching(/^AMSFLOW_EXIT_WHEN_DRAINED: /),
    ]);
  });
});

describe('promotion at start', () => {
  const build = { deploymentName: 'amsflow', buildId: 'b2' };
  it.each([
    ['first', undefined, true],
    ['first', 'b1', false],
    ['first', 'b2', false],
    ['always', 'b1', true],
    ['always', 'b2', false],
    ['never', undefined, false],
  ] as const)('%s with current build %s: promotes %s', (policy, current, expected) => {
    expect(shouldPromote(policy, build, current)).toBe(expected);
  });
});

describe('a deployment as the server describes it', () => {
  const raw = {
    workerDeploymentInfo: {
      routingConfig: {
        currentDeploymentVersion: { deploymentName: 'amsflow', buildId: 'b2' },
        rampingDeploymentVersion: { deploymentName: 'amsflow', buildId: 'b3' },
        rampingVersionPercentage: 10,
      },
      versionSummaries: [
        { deploymentVersion: { buildId: 'b3' }, status: 3, createTime: { seconds: 1_800_000_000 } },
        { deploymentVersion: { buildId: 'b2' }, status: 2 },
        { deploymentVersion: { buildId: 'b1' }, status: 4 },
        { deploymentVersion: { buildId: 'b0' }, status: 5 },
        { deploymentVersion: { buildId: 'bx' }, status: 99 },
      ],
    },
  };

  it('names its current and ramping builds, and each build’s status', () => {
    expect(deploymentViewOf('amsflow', raw)).toEqual({
      deploymentName: 'amsflow',
      current: 'b2',
      ramping: { buildId: 'b3', percentage: 10 },
      builds: [
        { buildId: 'b3', status: 'ramping', createdAt: '2027-01-15T08:00:00.000Z' },
        { buildId: 'b2', status: 'current', createdAt: undefined },
        { buildId: 'b1', status: 'draining', createdAt: undefined },
        { buildId: 'b0', status: 'drained', createdAt: undefined },
        { buildId: 'bx', status: 'unknown', createdAt: undefined },
      ],
      routingPropagated: true,
    });
    expect(deploymentViewOf('fresh', {})).toEqual({
      deploymentName: 'fresh',
      current: undefined,
      ramping: undefined,
      builds: [],
      routingPropagated: true,
    });
  });

  it('says whether its last routing change has reached every task queue (a server that does not say: yes)', () => {
    const state = (routingConfigUpdateState: number) =>
      deploymentViewOf('d', { workerDeploymentInfo: { routingConfigUpdateState } }).routingPropagated;
    expect([state(1), state(2), state(0)]).toEqual([false, true, true]);
  });

  it('calls a build drained once it was current and nothing pinned to it runs', () => {
    expect(isDrained('draining', { pinned: 0 })).toBe(true);
    expect(isDrained('drained', { pinned: 0 })).toBe(true);
    expect(isDrained('draining', { pinned: 1 })).toBe(false);
    expect(isDrained('drained', { pinned: 2 })).toBe(false);
    expect(isDrained('inactive', { pinned: 0 })).toBe(false);
    expect(isDrained('current', { pinned: 0 })).toBe(false);
  });

  it('counts what runs on a build through its search attributes, by kind', () => {
    const q = runningQueries({ deploymentName: 'amsflow', buildId: 'b1' });
    const base = "TemporalWorkerDeploymentVersion = 'amsflow:b1' AND ExecutionStatus = 'Running'";
    expect(versionName({ deploymentName: 'amsflow', buildId: 'b1' })).toBe('amsflow:b1');
    expect(q).toEqual({
      conversations: `${base} AND WorkflowType NOT IN ('approvalWorkflow', 'agentWorkflow', 'remindersWorkflow')`,
      approvals: `${base} AND WorkflowType = 'approvalWorkflow'`,
      reminders: `${base} AND WorkflowType = 'remindersWorkflow'`,
      agents: `${base} AND WorkflowType = 'agentWorkflow'`,
      pinned: `${base} AND TemporalWorkflowVersioningBehavior = 'Pinned'`,
    });
  });
});

describe('deploy status, for a person', () => {
  const running = { conversations: 2, approvals: 1, reminders: 1, agents: 0, pinned: 3 };
  const none = { conversations: 0, approvals: 0, reminders: 0, agents: 0, pinned: 0 };
  it('says what runs on each build, and whether it drains or has drained', () => {
    expect(buildLine({ buildId: 'b2', status: 'current', current: true, running, drained: false })).toBe(
      'b2  current  conversations 2, approvals 1, reminders 1, agents 0',
    );
    expect(
      buildLine({
        buildId: 'b3',
        status: 'ramping',
        current: false,
        rampPercentage: 10,
        running: none,
        drained: false,
      }),
    ).toBe('b3  ramping 10%  conversations 0, approvals 0, reminders 0, agents 0');
    expect(buildLine({ buildId: 'b1', status: 'draining', current: false, running, drained: false })).toBe(
      'b1  draining  conversations 2, approvals 1, reminders 1, agents 0  draining: 3 pinned workflow(s) still run on it',
    );
    expect(
      buildLine({ buildId: 'b0', status: 'draining', current: false, running: none, drained: true }),
    ).toBe(
      'b0  draining  conversations 0, approvals 0, reminders 0, agents 0  drained: its workers may stop',
    );
    expect(
      buildLine({ buildId: 'b4', status: 'inactive', current: false, running: none, drained: false }),
    ).toBe('b4  inactive  conversations 0, approvals 0, reminders 0, agents 0');
  });
});
