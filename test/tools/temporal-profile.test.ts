/**
 * Temporal's connection settings as amsflow reads them (tools/temporal-profile.ts), without a
 * server: profiles of temporal.toml with the `TEMPORAL_*` variables over them, TLS from paths or
 * data, the API key turning TLS on, and a clear error naming each setting that cannot be used.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectionOptions,
  connectFailureLine,
  credentialsRefused,
  loadTemporalProfile,
  TemporalProfileError,
} from '../../tools/temporal-profile';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-profile-'));
  writeFileSync(join(dir, 'ca.pem'), 'CA PEM');
  writeFileSync(join(dir, 'client.pem'), 'CLIENT PEM');
  writeFileSync(join(dir, 'client.key'), 'KEY PEM');
  writeFileSync(
    join(dir, 'temporal.toml'),
    [
      '[profile.default]',
      'address = "default.example:7233"',
      '',
      '[profile.cloud]',
      'address = "my-ns.a1b2c.tmprl.cloud:7233"',
      'namespace = "my-ns.a1b2c"',
      'api_key = "cloud-key-0123456789"',
      '',
      '[profile.secure]',
      'address = "temporal.internal:7233"',
      'namespace = "bots"',
      '[profile.secure.tls]',
      `server_ca_cert_path = "${join(dir, 'ca.pem')}"`,
      `client_cert_path = "${join(dir, 'client.pem')}"`,
      `client_key_path = "${join(dir, 'client.key')}"`,
      'server_name = "temporal"',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An environment with no config file of the user's in reach (HOME is a fresh directory). */
const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({
  HOME: dir,
  XDG_CONFIG_HOME: dir,
  ...vars,
});
const file = () => join(dir, 'temporal.toml');

describe('loadTemporalProfile', () => {
  it('is undefined with nothing configured: the caller keeps its default (the embedded server)', () => {
    expect(loadTemporalProfile(env({}))).toBeUndefined();
    expect(loadTemporalProfile(env({ TEMPORAL_NAMESPACE: 'bots' }))).toBeUndefined();
  });

  it("reads the user's temporal.toml only when a profile or the file is named", () => {
    const home = mkdtempSync(join(tmpdir(), 'amsflow-home-'));
    try {
      mkdirSync(join(home, '.config', 'temporalio'), { recursive: true });
      writeFileSync(
        join(home, '.config', 'temporalio', 'temporal.toml'),
        '[profile.default]\naddress = "cloud.example:7233"\napi_key = "cloud-key"\n',
      );
      // Nothing named: the embedded server, and a bare address gets no TLS or key from the file.
      expect(loadTemporalProfile({ HOME: home })).toBeUndefined();
      expect(loadTemporalProfile({ HOME: home, TEMPORAL_ADDRESS: '127.0.0.1:7233' })).toMatchObject({
        address: '127.0.0.1:7233',
      });
      expect(loadTemporalProfile({ HOME: home, TEMPORAL_ADDRESS: '127.0.0.1:7233' })!.apiKey).toBeUndefined();
      // Named: read.
      expect(loadTemporalProfile({ HOME: home, TEMPORAL_PROFILE: 'default' })).toMatchObject({
        address: 'cloud.example:7233',
        apiKey: 'cloud-key',
      });
      expect(loadTemporalProfile({ HOME: home }, { profile: 'default' })?.address).toBe('cloud.example:7233');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('takes a plain address and namespace from the variables, with no TLS', () => {
    const p = loadTemporalProfile(env({ TEMPORAL_ADDRESS: '10.0.0.5:7233', TEMPORAL_NAMESPACE: 'bots' }))!;
    expect(p).toMatchObject({ address: '10.0.0.5:7233', namespace: 'bots', origin: 'TEMPORAL_ADDRESS' });
    expect(p.tls).toBeUndefined();
    expect(connectionOptions(p)).toEqual({ address: '10.0.0.5:7233' });
  });

  it("reads the file's default profile, and a named one from TEMPORAL_PROFILE or the caller", () => {
    expect(loadTemporalProfile(env({ TEMPORAL_CONFIG_FILE: file() }))).toMatchObject({
      address: 'default.example:7233',
      origin: 'the default profile of temporal.toml',
    });
    const cloud = loadTemporalProfile(env({ TEMPORAL_CONFIG_FILE: file(), TEMPORAL_PROFILE: 'cloud' }))!;
    expect(cloud).toMatchObject({
      address: 'my-ns.a1b2c.tmprl.cloud:7233',
      namespace: 'my-ns.a1b2c',
      apiKey: 'cloud-key-0123456789',
      // An API key turns TLS on, with the system's roots (as Temporal Cloud expects).
      tls: true,
      origin: 'profile "cloud"',
    });
    expect(connectionOptions(cloud)).toMatchObject({ apiKey: 'cloud-key-0123456789', tls: true });
    // The caller's choice (the CLI's --profile) wins over TEMPORAL_PROFILE.
    expect(
      loadTemporalProfile(env({ TEMPORAL_CONFIG_FILE: file(), TEMPORAL_PROFILE: 'cloud' }), {
        profile: 'secure',
      }),
    ).toMatchObject({ address: 'temporal.internal:7233', namespace: 'bots' });
  });

  it('reads TLS files of a profile and lets the variables override its settings', () => {
    const p = loadTemporalProfile(
      env({ TEMPORAL_CONFIG_FILE: file(), TEMPORAL_PROFILE: 'secure', TEMPORAL_ADDRESS: '127.0.0.1:7444' }),
    )!;
    expect(p.address).toBe('127.0.0.1:7444');
    expect(p.origin).toBe('profile "secure" (address from TEMPORAL_ADDRESS)');
    const tls = p.tls as Exclude<typeof p.tls, boolean | undefined>;
    expect(Buffer.from(tls.serverRootCACertificate!).toString()).toBe('CA PEM');
    expect(Buffer.from(tls.clientCertPair!.crt).toString()).toBe('CLIENT PEM');
    expect(Buffer.from(tls.clientCertPair!.key).toString()).toBe('KEY PEM');
    expect(tls.serverNameOverride).toBe('temporal');
  });

  it('takes TLS from TEMPORAL_TLS_* alone, as paths or data', () => {
    const p = loadTemporalProfile(
      env({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'INLINE CA',
        TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
      }),
    )!;
    const tls = p.tls as Exclude<typeof p.tls, boolean | undefined>;
    expect(Buffer.from(tls.serverRootCACertificate!).toString()).toBe('INLINE CA');
    expect(Buffer.from(tls.clientCertPair!.crt).toString()).toBe('CLIENT PEM');
    expect(p.tlsSettings).toEqual([
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
      'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
    ]);
    // TEMPORAL_TLS=false turns it off again (an API key with a plaintext test server).
    expect(
      loadTemporalProfile(env({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }))!
        .tls,
    ).toBe(false);
    expect(loadTemporalProfile(env({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS: 'true' }))!.tls).toEqual({});
  });

  it.each([
    [
      'a certificate file that is not there',
      { TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nowhere/ca.pem' },
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH: no file at /nowhere/ca.pem (the server CA certificate)',
    ],
    [
      'a client certificate without its key',
      { TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_CLIENT_CERT_PATH: '<dir>/client.pem' },
      'TEMPORAL_TLS_CLIENT_CERT_* given without TEMPORAL_TLS_CLIENT_KEY_*: mTLS needs both the client certificate and its key',
    ],
    [
      'an API key with no address',
      { TEMPORAL_API_KEY: 'secret-key' },
      'TEMPORAL_API_KEY given but no address: set TEMPORAL_ADDRESS (host:port) or an address in the profile',
    ],
    [
      'a profile the file does not have',
      { TEMPORAL_CONFIG_FILE: '<file>', TEMPORAL_PROFILE: 'staging' },
      'TEMPORAL_PROFILE / --profile: no profile "staging" in <file>',
    ],
    [
      'a config file that is not there',
      { TEMPORAL_CONFIG_FILE: '/nowhere/temporal.toml', TEMPORAL_PROFILE: 'x' },
      'TEMPORAL_CONFIG_FILE: no file at /nowhere/temporal.toml',
    ],
  ])('refuses %s, naming the setting', (_, vars, message) => {
    const fill = (v: string) => v.replace('<dir>', dir).replace('<file>', file());
    const given = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, fill(v)]));
    expect(() => loadTemporalProfile(env(given))).toThrow(new TemporalProfileError(fill(message)));
  });

  it('names a config file that does not parse', () => {
    const bad = join(dir, 'bad.toml');
    writeFileSync(bad, '[profile.default\naddress = ');
    expect(() => loadTemporalProfile(env({ TEMPORAL_CONFIG_FILE: bad }))).toThrow(`${bad} cannot be read: `);
  });
});

describe('connectFailureLine', () => {
  const profile = loadTemporalProfile(
    env({ TEMPORAL_ADDRESS: 'ns.tmprl.cloud:7233', TEMPORAL_API_KEY: 'key-that-must-not-show' }),
  )!;

  it('says an API key was refused, without the key', () => {
    const line = connectFailureLine(
      profile,
      Object.assign(new Error('16 UNAUTHENTICATED: Request unauthenticated key-that-must-not-show'), {
        code: 16,
      }),
    );
    expect(line).toBe(
      'cannot connect to Temporal at ns.tmprl.cloud:7233 (TEMPORAL_ADDRESS): the server refused the API key: check TEMPORAL_API_KEY (expired, revoked, or for another account)',
    );
  });

  it('says a caller was refused for the namespace', () => {
    expect(connectFailureLine(profile, new Error('7 PERMISSION_DENIED: Request unauthorized.'))).toMatch(
      /refused this client for namespace default: check TEMPORAL_API_KEY's permissions and TEMPORAL_NAMESPACE$/,
    );
  });

  it('says a caller without a token may need one', () => {
    const keyless = loadTemporalProfile(
      env({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS: 'true' }),
    )!;
    expect(connectFailureLine(keyless, new Error('7 PERMISSION_DENIED: Request unauthorized.'))).toMatch(
      /refused this client for namespace default: it may require an API key or token \(set TEMPORAL_API_KEY\), or check TEMPORAL_NAMESPACE$/,
    );
  });

  it('tells refused credentials from other failures by their status code', () => {
    expect(
      [16, 7, 14, 5, undefined].map((code) => credentialsRefused(Object.assign(new Error('x'), { code }))),
    ).toEqual([true, true, false, false, false]);
  });

  it('hides the API key in a message it passes on', () => {
    expect(connectFailureLine(profile, new Error('odd failure near key-that-must-not-show'))).toBe(
      'cannot connect to Temporal at ns.tmprl.cloud:7233 (TEMPORAL_ADDRESS): odd failure near [API key]',
    );
  });
});
