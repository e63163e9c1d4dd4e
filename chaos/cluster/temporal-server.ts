/**
 * The Temporal server built from its Go module, run as one process with every service, from the
 * repository's config template (deploy/temporal/config.yaml.tmpl, the file docker-compose.yml
 * mounts) with its variables pointing at a throwaway PostgreSQL. Stops and starts again on the
 * same data.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { CLUSTER_VERSIONS, SERVER_CONFIG_TEMPLATE, SERVER_DYNAMIC_CONFIG } from '../../scripts/cluster-tools';

const run = promisify(execFile);

/** Polls `check` until it returns true (errors count as not yet), or throws after `timeoutMs`. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The server's ports; the membership ports are below 32768 (a smallint column in PostgreSQL). */
export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  /** The internal frontend's (used only when the frontend is secured). */
  internalFrontend: number;
  internalFrontendMembership: number;
  internalFrontendHttp: number;
}

const PORT_NAMES: (keyof ServerPorts)[] = [
  'frontend',
  'frontendHttp',
  'frontendMembership',
  'history',
  'historyMembership',
  'matching',
  'matchingMembership',
  'worker',
  'workerMembership',
  'internalFrontend',
  'internalFrontendMembership',
  'internalFrontendHttp',
];

function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

/**
 * `count` distinct ports that were free a moment ago, from 20000 up to the membership limit (the
 * kernel's ephemeral range starts at 32768, so these are never handed out to outgoing sockets).
 */
export async function lowFreePorts(count: number): Promise<number[]> {
  const low = 20_000;
  const span = CLUSTER_VERSIONS.membershipPortLimit - low;
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count; tries++) {
    if (tries > 2000) throw new Error(`no ${count} free ports between ${low} and ${low + span}`);
    const port = low + Math.floor(Math.random() * span);
    if (!ports.has(port) && (await canListen(port))) ports.add(port);
  }
  return [...ports];
}

/** Assigns free low ports to every server port. */
export async function serverPorts(): Promise<ServerPorts> {
  const ports = await lowFreePorts(PORT_NAMES.length);
  return Object.fromEntries(PORT_NAMES.map((name, i) => [name, ports[i]])) as unknown as ServerPorts;
}

/**
 * A frontend secured as operators run it: TLS with the server's certificate (mTLS when
 * `clientCaCert` is given: a client certificate signed by it is required), and JWT authorization
 * by the server's default claim mapper and authorizer with the keys at `jwksUri`; the services
 * between themselves (the internal frontend among them) on mTLS with the server's certificate.
 */
export interface SecuredFrontend {
  /** The server's certificate (for `localhost`), for the frontend and between its services. */
  serverCert: string;
  serverKey: string;
  /** The CA that signed it: the services trust it between themselves. */
  serverCaCert: string;
  /** Requires client certificates signed by this CA. */
  clientCaCert?: string;
  /** Where the server fetches the token keys (a JWKS document). */
  jwksUri: string;
}

/** The template's variables for `secured` (the temporalio/server image's names). */
export function securedEnv(secured: SecuredFrontend, ports: ServerPorts): Record<string, string> {
  return {
    TEMPORAL_TLS_FRONTEND_CERT: secured.serverCert,
    TEMPORAL_TLS_FRONTEND_KEY: secured.serverKey,
    TEMPORAL_TLS_SERVER_CERT: secured.serverCert,
    TEMPORAL_TLS_SERVER_KEY: secured.serverKey,
    TEMPORAL_TLS_SERVER_CA_CERT: secured.serverCaCert,
    TEMPORAL_TLS_INTERNODE_SERVER_NAME: 'localhost',
    ...(secured.clientCaCert
      ? { TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true', TEMPORAL_TLS_CLIENT1_CA_CERT: secured.clientCaCert }
      : {}),
    TEMPORAL_AUTH_AUTHORIZER: 'default',
    TEMPORAL_AUTH_CLAIM_MAPPER: 'default',
    TEMPORAL_JWT_KEY_SOURCE1: secured.jwksUri,
    USE_INTERNAL_FRONTEND: 'true',
    INTERNAL_FRONTEND_GRPC_PORT: String(ports.internalFrontend),
    INTERNAL_FRONTEND_MEMBERSHIP_PORT: String(ports.internalFrontendMembership),
    INTERNAL_FRONTEND_HTTP_PORT: String(ports.internalFrontendHttp),
  };
}

/** The config template's variables (the temporalio/server image's names). */
export function serverEnv(options: {
  ports: ServerPorts;
  postgres: { host: string; port: number; user: string };
  secured?: SecuredFrontend;
  /** The dynamic config file (default: the repository's, deploy/temporal/dynamicconfig.yaml). */
  dynamicConfigFile?: string;
}): Record<string, string> {
  const { ports, postgres, secured } = options;
  return {
    ...(secured ? securedEnv(secured, ports) : {}),
    DYNAMIC_CONFIG_FILE_PATH: options.dynamicConfigFile ?? SERVER_DYNAMIC_CONFIG,
    DB: CLUSTER_VERSIONS.persistencePlugin,
    POSTGRES_SEEDS: postgres.host,
    DB_PORT: String(postgres.port),
    POSTGRES_USER: postgres.user,
    POSTGRES_PWD: '',
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
  };
}

/** One Temporal server process that can be stopped and started again with the same settings. */
export class TemporalServer {
  /** The server's output (its log), last lines kept. */
  readonly output: string[] = [];
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    private readonly options: {
      serverBin: string;
      cliPath: string;
      env: Record<string, string>;
      cwd: string;
      /**
       * The Temporal CLI's connection settings for the health check (`TEMPORAL_TLS_*`,
       * `TEMPORAL_API_KEY`) when the frontend is secured.
       */
      cliEnv?: Record<string, string>;
    },
  ) {}

  /** Whether its process runs (false once it exited, by a stop or by itself). */
  get running(): boolean {
    return this.child !== undefined;
  }

  get address(): string {
    return `127.0.0.1:${this.options.env.FRONTEND_GRPC_PORT}`;
  }

  /** Starts the server and resolves once its frontend reports SERVING (`operator cluster health`). */
  async start(): Promise<void> {
    if (this.child) throw new Error('the Temporal server is already running');
    // A secured frontend leaves the cluster's own worker service to the internal frontend.
    const services = this.options.env.USE_INTERNAL_FRONTEND
      ? ['frontend', 'internal-frontend', 'history', 'matching', 'worker'].flatMap((s) => ['--service', s])
      : [];
    const child = spawn(
      this.options.serverBin,
      ['--config-file', SERVER_CONFIG_TEMPLATE, '--allow-no-auth', 'start', ...services],
      {
        cwd: this.options.cwd,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...this.options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    const collect = (chunk: Buffer) => {
      this.output.push(...chunk.toString().split('\n').filter(Boolean));
      this.output.splice(0, Math.max(0, this.output.length - 300));
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    this.exited = new Promise((done) =>
      child.once('exit', () => {
        if (this.child === child) this.child = undefined;
        done();
      }),
    );
    await waitFor(
      `the Temporal server at ${this.address} to report healthy`,
      async () => {
        if (this.child !== child) {
          throw new Error(`the server exited:\n${this.output.slice(-30).join('\n')}`);
        }
        await run(this.options.cliPath, ['operator', 'cluster', 'health', '--address', this.address], {
          env: { ...process.env, ...this.options.cliEnv },
        });
        return true;
      },
      60_000,
    );
  }

  /**
   * SIGTERM (graceful shutdown), SIGKILL after `graceMs` (0: SIGKILL at once, a crash); resolves
   * once the process is gone.
   */
  async stop(graceMs = 20_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
