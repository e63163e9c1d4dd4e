/**
 * Helpers for the simulator's conformance suite: a minimal agent-side HTTP client (real HTTP,
 * global fetch) and small readers of the wire shapes. Deliberately independent of amsflow's
 * client, so the suite checks the simulator against the spec, not against our own client.
 */
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator';

export const CREATOR = 'user:1001';
export const DAY_MS = 24 * 60 * 60 * 1000;

/** Parsed JSON, loosely typed on purpose: the tests assert on its shape. */
export type Json = ReturnType<typeof JSON.parse>;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body, or undefined when the body is empty or not JSON. */
  json: Json;
}

export interface RequestOptions {
  /** Bearer token; null sends no Authorization header. Default the client's token. */
  token?: string | null;
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The agent's side of the wire, over real HTTP. */
export class AgentHttp {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const token = options.token === undefined ? this.token : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    return toReply(await fetch(url, { method, headers, body, signal: options.signal }));
  }

  send(body: Record<string, unknown>, options: RequestOptions = {}): Promise<Reply> {
    return this.request('POST', '/messages', { ...options, json: body });
  }

  sendText(text: string, extra: Record<string, unknown> = {}): Promise<Reply> {
    return this.send({ to: CREATOR, type: 'text', text: { body: text }, ...extra });
  }

  poll(query: Record<string, string | number> = {}, options: RequestOptions = {}): Promise<Reply> {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return this.request('GET', `/updates${qs ? `?${qs}` : ''}`, options);
  }

  markRead(messageId: string, extra: Record<string, unknown> = {}): Promise<Reply> {
    return this.request('POST', '/statuses', {
      json: { messaging_product: 'agent_messaging', status: 'read', message_id: messageId, ...extra },
    });
  }

  typing(messageId: string): Promise<Reply> {
    return this.markRead(messageId, { typing_indicator: { type: 'text' } });
  }

  upload(
    bytes: Uint8Array,
    mimeType: string | undefined,
    filename = 'file.bin',
    options: { partType?: string; token?: string | null } = {},
  ): Promise<Reply> {
    const form = new FormData();
    form.set('messaging_product', 'agent_messaging');
    if (mimeType !== undefined) form.set('type', mimeType);
    form.set('file', new Blob([bytes], options.partType ? { type: options.partType } : {}), filename);
    return this.request('POST', '/media', { body: form, token: options.token });
  }

  /** Uploads and returns the media id, failing loudly otherwise. */
  async uploadId(
    bytes: Uint8Array = Buffer.from('png-bytes'),
    mimeType = 'image/png',
    filename = 'a.png',
  ): Promise<string> {
    const reply = await this.upload(bytes, mimeType, filename);
    if (reply.status !== 200) throw new Error(`upload failed: ${reply.status} ${reply.text}`);
    return reply.json.id as string;
  }

  /** Sends a text and returns its wamid, failing loudly otherwise. */
  async sendTextId(text = 'hello'): Promise<string> {
    const reply = await this.sendText(text);
    if (reply.status !== 200) throw new Error(`send failed: ${reply.status} ${reply.text}`);
    return reply.json.messages[0].id as string;
  }
}

export interface PageView {
  object: string;
  messages: Json[];
  statuses: Json[];
  contacts: Json[];
  nextOffset: number;
}

/** Flattens an update page (spec 2.4). */
export function pageOf(reply: Reply): PageView {
  if (reply.status !== 200) throw new Error(`expected a 200 page, got ${reply.status} ${reply.text}`);
  const value = reply.json.entry[0].changes[0].value;
  return {
    object: reply.json.object,
    messages: value.messages,
    statuses: value.statuses,
    contacts: value.contacts,
    nextOffset: reply.json.next_offset,
  };
}

export interface Harness {
  sim: RunningSimulator;
  agent: AgentHttp;
}

/** Starts a simulator on a free port with the given options; close it in afterAll. */
export async function startHarness(options: SimulatorOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ port: 0, ...options });
  return { sim, agent: new AgentHttp(sim.url, sim.token) };
}

/** The error object's code of a reply (section 7). */
export const codeOf = (reply: Reply): unknown => reply.json?.error?.code;

/** Waits until `check` returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Real milliseconds a promise takes to settle, with its value. */
export async function timed<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await promise;
  return { value, ms: performance.now() - start };
}

/** True while `promise` is still pending (checked after pending I/O has had a chance to run). */
export async function isPending(promise: Promise<unknown>, graceMs = 50): Promise<boolean> {
  const marker = Symbol('pending');
  const winner = await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise((resolve) => setTimeout(() => resolve(marker), graceMs)),
  ]);
  return winner === marker;
}

/** Waits until the simulator holds a long poll of the (first) agent open. */
export async function pollIsWaiting(sim: RunningSimulator, agent?: string): Promise<void> {
  await sim.control.waitFor(
    (c) => c.transcript(agent),
    (t) => t.polling,
    { timeoutMs: 5000 },
  );
}
