import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentApi, BASE_PATH } from './agent-api';
import { SimClock } from './clock';
import { checkLocalRequest, type LocalRequestPolicy } from '../core/local-request';
import { CONTROL_PATH, ControlApi } from './control-api';
import { SimulatorControl } from './control-client';
import { ApiError, ErrorCode } from './errors';
import { sendError, toApiError } from './http-util';
import { resolveOptions, type SimulatorOptions } from './options';
import { Platform } from './platform';
import { serveStatic } from './static-files';
import type { RestoredState } from './state-file';
import { StateStore } from './state-store';

export interface RunningSimulator {
  /** Base url ending in /agent/v1, e.g. http://127.0.0.1:PORT/agent/v1. */
  url: string;
  /** The first agent's token. */
  token: string;
  /** Web chat url, e.g. http://127.0.0.1:PORT/. */
  chat: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Typed client of the control API. */
  control: SimulatorControl;
  /** With `stateFile`: what the start found in it. */
  state?: RestoredState;
  /**
   * Stops listening, ends open polls and event streams, cancels timers; with `stateFile`, then
   * writes the state a last time (rejects if that fails).
   */
  close(): Promise<void>;
}

const under = (pathname: string, prefix: string): boolean =>
  pathname === prefix || pathname.startsWith(`${prefix}/`);

/** Throws 403 unless the request names the simulator in its Host and comes from no other site's page. */
function onlyOwnCallers(policy: LocalRequestPolicy, req: IncomingMessage): void {
  const refused = checkLocalRequest(policy, req.headers);
  if (!refused) return;
  req.resume();
  throw new ApiError(403, ErrorCode.forbidden, `${refused.reason} (simulator --allowed-host)`);
}

/** Starts the simulator on `host:port` (default 127.0.0.1, a free port). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const resolved = resolveOptions(options);
  const clock = new SimClock(resolved.clock);
  const platform = new Platform(resolved, clock);
  // Restored before anything is served; a bad file stops the start (SimulatorStateError).
  const store = resolved.stateFile
    ? new StateStore(resolved.stateFile, platform, resolved.stateWriteDelayMs)
    : undefined;
  const restored = store?.load();
  const agentApi = new AgentApi(platform);
  const localPolicy = { listenHost: resolved.host, allowedHosts: resolved.allowedHosts };
  const controlApi = new ControlApi(platform);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    await clock.sync();
    // The agent API is the service's: a bearer token guards it, wherever agents reach it from.
    if (under(url.pathname, BASE_PATH)) return agentApi.handle(req, res, url);
    // The control API and the web chat have no credential: they answer only requests naming
    // the simulator in their Host and sent by no other site's page (core/local-request.ts).
    onlyOwnCallers(localPolicy, req);
    if (under(url.pathname, CONTROL_PATH)) return controlApi.handle(req, res, url);
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new ApiError(405, ErrorCode.methodNotAllowed, `method ${req.method} not allowed here`, {
        allow: 'GET',
      });
    }
    return serveStatic(resolved.webDir, url.pathname, res, req.method === 'HEAD');
  };

  const server = createServer((req, res) => {
    // Media uploads and deletions change the state without an agent's change event.
    if (store && req.method !== 'GET' && req.method !== 'HEAD') res.once('finish', () => store.changed());
    route(req, res).catch((err: unknown) => {
      // A handler bug must never take the simulator down; answer what we can.
      req.resume();
      sendError(res, toApiError(err));
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await listen(server, resolved.port, resolved.host);
  store?.watch();
  const origin = originOf(resolved.host, (server.address() as AddressInfo).port);
  let closed: Promise<void> | undefined;

  return {
    url: `${origin}${BASE_PATH}`,
    token: resolved.agents[0].token,
    chat: `${origin}/`,
    origin,
    control: new SimulatorControl(origin),
    state: restored,
    close() {
      closed ??= new Promise<void>((resolve) => {
        platform.close();
        controlApi.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => store?.close());
      return closed;
    },
  };
}

/** Resolves once `server` listens on host:port; rejects with the listen error. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The origin a browser on this machine reaches a server listening on `host` at: a wildcard is loopback. */
export function originOf(host: string, port: number): string {
  const reachable = ['0.0.0.0', '::', ''].includes(host)
    ? '127.0.0.1'
    : host.includes(':')
      ? `[${host}]`
      : host;
  return `http://${reachable}:${port}`;
}
