/**
 * docker-compose.yml, .env.example and the Dockerfile, checked without Docker: the compose
 * file's structure (the basics of the compose spec), pinned images, health checks and start
 * order, that every variable it reads is documented, and that its images and Temporal server
 * settings are those the native cluster test runs (deploy/versions.json, the config template,
 * the schema and namespace scripts).
 */
import Ajv from 'ajv';
import { load } from 'js-yaml';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { CLUSTER_VERSIONS as V } from '../../scripts/cluster-tools';
import { serverEnv, serverPorts } from '../../chaos/cluster/temporal-server';
import { loadConfig } from '../../worker/config';

const root = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: string | { context: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  volumes?: string[];
  ports?: string[];
  entrypoint?: string[];
  restart?: string;
  [key: string]: unknown;
}

const composeText = read('docker-compose.yml');
const compose = load(composeText) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;

const CONDITIONS = ['service_started', 'service_healthy', 'service_completed_successfully'];

const serviceByImage = (repo: string) =>
  Object.entries(services).filter(([, s]) => s.image?.split(':')[0] === repo);

/**
 * The file as `docker compose config` would see it: variables replaced by their default or the
 * value `.env.example` gives (`$$` is a literal `$`).
 */
function interpolated(text: string, example: string): unknown {
  const values = new Map([...example.matchAll(/^([A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1], m[2] || 'set']));
  const replaced = text.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g,
    (all, name: string, op, arg: string) => {
      if (all === '$$') return '$';
      return op?.endsWith('-') ? (values.get(name) ?? arg) : (values.get(name) ?? '');
    },
  );
  return load(replaced);
}

describe('docker-compose.yml', () => {
  it('validates against the Compose Specification JSON schema', () => {
    // test/cluster/compose-spec.json: schema/compose-spec.json of github.com/compose-spec/compose-spec
    // at 170098ba07d9 (Apache-2.0), the schema `docker compose config` validates with.
    const { $schema: _, ...schema } = JSON.parse(read('test/cluster/compose-spec.json')) as Record<
      string,
      unknown
    >;
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    const valid = validate(interpolated(composeText, read('.env.example')));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('pins every image to a version (never latest) and the versions are deploy/versions.json', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, runnable: Boolean(service.image || service.build) }).toEqual({ name, runnable: true });
      if (service.build) continue;
      const [, tag] = (service.image ?? '').split(':');
      expect({ name, tag }).toEqual({ name, tag: expect.stringMatching(/^\d+(\.\d+)+(-[\w.]+)?$/) });
    }
    const tags = (repo: string) => [...new Set(serviceByImage(repo).map(([, s]) => s.image!.split(':')[1]))];
    expect(tags('postgres')).toEqual([V.postgresImage]);
    expect(tags('temporalio/server')).toEqual([V.temporalServer]);
    expect(tags('temporalio/admin-tools')).toEqual([V.temporalServer]);
    expect(tags('temporalio/ui')).toEqual([V.temporalUi]);
    expect(serviceByImage('temporalio/auto-setup')).toEqual([]);
    expect(Number(V.postgresImage.split('.')[0])).toBeGreaterThanOrEqual(V.postgresMinMajor);
  });

  it('starts in order: depends_on with conditions, health checks where health is awaited', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect({ name, target, exists: target in services }).toEqual({ name, target, exists: true });
        expect(CONDITIONS).toContain(condition);
        if (condition === 'service_healthy')
          expect({ target, healthcheck: !!services[target].healthcheck }).toEqual({
            target,
            healthcheck: true,
          });
        if (condition === 'service_completed_successfully') {
          // A one-shot job: restarting it forever would never complete.
          expect({ target, restart: services[target].restart ?? 'no' }).toEqual({ target, restart: 'no' });
        }
      }
    }
    const [[server]] = serviceByImage('temporalio/server');
    const oneShots = serviceByImage('temporalio/admin-tools').map(([name]) => name);
    expect(oneShots).toHaveLength(2);
    expect(services[server].depends_on).toEqual({
      [oneShots[0]]: { condition: 'service_completed_successfully' },
    });
    expect(services[oneShots[0]].depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(services[oneShots[1]].depends_on).toEqual({ [server]: { condition: 'service_healthy' } });
  });

  it('keeps PostgreSQL data in a named volume', () => {
    const [[name, postgres]] = serviceByImage('postgres');
    const mount = (postgres.volumes ?? []).find((v) => v.endsWith(':/var/lib/postgresql/data'));
    const volume = mount?.split(':')[0] ?? '';
    expect({ name, volume }).toEqual({ name, volume: expect.stringMatching(/^[a-z][\w-]*$/) });
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
  });

  it('runs two amsflow workers from the Dockerfile against the cluster, metrics port exposed', () => {
    const workers = Object.entries(services).filter(([, s]) => s.build);
    expect(workers).toHaveLength(2);
    for (const [name, worker] of workers) {
      expect({ name, build: worker.build }).toEqual({ name, build: '.' });
      expect(worker.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(worker.environment?.AMSFLOW_METRICS_PORT).toBe('9464');
      // Reachable from outside the container (the default is loopback only).
      expect(worker.environment?.AMSFLOW_METRICS_HOST).toBe('0.0.0.0');
      expect(worker.ports?.some((p) => p.endsWith(':9464'))).toBe(true);
      expect(worker.healthcheck).toBeDefined();
    }
    // The same agent on both, so that they share its task queues.
    expect(workers[0][1].environment).toEqual(workers[1][1].environment);
    expect(existsSync(join(root, 'Dockerfile'))).toBe(true);
  });

  it('needs Compose v2 and says so (no version key; the header and docs/OPERATIONS.md name it)', () => {
    expect(Object.keys(compose)).not.toContain('version');
    expect(composeText.split('\n').slice(0, 10).join('\n')).toMatch(/Docker Compose v2 .* is required/s);
    expect(read('docs/OPERATIONS.md')).toMatch(
      /Docker Compose v2 \(`docker compose`, 2\.3 or later\) is required/,
    );
  });

  it("gives the workers the env file's encryption keys, off by default, and its other security settings", () => {
    const example = read('.env.example');
    for (const [, worker] of Object.entries(services).filter(([, s]) => s.build)) {
      expect(worker.environment).toMatchObject({
        AMSFLOW_ENCRYPTION_KEYS: '${AMSFLOW_ENCRYPTION_KEYS:-off}',
        AMSFLOW_ENCRYPTION_STRICT: '${AMSFLOW_ENCRYPTION_STRICT:-0}',
        AMSFLOW_MEDIA_ORIGINS: '${AMSFLOW_MEDIA_ORIGINS:-}',
        AMSFLOW_METRICS_ALLOWED_HOSTS: expect.stringContaining(
          ':-amsflow-worker-1,amsflow-worker-2}',
        ) as string,
      });
    }
    // The defaults, as compose hands them to the worker, are valid worker configuration.
    // Compose hands every value over as a string (`${X:-}` as an empty one).
    const interpolatedEnv = (interpolated(composeText, example) as typeof compose).services[
      'amsflow-worker-1'
    ].environment!;
    const env = Object.fromEntries(Object.entries(interpolatedEnv).map(([k, v]) => [k, String(v ?? '')]));
    expect(env.AMSFLOW_ENCRYPTION_KEYS).toBe('off');
    const config = loadConfig({ ...env, AMS_TOKEN: 'token-1234567890' });
    expect(config.encryptionKeys).toBeUndefined();
    expect(config.observability.metricsAllowedHosts).toEqual(['amsflow-worker-1', 'amsflow-worker-2']);
    const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
    expect(
      loadConfig({ ...env, AMS_TOKEN: 'token-1234567890', AMSFLOW_ENCRYPTION_KEYS: key }).encryptionKeys,
    ).toHaveLength(1);
  });

  it("checks Temporal's health by a request that needs its database, not an open port", () => {
    const [[, server]] = serviceByImage('temporalio/server');
    const test = server.healthcheck!.test as string[];
    expect(test.slice(0, 2)).toEqual(['CMD', 'wget']);
    expect(test.at(-1)).toBe('http://127.0.0.1:7243/api/v1/namespaces/temporal-system/workflow-count');
    expect(read('deploy/temporal/config.yaml.tmpl')).toContain('default "7243" (env "FRONTEND_HTTP_PORT")');
  });

  it('runs the codec server only on request, with the keys, a credential, on loopback', () => {
    const codec = services['amsflow-codec-server'];
    expect(codec.profiles).toEqual(['codec']);
    expect(codec.build).toBeUndefined();
    expect(codec.image).toBe(services['amsflow-worker-1'].image);
    expect((codec.command as string[]).slice(0, 5)).toEqual([
      'node',
      'dist/client/cli.js',
      'codec-server',
      '--host',
      '0.0.0.0',
    ]);
    expect(Object.keys(codec.environment!).sort()).toEqual([
      'AMSFLOW_CODEC_OIDC_AUDIENCE',
      'AMSFLOW_CODEC_OIDC_ISSUER',
      'AMSFLOW_CODEC_TOKEN',
      'AMSFLOW_ENCRYPTION_KEYS',
    ]);
    expect(existsSync(join(root, 'client', 'cli.ts'))).toBe(true);
  });

  it('publishes every port on loopback only', () => {
    const published = Object.entries(services).flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => ({ name, p })),
    );
    expect(published.length).toBeGreaterThan(3);
    for (const { name, p } of published)
      expect({ name, p }).toEqual({ name, p: expect.stringMatching(/^127\.0\.0\.1:/) });
  });

  it('documents every variable it reads in .env.example; the required ones are set there', () => {
    const used = new Set<string>();
    const required = new Set<string>();
    for (const match of composeText.matchAll(/(?<!\$)\$\{([A-Z0-9_]+)(:?[-?])?/g)) {
      used.add(match[1]);
      if (match[2]?.endsWith('?')) required.add(match[1]);
    }
    expect(used.size).toBeGreaterThan(5);
    const example = read('.env.example');
    const listed = new Set([...example.matchAll(/^#? ?([A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const active = new Set([...example.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect([...used].filter((v) => !listed.has(v))).toEqual([]);
    expect([...required].filter((v) => !active.has(v))).toEqual([]);
    // The TLS override's variables are listed too (test/cluster/compose-tls.test.ts checks them).
    const override = read('docker-compose.tls.yml');
    const usedAnywhere = new Set([
      ...used,
      ...[...override.matchAll(/(?<!\$)\$\{([A-Z0-9_]+)/g)].map((m) => m[1]),
    ]);
    expect([...listed].filter((v) => !usedAnywhere.has(v))).toEqual([]);
  });
});

describe('the compose file and the native cluster test run the same Temporal server', () => {
  const [[serverName, server]] = serviceByImage('temporalio/server');
  const mountOf = (service: Service, file: string) =>
    (service.volumes ?? []).find((v) => v.startsWith(`./${file}:`))?.split(':')[1];

  it('the server reads the repository config template with PostgreSQL (the native test uses it too)', async () => {
    const target = mountOf(server, 'deploy/temporal/config.yaml.tmpl');
    expect({ serverName, target }).toEqual({
      serverName,
      target: expect.stringMatching(/^\/etc\/temporal\//),
    });
    expect(server.environment?.TEMPORAL_SERVER_CONFIG_FILE_PATH).toBe(target);
    expect(server.environment?.DB).toBe(V.persistencePlugin);
    const env = serverEnv({
      ports: await serverPorts(),
      postgres: { host: '127.0.0.1', port: 5432, user: 'u' },
    });
    expect(env.DB).toBe(V.persistencePlugin);
    // Both feed the template the same variables (the native test adds its ports).
    for (const key of Object.keys(server.environment ?? {})) {
      if (!/^TEMPORAL_(SERVER_CONFIG_FILE_PATH|ALLOW_NO_AUTH)$|^PROMETHEUS_ENDPOINT$/.test(key))
        expect(Object.keys(env)).toContain(key);
    }
  });

  it('the server reads the repository dynamic config (the native test passes the same file)', async () => {
    const target = mountOf(server, 'deploy/temporal/dynamicconfig.yaml');
    expect(target).toMatch(/^\/etc\/temporal\//);
    expect(server.environment?.DYNAMIC_CONFIG_FILE_PATH).toBe(target);
    const env = serverEnv({
      ports: await serverPorts(),
      postgres: { host: '127.0.0.1', port: 5432, user: 'u' },
    });
    expect(env.DYNAMIC_CONFIG_FILE_PATH).toBe(join(root, 'deploy/temporal/dynamicconfig.yaml'));
    // The template reads it only when the variable is set.
    expect(read('deploy/temporal/config.yaml.tmpl')).toContain(
      'filepath: "{{ env "DYNAMIC_CONFIG_FILE_PATH" }}"',
    );
    const config = load(read('deploy/temporal/dynamicconfig.yaml')) as Record<string, { value: unknown }[]>;
    expect(config['frontend.enableCancelWorkerPollsOnShutdown']).toEqual([{ value: true }]);
  });

  it('membership ports stay below 32768 in the template defaults and in the native test', async () => {
    const template = read('deploy/temporal/config.yaml.tmpl');
    expect(template.split('\n')[0]).toBe('# enable-template');
    const defaults = [...template.matchAll(/membershipPort: \{\{ default "(\d+)" \(env "([A-Z_]+)"\) \}\}/g)];
    expect(defaults.map((m) => m[2]).sort()).toEqual(
      ['FRONTEND', 'HISTORY', 'INTERNAL_FRONTEND', 'MATCHING', 'WORKER'].map((s) => `${s}_MEMBERSHIP_PORT`),
    );
    for (const [, port] of defaults) expect(Number(port)).toBeLessThan(V.membershipPortLimit);
    expect(template).toContain(`default "${V.persistencePlugin}" (env "DB")`);
    const ports = await serverPorts();
    for (const port of Object.values(ports)) expect(port).toBeLessThan(V.membershipPortLimit);
  });

  it('the schema job runs deploy/temporal/setup-schema.sh on the pinned schema with the pinned plugin', () => {
    const [[, schemaJob], [, namespaceJob]] = serviceByImage('temporalio/admin-tools');
    const script = mountOf(schemaJob, 'deploy/temporal/setup-schema.sh');
    expect(schemaJob.entrypoint).toEqual(['sh', script]);
    expect(schemaJob.environment?.SQL_PLUGIN).toBe(V.persistencePlugin);
    expect(schemaJob.environment?.TEMPORAL_SCHEMA_DIR).toBe(`/etc/temporal/${V.schemaDir}`);
    const namespaceScript = mountOf(namespaceJob, 'deploy/temporal/create-namespace.sh');
    expect(namespaceJob.entrypoint).toEqual(['sh', namespaceScript]);
    expect(read('deploy/temporal/setup-schema.sh')).toMatch(
      /create-database[\s\S]*setup-schema -v 0\.0[\s\S]*update-schema -d/,
    );
  });
});

/**
 * Packages imported (not type-only) by `entry` and the local modules it imports, transitively.
 */
function packagesImported(entries: string[]): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    const specifiers = [
      ...source.matchAll(/^(?:import|export)(?! type )[^;]*?from '([^']+)'/gm),
      ...source.matchAll(/(?:require|import)\('([^']+)'\)/g),
    ].map((m) => m[1]);
    for (const spec of specifiers) {
      if (spec.startsWith('.')) {
        const base = resolve(dirname(file), spec);
        const found = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
        if (found) visit(found);
      } else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) {
        packages.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
      }
    }
  };
  entries.forEach((entry) => visit(join(root, entry)));
  return packages;
}

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  const froms = lines.filter((l) => l.startsWith('FROM '));
  const lastStage = lines.slice(lines.lastIndexOf(froms[froms.length - 1]));

  it('is multi-stage on a pinned base image', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms)
      expect(from).toMatch(new RegExp(`^FROM node:${V.nodeImage.replace(/\./g, '\\.')} AS \\w+$`));
  });

  it('runs as a non-root user with production dependencies and the built dist/', () => {
    const user = lastStage.filter((l) => l.startsWith('USER ')).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    expect(lastStage.some((l) => /npm ci --omit=dev --ignore-scripts/.test(l))).toBe(true);
    expect(lastStage.some((l) => /^COPY --from=\w+ \/app\/dist \.\/dist$/.test(l))).toBe(true);
    expect(lines.some((l) => /^RUN npm run build$/.test(l))).toBe(true);
    expect(lastStage.pop()).toBe('CMD ["node", "dist/worker/main.js"]');
    expect(existsSync(join(root, 'worker', 'main.ts'))).toBe(true);
  });

  it("the worker and its default workflows need only production dependencies (the image's)", () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const needed = [...packagesImported(['worker/main.ts', 'examples/reference/bot.ts'])];
    expect(needed).toContain('@temporalio/worker');
    expect(needed.filter((name) => !(name in pkg.dependencies))).toEqual([]);
  });

  it('copies every source folder that tsconfig.build.json compiles', () => {
    const include = (JSON.parse(read('tsconfig.build.json')) as { include: string[] }).include;
    const copied = lines.filter((l) => l.startsWith('COPY ') && !l.includes('--from')).join(' ');
    for (const path of include)
      expect({ path, copied: copied.includes(path) }).toEqual({ path, copied: true });
  });
});
