/**
 * docker-compose.tls.yml, checked without Docker: a valid compose file; the Temporal server gets
 * the variables the secured native cluster test runs it with (test/cluster/secured-cluster.test.ts,
 * chaos/cluster/temporal-server.ts `securedEnv`), pointing at the files
 * deploy/temporal/make-certs.sh makes; every client of Temporal in the file (the workers, the
 * namespace job, the UI) gets the CA, a client certificate and the server's name, the workers and
 * the job a token; nothing waits on a health check the override turns off.
 */
import Ajv from 'ajv';
import { load } from 'js-yaml';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { securedEnv, serverPorts } from '../../chaos/cluster/temporal-server';

const root = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface Service {
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { disable?: boolean };
}
const override = load(read('docker-compose.tls.yml')) as { services: Record<string, Service> };
const base = load(read('docker-compose.yml')) as { services: Record<string, Service> };
const services = override.services;

/** The files make-certs.sh writes. */
const MADE = read('deploy/temporal/make-certs.sh')
  .split('\n')
  .flatMap((line) => [...line.matchAll(/\b(ca|server|client)\.(crt|key)\b/g)].map((m) => m[0]));

/** Where a service mounts the certificates folder. */
function certsMount(service: Service): string | undefined {
  return (service.volumes ?? []).find((v) => v.startsWith('${AMSFLOW_TLS_DIR:-./tls}:'))?.split(':')[2];
}

describe('docker-compose.tls.yml', () => {
  it('validates against the Compose Specification JSON schema, and overrides only services of docker-compose.yml', () => {
    const { $schema: _, ...schema } = JSON.parse(read('test/cluster/compose-spec.json')) as Record<
      string,
      unknown
    >;
    const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
    validate(override);
    expect(validate.errors ?? []).toEqual([]);
    expect(Object.keys(services).filter((name) => !(name in base.services))).toEqual([]);
  });

  it('runs the server with the variables of the secured native cluster, on the files make-certs.sh makes', async () => {
    const native = securedEnv(
      {
        serverCert: 's.crt',
        serverKey: 's.key',
        serverCaCert: 'ca.crt',
        clientCaCert: 'ca.crt',
        jwksUri: 'u',
      },
      await serverPorts(),
    );
    const env = services.temporal.environment ?? {};
    const nativeNames = Object.keys(native).filter((n) => !n.startsWith('INTERNAL_FRONTEND_'));
    expect(Object.keys(env).sort()).toEqual(nativeNames.sort());
    const dir = certsMount(services.temporal);
    expect(dir).toBe('/etc/temporal/tls');
    const files = Object.values(env).filter((v) => v.startsWith(`${dir}/`));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) expect(MADE).toContain(file.slice(dir!.length + 1));
    // Every variable the override sets is one the config template reads.
    const template = read('deploy/temporal/config.yaml.tmpl');
    for (const name of Object.keys(env))
      expect({ name, read: template.includes(`env "${name}"`) }).toEqual({ name, read: true });
  });

  it('gives every client of Temporal the CA, a client certificate and the server name; the workers and the job a token', () => {
    const clients = Object.entries(base.services)
      .filter(([, s]) => s.environment?.TEMPORAL_ADDRESS !== undefined)
      .map(([name]) => name);
    expect(clients.length).toBeGreaterThanOrEqual(4);
    for (const name of clients) {
      const env = services[name]?.environment ?? {};
      const dir = certsMount(services[name] ?? {});
      expect({ name, dir }).toEqual({ name, dir: '/etc/amsflow/tls' });
      const paths = Object.values(env).filter((v) => v.startsWith(`${dir}/`));
      expect({ name, files: paths.map((p) => p.slice(dir!.length + 1)).sort() }).toEqual({
        name,
        files: ['ca.crt', 'client.crt', 'client.key'],
      });
      expect({ name, serverName: env.TEMPORAL_TLS_SERVER_NAME }).toEqual({ name, serverName: 'temporal' });
      if (name !== 'temporal-ui')
        expect({ name, token: env.TEMPORAL_API_KEY }).toEqual({
          name,
          token: expect.stringMatching(/^\$\{[A-Z_]+:\?/),
        });
    }
  });

  it('waits on no health check it turns off, and the server certificate names the host the services dial', () => {
    expect(services.temporal.healthcheck?.disable).toBe(true);
    const merged = Object.entries(base.services).map(([name, s]) => ({
      name,
      waits: { ...s.depends_on, ...services[name]?.depends_on }.temporal?.condition,
    }));
    for (const { name, waits } of merged)
      expect({ name, healthy: waits === 'service_healthy' }).toEqual({ name, healthy: false });
    expect(read('docker-compose.tls.yml')).toMatch(/SERVER_NAMES=DNS:temporal,/);
    expect(services.temporal.environment?.TEMPORAL_TLS_INTERNODE_SERVER_NAME).toBe('temporal');
  });
});
