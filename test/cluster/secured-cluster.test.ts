/**
 * The native cluster secured as Temporal's docs tell operators to run one: mTLS on the frontend
 * (certificates made by deploy/temporal/make-certs.sh: a CA, the server's, a client's) and JWT
 * authorization by the server's default claim mapper and authorizer, its keys fetched from a key
 * set served on loopback. The worker, the command line and `amsflow replay` connect with profiles
 * of a temporal.toml (TLS paths and a token as the API key) and answer an echo; without a client
 * certificate, with a CA that did not sign the server's, with a token for another namespace or
 * with no token, each is refused with one line naming the setting to check. A worker whose token
 * expires takes a new one written to its profile's file (SIGHUP) without a restart. Needs
 * `npm run cluster:setup`; fails, never skips, without it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { loadConfig } from '../../worker/config';
import { TemporalConnectError } from '../../worker/embedded-temporal';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { startNativeCluster, type NativeCluster } from '../../chaos/cluster/native-cluster';
import { run } from '../client/cli-runner';
import { bundle, uniqueTaskQueue, waitFor } from '../support/temporal';
import { makeTestCertificates, type TestCertificates } from '../support/test-certificates';
import { startTokenIssuer, type TokenIssuer } from '../support/token-issuer';

jest.setTimeout(180_000);

const AMS_TOKEN = `sec-${randomUUID()}`;
const AGENT = `sec${randomUUID().slice(0, 8)}`;

let certs: TestCertificates;
let issuer: TokenIssuer;
let cluster: NativeCluster;
let sim: RunningSimulator;
let dir: string;
let bundlePath: string;
let configFile: string;
let workerToken: string;
const taskQueue = uniqueTaskQueue('secured');

/** A temporal.toml profile: the cluster's address and namespace, mTLS, and `token` as the API key. */
function profile(name: string, token: string): string {
  return [
    `[profile.${name}]`,
    `address = "${cluster.address}"`,
    `namespace = "${cluster.namespace}"`,
    `api_key = "${token}"`,
    `[profile.${name}.tls]`,
    `server_ca_cert_path = "${certs.caCert}"`,
    `client_cert_path = "${certs.clientCert}"`,
    `client_key_path = "${certs.clientKey}"`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  certs = makeTestCertificates();
  issuer = await startTokenIssuer();
  const mtls = {
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
  };
  const started = Date.now();
  cluster = await startNativeCluster({
    secured: {
      serverCert: certs.serverCert,
      serverKey: certs.serverKey,
      serverCaCert: certs.caCert,
      clientCaCert: certs.caCert,
      jwksUri: issuer.jwksUri,
      adminEnv: { ...mtls, TEMPORAL_API_KEY: issuer.token('operator', ['temporal-system:admin']) },
    },
  });
  console.log(`secured cluster up in ${Date.now() - started} ms: ${JSON.stringify(cluster.timings)}`);
  dir = mkdtempSync(join(tmpdir(), 'amsflow-secured-'));
  bundlePath = join(dir, 'workflows.js');
  writeFileSync(bundlePath, (await bundle(require.resolve('../../examples/reference/bot'))).code);
  sim = await startSimulator({
    port: 0,
    agents: [{ id: AGENT, token: AMS_TOKEN, creator: 'user:7', creatorName: 'H' }],
  });
  // The server's default authorizer ranks "worker" below "read" (roles.go: a bitmask compared as a
  // number), so a worker's token carries "write": it starts and signals the agent's workflows too.
  workerToken = issuer.token('amsflow-worker', [`${cluster.namespace}:write`]);
  configFile = join(dir, 'temporal.toml');
  writeFileSync(
    configFile,
    [
      profile('worker', workerToken),
      profile('cli', issuer.token('operator-cli', [`${cluster.namespace}:write`])),
      profile('elsewhere', issuer.token('other-team', ['other-namespace:write'])),
    ].join('\n'),
  );
}, 240_000);

afterAll(async () => {
  await sim?.close();
  await cluster?.close();
  await issuer?.close();
  certs?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The worker's environment: the simulator's agent, the shared task queue, and `temporal` settings. */
function workerEnv(temporal: Record<string, string>): NodeJS.ProcessEnv {
  return {
    HOME: dir,
    AMS_TOKEN,
    AMS_BASE_URL: sim.url,
    AMSFLOW_AGENT: AGENT,
    AMSFLOW_TASK_QUEUE: taskQueue,
    AMSFLOW_WORKFLOW_BUNDLE: bundlePath,
    AMSFLOW_DATA_DIR: dir,
    AMSFLOW_METRICS_PORT: 'off',
    ...temporal,
  };
}

/** What starting the worker with `temporal` settings threw (it must throw), and how long it took (logged). */
async function startFails(temporal: Record<string, string>): Promise<{ err: Error; ms: number }> {
  const started = Date.now();
  let running: RunningAmsflow | undefined;
  try {
    running = await runAmsflow(loadConfig(workerEnv(temporal)), () => undefined);
  } catch (err) {
    return { err: err as Error, ms: Date.now() - started };
  }
  await running.shutdown();
  throw new Error('the worker started');
}

describe('a cluster with mTLS and JWT authorization', () => {
  it('the worker answers an echo with its profile; the command line and amsflow replay read it with theirs', async () => {
    const started = Date.now();
    const running = await runAmsflow(
      loadConfig(workerEnv({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'worker' })),
      () => undefined,
    );
    const startMs = Date.now() - started;
    try {
      await sim.control.humanText('echo through the secured cluster', { agent: AGENT });
      await sim.control.waitFor(
        (c) => c.conversation(AGENT),
        (chat) =>
          chat.entries.some(
            (e) =>
              e.direction === 'out' &&
              (e.payload as { body?: string }).body === 'through the secured cluster',
          ),
        { timeoutMs: 90_000, intervalMs: 200 },
      );
      console.log(`worker started over mTLS + JWT in ${startMs} ms, echo answered`);
      const cliEnv = { HOME: dir, TEMPORAL_CONFIG_FILE: configFile, AMSFLOW_TASK_QUEUE: taskQueue };
      const state = await run(['state', '--agent', AGENT, '--profile', 'cli'], cliEnv);
      expect(state).toMatchObject({ code: 0, err: '' });
      expect(state.out).toContain(AGENT);

      const replay = await run(
        ['replay', '--workflows', require.resolve('../../examples/reference/bot'), '--profile', 'cli'],
        cliEnv,
      );
      expect(replay.err).toBe('');
      expect(replay.code).toBe(0);
      expect(replay.out).toMatch(/amsflow replay: [1-9]\d* histories of [1-9]\d* workflow types replayed/);
    } finally {
      await running.shutdown();
    }
  });
});

describe('a token rotated without a restart', () => {
  it('a worker whose token expires takes the new one from its profile file, and answers after the old one expired', async () => {
    const validS = 20;
    const expires = Date.now() + validS * 1000;
    const file = join(dir, 'rotating.toml');
    writeFileSync(
      file,
      profile('worker', issuer.token('amsflow-worker', [`${cluster.namespace}:write`], validS)),
    );
    const lines: string[] = [];
    const running = await runAmsflow(
      loadConfig(workerEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'worker' })),
      (line) => void lines.push(line),
    );
    try {
      const next = issuer.token('amsflow-worker', [`${cluster.namespace}:write`]);
      writeFileSync(file, profile('worker', next));
      process.emit('SIGHUP');
      await waitFor('the new key taken', () => lines.some((l) => l.includes('Temporal API key replaced')), {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      expect(lines.join('\n')).not.toContain(next);
      // Past the old token's expiry (and the server's one-second leeway), every call carries the new one.
      await waitFor('the old token to expire', () => Date.now() > expires + 2000, {
        timeoutMs: (validS + 10) * 1000,
        intervalMs: 200,
      });
      await sim.control.humanText('echo after the rotation', { agent: AGENT });
      await sim.control.waitFor(
        (c) => c.conversation(AGENT),
        (chat) =>
          chat.entries.some(
            (e) => e.direction === 'out' && (e.payload as { body?: string }).body === 'after the rotation',
          ),
        { timeoutMs: 90_000, intervalMs: 200 },
      );
    } finally {
      await running.shutdown();
    }
  });
});

describe('refused, with one line naming the setting: the worker and the command line alike', () => {
  const mtls = () => ({
    TEMPORAL_ADDRESS: cluster.address,
    TEMPORAL_NAMESPACE: cluster.namespace,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
  });
  const cases: [string, () => Record<string, string>, RegExp][] = [
    [
      'no client certificate',
      () => ({
        TEMPORAL_ADDRESS: cluster.address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
        TEMPORAL_API_KEY: workerToken,
      }),
      /client certificate \(TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH\)|requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH/,
    ],
    [
      'a CA that did not sign the server certificate',
      () => ({
        ...mtls(),
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert,
        TEMPORAL_API_KEY: workerToken,
      }),
      /the server's certificate is not trusted: set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed it/,
    ],
    [
      'a token for another namespace',
      () => ({ ...mtls(), TEMPORAL_API_KEY: issuer.token('other-team', ['other-namespace:write']) }),
      /the server refused this client for namespace default: check TEMPORAL_API_KEY's permissions and TEMPORAL_NAMESPACE/,
    ],
    [
      'no token',
      mtls,
      /the server refused this client for namespace default: it may require an API key or token \(set TEMPORAL_API_KEY\), or check TEMPORAL_NAMESPACE/,
    ],
  ];

  it.each(cases)('%s', async (_, settings, reason) => {
    const { err, ms } = await startFails(settings());
    expect(err).toBeInstanceOf(TemporalConnectError);
    expect(err.message).toMatch(/^cannot connect to Temporal at 127\.0\.0\.1:\d+ \(TEMPORAL_ADDRESS\): /);
    expect(err.message).toMatch(reason);
    expect(err.message).not.toContain('\n');
    expect(err.message).not.toContain(workerToken);
    console.log(`${_}: the worker refused in ${ms} ms`);

    const cli = await run(['state', '--agent', AGENT], { HOME: dir, ...settings() });
    expect(cli.code).toBe(1);
    expect(cli.err).toMatch(/^cannot (reach|connect to) Temporal at 127\.0\.0\.1:\d+ \(TEMPORAL_ADDRESS\): /);
    expect(cli.err).toMatch(reason);
  });

  it('the profile of another namespace, by --profile: refused the same way', async () => {
    const cli = await run(['state', '--agent', AGENT, '--profile', 'elsewhere'], {
      HOME: dir,
      TEMPORAL_CONFIG_FILE: configFile,
    });
    expect(cli.code).toBe(1);
    expect(cli.err).toMatch(/refused this client for namespace default/);
  });
});
