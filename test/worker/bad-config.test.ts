/**
 * Bad configuration and bad command lines: one clear message naming the problem, a non-zero exit,
 * and nothing started. Every variable of the worker's environment with a bad value goes through
 * `loadConfig` (config.test.ts has the agents file, the bot configuration and several problems at
 * once); the `amsflow` CLI's checks run in process (its subcommands' own are in
 * test/client/*.test.ts; here: what they leave out). The real worker and CLI entries as processes,
 * checked for a quick exit, one message, no process left, no port taken and no data dir made, are
 * test/start/bad-config.test.ts's (the long tier).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../worker/config';
import { run } from '../client/cli-runner';
import { problemsOf } from './config-problems';

const SECRET = 'k1:c2VjcmV0LWtleS1tYXRlcmlhbA==';
const tmp = mkdtempSync(join(tmpdir(), 'amsflow-bad-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

describe('a bad value of any worker variable', () => {
  it.each([
    ['AMS_TOKEN', ' ', /at least 1 character/],
    ['AMSFLOW_AGENTS_FILE', ' ', /at least 1 character/],
    ['AMSFLOW_AGENTS_FILE', '/no/such/agents.json', /cannot read \/no\/such\/agents\.json as JSON/],
    ['AMSFLOW_AGENTS_FILE', file('object.json', '{"agentKey":"a","token":"t"}'), /Expected array/],
    [
      'AMSFLOW_AGENTS_FILE',
      file('nokey.json', '[{"token":"t"}]'),
      /nokey\.json, entry 1: agentKey: Required/,
    ],
    [
      'AMSFLOW_AGENTS_FILE',
      file('badurl.json', '[{"agentKey":"a","token":"t","baseUrl":"x"}]'),
      /badurl\.json, entry 1 \(agent "a"\): baseUrl: is not an absolute URL/,
    ],
    [
      'AMSFLOW_AGENTS_FILE',
      file('badkey.json', '[{"agentKey":"a b","token":"t"}]'),
      /entry 1 \(agent "a b"\): agentKey: use 1 to 100/,
    ],
    ['TEMPORAL_ADDRESS', ' ', /at least 1 character/],
    ['TEMPORAL_NAMESPACE', '', /at least 1 character/],
    ['AMSFLOW_TASK_QUEUE', ' ', /at least 1 character/],
    ['AMSFLOW_WORKFLOW_BUNDLE', './no/such/bundle.js', /no file at \.\/no\/such\/bundle\.js/],
    ['AMSFLOW_TIMEZONE', 'Mars/Olympus_Mons', /not an IANA time zone/],
    ['AMSFLOW_LIMITS', '{', /is not valid JSON/],
    ['AMSFLOW_LIMITS', '[]', /Expected object, received array/],
    ['AMSFLOW_LIMITS', 'null', /Expected object, received null/],
    ['AMSFLOW_LIMITS', '{"messages": 1.5}', /messages: Expected integer/],
    ['AMSFLOW_LIMITS', '{"windowMs": -1}', /windowMs: Number must be greater than 0/],
    ['AMSFLOW_LIMITS', '{"mesages": 3}', /Unrecognized key.*mesages/],
    ['AMSFLOW_TUNING', '"fast"', /Expected object, received string/],
    [
      'AMSFLOW_TUNING',
      '{"pollTimeoutSeconds": 26}',
      /pollTimeoutSeconds: Number must be less than or equal to 25/,
    ],
    ['AMSFLOW_TUNING', '{"pollLimit": "50"}', /pollLimit: Expected number, received string/],
    ['AMSFLOW_TUNING', '{"turbo": true}', /Unrecognized key.*turbo/],
    ['AMSFLOW_FLEET_AGENTS', '0', /greater than 0/],
    ['AMSFLOW_FLEET_AGENTS', 'many', /Expected number/],
    ['AMSFLOW_DEV_SERVER_PORT', '70000', /less than or equal to 65535/],
    ['AMSFLOW_DEV_SERVER_PORT', '', /Expected number/],
    ['AMSFLOW_DEV_SERVER_UI_PORT', '80.5', /Expected integer/],
    ['AMSFLOW_SIMULATOR_PORT', '-1', /greater than or equal to 0/],
    ['AMSFLOW_METRICS_PORT', 'on', /must be a port \(0 to 65535\) or off/],
    ['AMSFLOW_METRICS_PORT', ' ', /must be a port \(0 to 65535\) or off/],
    ['AMSFLOW_METRICS_HOST', ' ', /at least 1 character/],
    ['AMSFLOW_LOG_FORMAT', 'xml', /Expected 'json' \| 'pretty'/],
    ['AMSFLOW_LOG_LEVEL', 'loud', /Expected 'debug' \| 'info' \| 'warn' \| 'error'/],
    ['AMSFLOW_LOG_BODIES', 'yes', /Expected '0' \| '1' \| 'true' \| 'false'/],
    ['AMSFLOW_ENCRYPTION_KEYS', SECRET, /entry 1 \("k1"\): the key is 19 bytes/],
    ['AMSFLOW_ENCRYPTION_KEYS', 'not-a-key-list', /entry 1 is not id:base64key/],
  ])('%s=%j: one problem, named', (name, value, message) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(name)).toBe(true);
    expect(problems[0]).toMatch(message);
    if (name === 'AMSFLOW_ENCRYPTION_KEYS') expect(problems[0]).not.toContain(value.slice(3));
  });

  it('still takes the defaults when the ports are unset, and 0 or off when given', () => {
    expect(loadConfig({})).toMatchObject({ devServerPort: 7233, simulatorPort: 8080 });
    const config = loadConfig({ AMSFLOW_DEV_SERVER_PORT: '0', AMSFLOW_METRICS_PORT: 'off' });
    expect([config.devServerPort, config.observability.metricsPort]).toEqual([0, 'off']);
  });
});
describe('the amsflow CLI with bad arguments', () => {
  // Nothing may be contacted: a connection to this address would take seconds to fail.
  const env = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

  it.each([
    [['frobnicate'], /^unknown command "frobnicate"/],
    [['send', 'hi', '--frob'], /^Unknown option '--frob'/],
    [['send', 'hi', '--agent'], /^Option '--agent <value>' argument missing/],
    [['send'], /^send needs the text to send/],
    [['send', 'hi', '--agent', 'no:colons'], /^agent key "no:colons" is not allowed/],
    [['ensure', '--agent', 'a b'], /^agent key "a b" is not allowed/],
    [['state', '--agent=-x'], /^agent key "-x" is not allowed/],
    [
      ['approval', 'request', '--question', 'ok?', '--timeout', '1.5h'],
      /^the timeout: "1.5h" is not a duration/,
    ],
  ])('%j: the problem, the usage, exit 2', async (argv, message) => {
    const { code, out, err } = await run(argv, env);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(message);
    expect(err).toContain('usage:\n  amsflow ensure [--agent <key>]');
  });

  it('checks the agent key from AMSFLOW_AGENT too, before connecting', async () => {
    const { code, err } = await run(['ensure'], { ...env, AMSFLOW_AGENT: 'bad key' });
    expect(code).toBe(2);
    expect(err).toMatch(/^agent key "bad key" is not allowed/);
  });

  it('names a bad AMSFLOW_ENCRYPTION_KEYS without the key, exit 2', async () => {
    const { code, err } = await run(['state'], { ...env, AMSFLOW_ENCRYPTION_KEYS: SECRET });
    expect(code).toBe(2);
    expect(err).toMatch(/AMSFLOW_ENCRYPTION_KEYS/);
    expect(err).not.toContain(SECRET.slice(3));
  });

  it('without a command: the usage, exit 2', async () => {
    const { code, out } = await run([], env);
    expect(code).toBe(2);
    expect(out).toMatch(/^usage:/);
  });
});
