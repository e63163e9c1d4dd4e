import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentTimeZones, loadConfig } from '../../worker/config';
import { problemsOf } from './config-problems';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function agentsFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'amsflow-agents-'));
  made.push(dir);
  const file = join(dir, 'agents.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('worker configuration', () => {
  it('runs on embedded defaults with nothing set: embedded server and simulator, spec limits', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      embeddedSimulator: true,
      temporalAddress: undefined,
      namespace: 'default',
      taskQueue: 'amsflow',
      agents: [{ agentKey: 'default' }],
      limits: {},
      fleetAgents: 1,
    });
    // The reference bot's module file, as the workflow bundler needs it.
    expect(existsSync(config.workflowsPath)).toBe(true);
    expect(config.workflowsPath).toMatch(/examples\/reference\/bot\.(ts|js)$/);
  });

  it('keeps npm start’s data in .amsflow of the current directory, or AMSFLOW_DATA_DIR, on fixed ports', () => {
    expect(loadConfig({})).toMatchObject({
      dataDir: join(process.cwd(), '.amsflow'),
      devServerPort: 7233,
      devServerUiPort: 8233,
      simulatorPort: 8080,
    });
    expect(loadConfig({ AMSFLOW_DATA_DIR: 'elsewhere/data' }).dataDir).toBe(
      join(process.cwd(), 'elsewhere/data'),
    );
    expect(loadConfig({ AMSFLOW_DATA_DIR: '/var/lib/amsflow' }).dataDir).toBe('/var/lib/amsflow');
    expect(
      loadConfig({
        AMSFLOW_DEV_SERVER_PORT: '17233',
        AMSFLOW_DEV_SERVER_UI_PORT: '0',
        AMSFLOW_SIMULATOR_PORT: '9090',
      }),
    ).toMatchObject({ devServerPort: 17233, devServerUiPort: 0, simulatorPort: 9090 });
    expect(problemsOf({ AMSFLOW_DATA_DIR: ' ' })).toEqual([expect.stringMatching(/^AMSFLOW_DATA_DIR: /)]);
  });

  it('runs the embedded server without its UI when AMSFLOW_DEV_SERVER_UI_PORT is off', () => {
    expect(loadConfig({ AMSFLOW_DEV_SERVER_UI_PORT: 'off' }).devServerUiPort).toBe('off');
    expect(problemsOf({ AMSFLOW_DEV_SERVER_UI_PORT: 'none' })).toEqual([
      'AMSFLOW_DEV_SERVER_UI_PORT: must be a port (0 to 65535) or off',
    ]);
  });

  it('uses the real service, without the simulator, when AMS_TOKEN and AMS_BASE_URL are set', () => {
    const config = loadConfig({ AMS_TOKEN: 't', AMS_BASE_URL: 'https://ams.example/agent/v1' });
    expect(config.embeddedSimulator).toBe(false);
    expect(config.temporalAddress).toBeUndefined();
    expect(config.agents).toEqual([
      { agentKey: 'default', token: 't', baseUrl: 'https://ams.example/agent/v1' },
    ]);
  });

  it('reads the bot configuration as JSON or from a JSON file, and the bot’s activities module', () => {
    expect(loadConfig({ AMSFLOW_BOT_CONFIG: '{"greeting":"Hej"}' }).botConfig).toEqual({ greeting: 'Hej' });
    expect(loadConfig({ AMSFLOW_BOT_CONFIG: agentsFile({ fromFile: [1, 2] }) }).botConfig).toEqual({
      fromFile: [1, 2],
    });
    expect(loadConfig({}).botConfig).toBeUndefined();
    const activities = loadConfig({ AMSFLOW_ACTIVITIES: 'test/engine/bot-activities.ts' }).activitiesPath;
    expect(activities).toMatch(/test\/engine\/bot-activities\.ts$/);
  });

  it('names a bad bot configuration or activities module, nothing started', () => {
    expect(problemsOf({ AMSFLOW_BOT_CONFIG: '{"greeting":' })[0]).toMatch(
      /^AMSFLOW_BOT_CONFIG: not valid JSON/,
    );
    expect(problemsOf({ AMSFLOW_BOT_CONFIG: './no/such/config.json' })[0]).toMatch(
      /^AMSFLOW_BOT_CONFIG: neither JSON nor a readable file/,
    );
    expect(problemsOf({ AMSFLOW_BOT_CONFIG: agentsFile('{oops') })[0]).toMatch(/is not valid JSON/);
    expect(problemsOf({ AMSFLOW_BOT_CONFIG: JSON.stringify({ big: 'x'.repeat(70_000) }) })[0]).toMatch(
      /larger than 65536 bytes/,
    );
    expect(problemsOf({ AMSFLOW_ACTIVITIES: './no/such/activities' })).toEqual([
      'AMSFLOW_ACTIVITIES: no module at ./no/such/activities',
    ]);
  });

  it('names a workflows module that does not exist', () => {
    expect(problemsOf({ AMSFLOW_WORKFLOWS: './no/such/bot' })).toEqual([
      expect.stringMatching(/^AMSFLOW_WORKFLOWS: no module at /),
    ]);
  });

  it('serves one agent from AMS_TOKEN, AMS_BASE_URL and AMSFLOW_AGENT', () => {
    const config = loadConfig({
      AMS_TOKEN: 'secret-token',
      AMS_BASE_URL: 'https://ams.example/agent/v1',
      AMSFLOW_AGENT: 'support-bot',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'prod',
      AMSFLOW_TASK_QUEUE: 'bots',
    });
    expect(config.embeddedSimulator).toBe(false);
    expect(config.agents).toEqual([
      { agentKey: 'support-bot', token: 'secret-token', baseUrl: 'https://ams.example/agent/v1' },
    ]);
    expect(config).toMatchObject({ temporalAddress: 'temporal:7233', namespace: 'prod', taskQueue: 'bots' });
  });

  it('names every bad variable at once, without echoing values', () => {
    const problems = problemsOf({
      AMS_TOKEN: 'super-secret-value',
      AMS_BASE_URL: 'not a url super-secret-value',
      AMSFLOW_AGENT: 'bad key!',
      AMSFLOW_LIMITS: '{"messages": 0}',
      AMSFLOW_TUNING: 'not json',
      AMSFLOW_DEV_SERVER_PORT: 'seventy',
    });
    const text = problems.join('\n');
    for (const name of [
      'AMS_BASE_URL',
      'AMSFLOW_AGENT',
      'AMSFLOW_LIMITS',
      'AMSFLOW_TUNING',
      'AMSFLOW_DEV_SERVER_PORT',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).not.toContain('super-secret-value');
  });

  it("connects where Temporal's own settings say: a profile of temporal.toml, the TEMPORAL_* variables over it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'amsflow-profile-'));
    try {
      const file = join(dir, 'temporal.toml');
      writeFileSync(
        file,
        '[profile.prod]\naddress = "temporal.internal:7233"\nnamespace = "bots"\napi_key = "k-123"\n',
      );
      const config = loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' });
      expect(config).toMatchObject({ temporalAddress: 'temporal.internal:7233', namespace: 'bots' });
      expect(config.temporal).toMatchObject({ apiKey: 'k-123', tls: true, origin: 'profile "prod"' });
      // A promotion policy for a real cluster, not the embedded one's.
      expect(config.deploy.promote).toBe('first');
      expect(
        loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'x' })
          .namespace,
      ).toBe('x');
      expect(problemsOf({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' })).toEqual([
        `TEMPORAL_PROFILE / --profile: no profile "staging" in ${file}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes the Worker Controller's deployment name and build id, and leaves promotion to it", () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_DEPLOYMENT_NAME: 'bots',
      TEMPORAL_WORKER_BUILD_ID: 'v42',
    });
    expect(config.deploy).toMatchObject({ deploymentName: 'bots', buildId: 'v42', promote: 'never' });
    expect(
      loadConfig({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_DEPLOYMENT_NAME: 'bots',
        AMSFLOW_PROMOTE: 'first',
      }).deploy.promote,
    ).toBe('first');
    expect(
      problemsOf({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_DEPLOYMENT_NAME: 'bots',
        AMSFLOW_DEPLOYMENT: 'other',
      }),
    ).toEqual([
      'AMSFLOW_DEPLOYMENT and TEMPORAL_DEPLOYMENT_NAME disagree (other / bots): set one, or both alike',
    ]);
  });

  it('refuses a base URL without a token', () => {
    expect(problemsOf({ AMS_BASE_URL: 'https://ams.example/agent/v1' })).toEqual([
      'AMS_TOKEN: required when AMS_BASE_URL is set',
    ]);
  });

  it('reads several agents from AMSFLOW_AGENTS_FILE, with tokens inline or from named variables', () => {
    const file = agentsFile([
      { agentKey: 'a', token: 'token-a' },
      { agentKey: 'b', tokenEnv: 'B_TOKEN', baseUrl: 'https://other.example/agent/v1' },
    ]);
    const config = loadConfig({
      AMSFLOW_AGENTS_FILE: file,
      B_TOKEN: 'token-b',
      AMS_BASE_URL: 'https://ams.example/agent/v1',
    });
    expect(config.agents).toEqual([
      { agentKey: 'a', token: 'token-a', baseUrl: 'https://ams.example/agent/v1' },
      { agentKey: 'b', tokenEnv: 'B_TOKEN', token: 'token-b', baseUrl: 'https://other.example/agent/v1' },
    ]);
    expect(config.fleetAgents).toBe(2);
  });

  it("keeps each agent's own time zone from the agents file, canonically spelt", () => {
    const file = agentsFile([
      { agentKey: 'a', token: 'token-a', timeZone: 'europe/berlin' },
      { agentKey: 'b', token: 'token-b' },
    ]);
    const config = loadConfig({ AMSFLOW_AGENTS_FILE: file, AMSFLOW_TIMEZONE: 'America/New_York' });
    expect(config.agents.map((a) => a.timeZone)).toEqual(['Europe/Berlin', undefined]);
    expect(agentTimeZones(config.agents)).toEqual({ a: 'Europe/Berlin' });
    expect(config.timeZone).toBe('America/New_York');
  });

  it.each([
    ['unreadable JSON', '{oops', /AMSFLOW_AGENTS_FILE: cannot read .* as JSON/],
    ['an empty list', [], /^AMSFLOW_AGENTS_FILE \S+agents\.json: lists no agents$/],
    [
      'an object, not a list',
      { agentKey: 'a', token: 't' },
      /agents\.json: Expected array of agents, received object/,
    ],
    [
      'a duplicate key',
      [
        { agentKey: 'a', token: 't' },
        { agentKey: 'a', token: 'u' },
      ],
      /entry 2 \(agent "a"\): agentKey: duplicate "a"/,
    ],
    ['no token at all', [{ agentKey: 'a' }], /entry 1 \(agent "a"\): needs "token", or "tokenEnv"/],
    ['an unknown member', [{ agentKey: 'a', token: 't', tokne: 'x' }], /Unrecognized key/],
    [
      'an unknown time zone',
      [{ agentKey: 'berlin-desk', token: 't', timeZone: 'Europe/Berln' }],
      /AMSFLOW_AGENTS_FILE .*, entry 1 \(agent "berlin-desk"\): timeZone: "Europe\/Berln" is not an IANA time zone/,
    ],
  ])('reports an agents file with %s', (_name, content, expected) => {
    expect(problemsOf({ AMSFLOW_AGENTS_FILE: agentsFile(content) }).join('\n')).toMatch(expected);
  });
});

describe('base URLs, tokens and the agents file: every problem at once, before anything starts', () => {
  const EXAMPLE = 'https://ams.example/agent/v1';

  it.each([
    ['https://ams.example/agent/v1'],
    ['https://ams.example/agent/v1/'],
    ['https://ams.example:8443/prefix/agent/v1'],
    ['http://127.0.0.1:8080/agent/v1'],
    ['http://localhost:8080/agent/v1'],
    ['http://[::1]:8080/agent/v1'],
  ])('accepts %s', (url) => {
    expect(loadConfig({ AMS_TOKEN: 't', AMS_BASE_URL: url }).agents[0].baseUrl).toBe(url);
  });

  it.each([
    [
      'https://ams.example',
      /^AMS_BASE_URL: https:\/\/ams\.example\/ does not end in the version prefix \/agent\/v1/,
    ],
    ['https://ams.example/agent/v2', /does not end in the version prefix \/agent\/v1/],
    ['ftp://nope', /^AMS_BASE_URL: uses ftp:, not https/],
    ['ams.example/agent/v1', /^AMS_BASE_URL: is not an absolute URL/],
    [
      'http://ams.example/agent/v1',
      /^AMS_BASE_URL: http:\/\/ams\.example\/agent\/v1 is plain http to another host/,
    ],
  ])('refuses AMS_BASE_URL=%s, saying why', (url, message) => {
    const problems = problemsOf({ AMS_TOKEN: 't', AMS_BASE_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('never shows credentials or a query of a URL it refuses', () => {
    const [problem] = problemsOf({
      AMS_TOKEN: 't',
      AMS_BASE_URL: 'https://user:hunter2@ams.example/v1?key=s3cr3t',
    });
    expect(problem).toMatch(/^AMS_BASE_URL: https:\/\/ams\.example\/v1 does not end/);
    expect(problem).not.toMatch(/hunter2|s3cr3t/);
  });

  it('refuses a token with whitespace, a line break, a control or non-ASCII character inside, without showing it', () => {
    for (const token of [
      'abc def',
      'abc\ndef',
      'abc\tdef',
      'abc\u0000def',
      'abc\u0007def',
      'abc\u007fdef',
      'abcédef',
    ]) {
      const problems = problemsOf({ AMS_TOKEN: token, AMS_BASE_URL: EXAMPLE });
      expect(problems).toEqual([
        expect.stringMatching(
          /^AMS_TOKEN: contains whitespace, a line break, a control or a non-ASCII character/,
        ),
      ]);
      expect(problems[0]).not.toContain('abc');
    }
    // Around it, whitespace is not part of it (a variable read from a file ends in a newline).
    expect(loadConfig({ AMS_TOKEN: ' abc\n', AMS_BASE_URL: EXAMPLE }).agents[0].token).toBe('abc');
  });

  it('an agents file: every bad entry, each named by its position, agentKey and the file', () => {
    const file = agentsFile([
      { agentKey: 'good', token: 'token-good', baseUrl: EXAMPLE },
      { agentKey: 'ftp', token: 'token-ftp', baseUrl: 'ftp://nope' },
      { agentKey: 'noprefix', tokenEnv: 'NOPREFIX_TOKEN', baseUrl: 'https://ams.example' },
      { agentKey: 'unset', tokenEnv: 'UNSET_TOKEN_VAR' },
      { agentKey: 'spaced', tokenEnv: 'SPACED_TOKEN' },
      { agentKey: 'inline', token: 'two\nlines' },
      { agentKey: 'control', token: 'bell\u0007char' },
      { agentKey: 'both bad', tokenEnv: 'ALSO_UNSET', baseUrl: 'http://remote.example/agent/v1' },
      { token: 'keyless' },
    ]);
    const problems = problemsOf({
      AMSFLOW_AGENTS_FILE: file,
      NOPREFIX_TOKEN: 'fine',
      SPACED_TOKEN: 'has space',
    });
    const at = (n: number, key?: string) =>
      `AMSFLOW_AGENTS_FILE ${file}, entry ${n}${key ? ` (agent "${key}")` : ''}: `;
    expect(problems).toEqual([
      `${at(2, 'ftp')}baseUrl: uses ftp:, not https: use the service root with its version prefix, like https://ams.example.com/agent/v1`,
      `${at(3, 'noprefix')}baseUrl: https://ams.example/ does not end in the version prefix /agent/v1 (like https://ams.example.com/agent/v1)`,
      `${at(4, 'unset')}tokenEnv: the variable UNSET_TOKEN_VAR is not set (or empty)`,
      `${at(5, 'spaced')}tokenEnv: the variable SPACED_TOKEN contains whitespace, a line break, a control or a non-ASCII character (a token has none: check how it was pasted)`,
      `${at(6, 'inline')}token: contains whitespace, a line break, a control or a non-ASCII character (a token has none: check how it was pasted)`,
      `${at(7, 'control')}token: contains whitespace, a line break, a control or a non-ASCII character (a token has none: check how it was pasted)`,
      expect.stringMatching(new RegExp(`^${escape(at(8, 'both bad'))}agentKey: use 1 to 100`)),
      expect.stringMatching(
        new RegExp(`^${escape(at(8, 'both bad'))}baseUrl: http://remote\\.example/agent/v1 is plain http`),
      ),
      `${at(8, 'both bad')}tokenEnv: the variable ALSO_UNSET is not set (or empty)`,
      `${at(9)}agentKey: Required`,
    ]);
    expect(problems.join('\n')).not.toMatch(/token-ftp|two\nlines|has space|keyless|bell/);
  });

  it('AMS_BASE_URL, the default of entries without one, is checked too', () => {
    const file = agentsFile([{ agentKey: 'a', token: 't' }]);
    expect(problemsOf({ AMSFLOW_AGENTS_FILE: file, AMS_BASE_URL: 'https://ams.example' })).toEqual([
      expect.stringMatching(/^AMS_BASE_URL: .* does not end in the version prefix/),
    ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
