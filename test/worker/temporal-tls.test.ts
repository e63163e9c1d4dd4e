/**
 * Reaching Temporal over TLS and mTLS with Temporal's own connection settings (tools/
 * temporal-profile.ts): the shared dev server behind a TLS front that requires a client
 * certificate signed by the test's CA (test/support/tls-front.ts; Node's TLS, the real server
 * behind it). The worker (in process, against the simulator) answers an echo through it with the
 * settings of a temporal.toml profile, and the command line reads its state with `--profile`;
 * without a client certificate, with a CA that did not sign the server's certificate, or with TLS
 * against a plaintext endpoint, the worker and the command line each fail with one line naming
 * the setting to check.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { loadConfig } from '../../worker/config';
import { TemporalConnectError } from '../../worker/embedded-temporal';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { run } from '../client/cli-runner';
import { bundle, connectDevServer, devServerAddress, uniqueTaskQueue } from '../support/temporal';
import { startTlsFront, type TlsFront } from '../support/tls-front';
import { makeTestCertificates, type TestCertificates } from '../support/test-certificates';

jest.setTimeout(120_000);

const TOKEN = 'tls-token-7f3a9c';
const AGENT = `tls${randomUUID().slice(0, 8)}`;

let certs: TestCertificates;
let front: TlsFront;
let sim: RunningSimulator;
let dir: string;
let bundlePath: string;
let configFile: string;

beforeAll(async () => {
  certs = makeTestCertificates();
  front = await startTlsFront(certs, devServerAddress(), { requireClientCert: true });
  dir = mkdtempSync(join(tmpdir(), 'amsflow-tls-'));
  bundlePath = join(dir, 'workflows.js');
  writeFileSync(bundlePath, (await bundle(require.resolve('../../examples/reference/bot'))).code);
  sim = await startSimulator({
    port: 0,
    agents: [{ id: AGENT, token: TOKEN, creator: 'user:7', creatorName: 'H' }],
  });
  configFile = join(dir, 'temporal.toml');
  writeFileSync(
    configFile,
    [
      '[profile.secure]',
      `address = "${front.address}"`,
      '[profile.secure.tls]',
      `server_ca_cert_path = "${certs.caCert}"`,
      `client_cert_path = "${certs.clientCert}"`,
      `client_key_path = "${certs.clientKey}"`,
      '',
    ].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await front?.close();
  certs?.remove();
  rmSync(dir, { recursive: true, force: true });
  const temporal = await connectDevServer();
  await temporal.client.workflow
    .getHandle(`agent:${AGENT}`)
    .terminate('test over')
    .catch(() => undefined);
  await temporal.close();
});

/** The worker's environment: the simulator's agent, a fresh task queue, and `temporal` settings. */
function workerEnv(temporal: Record<string, string>): NodeJS.ProcessEnv {
  return {
    HOME: dir,
    AMS_TOKEN: TOKEN,
    AMS_BASE_URL: sim.url,
    AMSFLOW_AGENT: AGENT,
    AMSFLOW_TASK_QUEUE: uniqueTaskQueue('tls'),
    AMSFLOW_WORKFLOW_BUNDLE: bundlePath,
    AMSFLOW_DATA_DIR: dir,
    AMSFLOW_METRICS_PORT: 'off',
    ...temporal,
  };
}

/** What starting the worker with `temporal` settings threw (it must throw). */
async function startFails(temporal: Record<string, string>): Promise<Error> {
  let running: RunningAmsflow | undefined;
  try {
    running = await runAmsflow(loadConfig(workerEnv(temporal)), () => undefined);
  } catch (err) {
    return err as Error;
  }
  await running.shutdown();
  throw new Error('the worker started');
}

describe('over mTLS with a profile', () => {
  it('the worker answers an echo, and the command line reads its state with --profile', async () => {
    const taskQueue = uniqueTaskQueue('tls');
    const env = workerEnv({
      TEMPORAL_CONFIG_FILE: configFile,
      TEMPORAL_PROFILE: 'secure',
      AMSFLOW_TASK_QUEUE: taskQueue,
    });
    const running = await runAmsflow(loadConfig(env), () => undefined);
    try {
      await sim.control.humanText('echo through tls', { agent: AGENT });
      await sim.control.waitFor(
        (c) => c.conversation(AGENT),
        (chat) =>
          chat.entries.some(
            (e) => e.direction === 'out' && (e.payload as { body?: string }).body === 'through tls',
          ),
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      const cliEnv = { HOME: dir, TEMPORAL_CONFIG_FILE: configFile, AMSFLOW_TASK_QUEUE: taskQueue };
      const state = await run(['state', '--agent', AGENT, '--profile', 'secure'], cliEnv);
      expect(state.err).toBe('');
      expect(state.code).toBe(0);
      expect(state.out).toContain(AGENT);
      // The same command without the profile goes to the default address, where nothing of it runs.
      const plain = await run(['state', '--agent', AGENT], { HOME: dir, AMSFLOW_CONNECT_TIMEOUT: '1s' });
      expect(plain.code).toBe(1);
    } finally {
      await running.shutdown();
    }
  });
});

describe('a setting that cannot work: one line naming it, from the worker and the command line alike', () => {
  const tls = () => ({ TEMPORAL_ADDRESS: front.address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert });
  const cases: [string, () => Record<string, string>, RegExp][] = [
    [
      'no client certificate where one is required',
      tls,
      /it may require a client certificate \(TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH\)|the server requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/,
    ],
    [
      'a client certificate the server does not trust',
      () => ({
        ...tls(),
        TEMPORAL_TLS_CLIENT_CERT_PATH: certs.strangerCert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certs.strangerKey,
      }),
      /does not accept this client certificate; check TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH|does not accept this client certificate: check TEMPORAL_TLS_CLIENT_CERT_PATH/,
    ],
    [
      'a CA that did not sign the server certificate',
      () => ({
        TEMPORAL_ADDRESS: front.address,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
      }),
      /the server's certificate is not trusted: set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed it \(the one given did not\)/,
    ],
    [
      'TLS against a plaintext endpoint',
      () => ({ TEMPORAL_ADDRESS: devServerAddress(), TEMPORAL_TLS: 'true' }),
      /TLS is on \(TEMPORAL_TLS\) but the server does not speak TLS there: a plaintext endpoint\? Unset the TLS settings, or check TEMPORAL_ADDRESS/,
    ],
  ];

  it.each(cases)('%s', async (_, settings, reason) => {
    const err = await startFails(settings());
    expect(err).toBeInstanceOf(TemporalConnectError);
    expect(err.message).toMatch(/^cannot connect to Temporal at 127\.0\.0\.1:\d+ \(TEMPORAL_ADDRESS\): /);
    expect(err.message).toMatch(reason);
    expect(err.message).not.toContain('\n');

    const cli = await run(['state', '--agent', AGENT], { HOME: dir, ...settings() });
    expect(cli.code).toBe(1);
    expect(cli.err).toMatch(/^cannot reach Temporal at 127\.0\.0\.1:\d+ \(TEMPORAL_ADDRESS\): /);
    expect(cli.err).toMatch(reason);
  });

  it('a certificate path that is not there: refused before anything is contacted', async () => {
    const settings = {
      ...tls(),
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'nope.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
    };
    expect(() => loadConfig(workerEnv(settings))).toThrow(
      `TEMPORAL_TLS_CLIENT_CERT_PATH: no file at ${join(dir, 'nope.pem')} (the client certificate)`,
    );
    const cli = await run(['state', '--agent', AGENT], { HOME: dir, ...settings });
    expect(cli.code).toBe(2);
    expect(cli.err).toBe(
      `TEMPORAL_TLS_CLIENT_CERT_PATH: no file at ${join(dir, 'nope.pem')} (the client certificate)`,
    );
  });
});
