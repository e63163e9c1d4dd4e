/**
 * A new API key without a restart (worker/api-key-rotation.ts): what a profile read again
 * changes (pure), and the rotation on a real temporal.toml: a new key goes to every connection
 * on SIGHUP and when the file changes, never into the log; another address or TLS setting says a
 * restart is needed; a file that no longer reads keeps the old key and says why. The secured
 * cluster test (test/cluster/secured-cluster.test.ts) proves the new key reaches the server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyRotation, profileChange } from '../../worker/api-key-rotation';
import { loadTemporalProfile, type TemporalProfile } from '../../tools/temporal-profile';
import { waitFor } from '../support/temporal';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amsflow-rotation-'));
  file = join(dir, 'temporal.toml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const toml = (key: string, address = 'temporal.internal:7233') =>
  `[profile.worker]\naddress = "${address}"\nnamespace = "bots"\napi_key = "${key}"\n`;

function load(): TemporalProfile {
  return loadTemporalProfile({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'worker' })!;
}

/** A connection that records the keys it is given. */
const recorder = () => {
  const keys: string[] = [];
  return { keys, setApiKey: (key: string) => void keys.push(key) };
};

describe('profileChange', () => {
  it('hands on a new key, and names what only a restart applies', () => {
    writeFileSync(file, toml('key-a'));
    const current = load();
    writeFileSync(file, toml('key-b'));
    expect(profileChange(current, load())).toEqual({ apiKey: 'key-b', needsRestart: [] });
    expect(profileChange(current, current)).toEqual({ needsRestart: [] });
    writeFileSync(file, toml('key-a', 'elsewhere:7233'));
    expect(profileChange(current, load())).toEqual({ needsRestart: ['the address'] });
    writeFileSync(file, '[profile.worker]\naddress = "temporal.internal:7233"\nnamespace = "bots"\n');
    expect(profileChange(current, load()).needsRestart).toEqual(['the TLS settings', 'removing the API key']);
    expect(profileChange(current, undefined).needsRestart).toEqual([
      'the address (the profile has none now)',
    ]);
  });
});

describe('ApiKeyRotation', () => {
  it('gives every connection the new key on SIGHUP and when the file changes, never logging it', async () => {
    writeFileSync(file, toml('key-a'));
    const [native, client] = [recorder(), recorder()];
    const lines: string[] = [];
    const rotation = new ApiKeyRotation(load(), [native, client], (l) => void lines.push(l), {
      watchIntervalMs: 50,
    }).start();
    try {
      writeFileSync(file, toml('key-b'));
      process.emit('SIGHUP');
      await waitFor('key-b applied', () => client.keys.includes('key-b'), {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect(native.keys).toEqual(['key-b']);
      // The file changing is enough (no signal): a mounted secret updated in place.
      writeFileSync(file, toml('key-c'));
      await waitFor('key-c applied', () => client.keys.includes('key-c'), {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect(native.keys).toEqual(['key-b', 'key-c']);
      expect(lines.filter((l) => l.includes('Temporal API key replaced'))).toHaveLength(2);
      expect(lines.join('\n')).not.toMatch(/key-[bc]/);
    } finally {
      rotation.stop();
    }
    expect(process.listeners('SIGHUP')).toHaveLength(0);
  });

  it('keeps the key, saying why, when the file no longer reads or changes more than the key', async () => {
    writeFileSync(file, toml('key-a'));
    const connection = recorder();
    const lines: string[] = [];
    const rotation = new ApiKeyRotation(load(), [connection], (l) => void lines.push(l));
    writeFileSync(file, 'not = [toml');
    expect(await rotation.reload()).toBe('failed');
    expect(lines.pop()).toMatch(
      /^amsflow: the Temporal profile was read again and cannot be used; the running key stays: /,
    );
    writeFileSync(file, toml('key-a', 'elsewhere:7233'));
    expect(await rotation.reload()).toBe('unchanged');
    expect(lines.pop()).toBe(
      'amsflow: the address of profile "worker" changed: only a restart applies that (the API key alone changes while running)',
    );
    expect(connection.keys).toEqual([]);
  });
});
