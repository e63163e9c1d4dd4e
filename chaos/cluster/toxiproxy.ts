/**
 * toxiproxy (built from its Go module by `npm run cluster:setup`) as the cluster chaos run uses
 * it: its server started on a free loopback port, TCP proxies in front of the Temporal frontend,
 * the service and PostgreSQL, and toxics added to and taken off them through its HTTP API. Every
 * answer is parsed; an error names the request and the server's answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { z } from 'zod';
import { lowFreePorts } from './temporal-server';

/** A toxic as toxiproxy's API takes it (`type` and `attributes` as its README lists them). */
export interface Toxic {
  name: string;
  type: 'latency' | 'bandwidth' | 'reset_peer' | 'timeout' | 'slow_close' | 'slicer' | 'limit_data';
  stream: 'upstream' | 'downstream';
  toxicity?: number;
  attributes: Record<string, number>;
}

const ProxySchema = z.object({
  name: z.string(),
  listen: z.string(),
  upstream: z.string(),
  enabled: z.boolean(),
});
const ToxicSchema = z.object({ name: z.string(), type: z.string(), stream: z.string() });
const VersionSchema = z.string();

export type ProxyInfo = z.infer<typeof ProxySchema>;

export class ToxiproxyError extends Error {
  readonly code = 'AMSFLOW_TOXIPROXY';
  constructor(message: string) {
    super(message);
    this.name = 'ToxiproxyError';
  }
}

export interface RunningToxiproxy {
  /** `http://127.0.0.1:<port>` of its API. */
  api: string;
  /** A proxy listening on a free loopback port, forwarding to `upstream` (`host:port`). */
  createProxy(name: string, upstream: string): Promise<ProxyInfo & { port: number }>;
  addToxic(proxy: string, toxic: Toxic): Promise<void>;
  /**
   * Takes a toxic off; one already gone is not an error. Waits up to a minute: toxiproxy answers
   * once the toxic lets go of the data it holds.
   */
  removeToxic(proxy: string, toxic: string): Promise<void>;
  /** Takes every toxic off every proxy (and enables them all). */
  reset(): Promise<void>;
  /** The server's last output lines. */
  output: string[];
  stop(): Promise<void>;
}

async function call<T>(
  api: string,
  method: string,
  path: string,
  schema: z.ZodType<T>,
  body?: unknown,
  timeoutMs = 10_000,
) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (!res.ok) throw new ToxiproxyError(`toxiproxy ${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text.trim();
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new ToxiproxyError(`toxiproxy ${method} ${path}: unexpected answer ${text.slice(0, 300)}`);
  return { status: res.status, value: parsed.data };
}

/** Starts toxiproxy's server (`bin`) on a free loopback port; resolves once its API answers. */
export async function startToxiproxy(bin: string): Promise<RunningToxiproxy> {
  const [port] = await lowFreePorts(1);
  const api = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(bin, ['-host', '127.0.0.1', '-port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - 200));
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new ToxiproxyError(`toxiproxy exited:\n${output.join('\n')}`);
    const up = await call(api, 'GET', '/version', VersionSchema).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new ToxiproxyError(`toxiproxy did not answer on ${api}:\n${output.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    api,
    output,
    async createProxy(name, upstream) {
      const body = { name, listen: '127.0.0.1:0', upstream, enabled: true };
      const { value } = await call(api, 'POST', '/proxies', ProxySchema, body);
      const listened = Number(/:(\d+)$/.exec(value.listen)?.[1]);
      if (!Number.isInteger(listened) || listened <= 0)
        throw new ToxiproxyError(`toxiproxy proxy ${name} listens on "${value.listen}"`);
      return { ...value, port: listened };
    },
    async addToxic(proxy, toxic) {
      await call(api, 'POST', `/proxies/${proxy}/toxics`, ToxicSchema, { toxicity: 1, ...toxic });
    },
    async removeToxic(proxy, toxic) {
      try {
        await call(api, 'DELETE', `/proxies/${proxy}/toxics/${toxic}`, z.unknown(), undefined, 60_000);
      } catch (err) {
        if (!(err instanceof ToxiproxyError && / 404 /.test(err.message))) throw err;
      }
    },
    async reset() {
      await call(api, 'POST', '/reset', z.unknown(), undefined, 60_000);
    },
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
