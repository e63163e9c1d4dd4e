/**
 * What the hostile-input properties serve: a local HTTP server that answers whatever it is told
 * (status, headers, body, a connection dropped mid-body), valid wire shapes built per the spec and
 * WIRE-CONVENTIONS, mutations of any JSON tree, and the ways a body can be mangled on the wire.
 */
import { createHash } from 'node:crypto';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';

export const CREATOR = 'user:1001';
export const BYTES = Buffer.from('media bytes');
export const SHA = createHash('sha256').update(BYTES).digest('hex');

/** One answer of the server. */
export interface Canned {
  status: number;
  body: Buffer;
  contentType?: string;
  retryAfter?: string;
  /** Announce more bytes than are sent, then drop the connection. */
  truncate?: boolean;
}

/** Answers every request with `canned`, except `/bytes/...`, which serves {@link BYTES}. */
export class CannedServer {
  canned: Canned = { status: 204, body: Buffer.alloc(0) };
  hits = 0;
  origin = '';
  readonly #server = createServer((req, res) => {
    this.hits += 1;
    req.resume();
    req.on('end', () => {
      const c = req.url?.startsWith('/bytes/') ? { status: 200, body: BYTES } : this.canned;
      const headers: OutgoingHttpHeaders = { 'content-length': c.body.length + (c.truncate ? 100 : 0) };
      if (c.contentType !== undefined) headers['content-type'] = c.contentType;
      if (c.retryAfter !== undefined) headers['retry-after'] = c.retryAfter;
      res.writeHead(c.status, headers);
      if (c.truncate) res.write(c.body.subarray(0, c.body.length >> 1), () => res.destroy());
      else res.end(c.body);
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

// ---- valid wire shapes (spec 2, WIRE-CONVENTIONS), then mutations ----

const oddText = fc.constantFrom(
  '\uD800',
  'a\uDFFFb',
  '\u0000',
  '\u202Eevil',
  '\uFEFF',
  '𝄞',
  'e\u0301',
  '\u2028',
  '',
);
export const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  oddText,
);
const wamid = text.map((s) => `wamid.${s}`);
const media = (extra: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.record(
    { id: text, mime_type: fc.constant('image/jpeg'), sha256: fc.constant(SHA), caption: text, ...extra },
    { requiredKeys: ['id', 'mime_type', 'sha256'] },
  );
const PAYLOADS: Record<string, fc.Arbitrary<unknown>> = {
  text: fc.record({ body: text }),
  image: media(),
  video: media(),
  document: media({ filename: text }),
  audio: media({ voice: fc.boolean() }),
  sticker: media({ animated: fc.boolean() }),
  reaction: fc.record(
    { message_id: wamid, emoji: fc.constantFrom('👍', '') },
    { requiredKeys: ['message_id'] },
  ),
  location: fc.record({ latitude: fc.double({ noNaN: true, noDefaultInfinity: true }), name: text }),
};
const message = fc.constantFrom(...Object.keys(PAYLOADS)).chain((type) =>
  fc.record(
    {
      from: fc.constant(CREATOR),
      id: wamid,
      timestamp: fc.nat().map(String),
      type: fc.constant(type),
      [type]: PAYLOADS[type],
      context: fc.record({ from: fc.constantFrom(CREATOR, 'agent:demo'), id: wamid }),
    },
    { requiredKeys: ['from', 'id', 'timestamp', 'type', type] },
  ),
);
const status = fc.record({
  id: wamid,
  status: fc.constantFrom('sent', 'delivered', 'read', 'failed', 'exploded'),
  timestamp: fc.nat().map(String),
  recipient_id: fc.constant(CREATOR),
});
const contact = fc.record({ wa_id: fc.constant(CREATOR), profile: fc.record({ name: text }) });
const value = fc.record({
  messaging_product: fc.constant('agent_messaging'),
  contacts: fc.array(contact, { maxLength: 2 }),
  messages: fc.array(message, { maxLength: 4 }),
  statuses: fc.array(status, { maxLength: 3 }),
});
const change = fc.record({ field: fc.constant('messages'), value });
export const page = fc.record({
  object: fc.constant('agent_messaging_service'),
  entry: fc.array(fc.record({ id: fc.constant('agent:demo'), changes: fc.array(change, { maxLength: 2 }) }), {
    minLength: 1,
    maxLength: 2,
  }),
  next_offset: fc.nat(10_000),
});

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  text,
  fc.constantFrom(-1, 0.5, -0, 1e300, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, '12', null, [], {}, true),
  fc.constantFrom(1e4, 3e5).map((n) => 'x'.repeat(n)),
);
export const mutation = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('set', 'delete', 'add', 'wrap'),
  key: fc.constantFrom('extra', 'type', 'id', 'constructor', 'toString', '💥'),
  value: hostile,
});
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;
export type Node = Record<string, unknown>;

/** Every (container, key) pair of a JSON tree. */
function slots(v: unknown, out: [Node, string][] = []): [Node, string][] {
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push([v as Node, k]);
      slots(x, out);
    }
  }
  return out;
}

export function mutate<T>(tree: T, mutations: Mutation[]): T {
  const root: Node = { root: structuredClone(tree) };
  for (const m of mutations) {
    const all = slots(root);
    const [parent, key] = all[m.at % all.length];
    const target = parent[key];
    // A copy: fast-check hands out the same constant object each time, which could close a cycle.
    const value = structuredClone(m.value);
    if (m.op === 'set') parent[key] = value;
    else if (m.op === 'delete' && parent !== root) {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (m.op === 'add' && target !== null && typeof target === 'object' && !Array.isArray(target)) {
      (target as Node)[m.key] = value;
    } else if (m.op === 'wrap') parent[key] = m.key === 'extra' ? [target] : { [m.key]: target };
  }
  return root.root as T;
}

/** How the JSON text reaches the wire. */
export const encoding = fc.constantFrom(
  'json',
  'json',
  'json',
  'json',
  'cut',
  'garbage',
  'latin1',
  'huge',
  'drop',
);
export const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/html',
  undefined,
);

export function encode(json: unknown, how: string, cut: number): Pick<Canned, 'body' | 'truncate'> {
  const textual = JSON.stringify(json) ?? '';
  switch (how) {
    case 'cut':
      return { body: Buffer.from(textual.slice(0, cut % Math.max(1, textual.length))) };
    case 'garbage':
      return { body: Buffer.from(`${textual}\u0000}]garbage`) };
    case 'latin1':
      return { body: Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(textual)]) };
    case 'huge':
      return { body: Buffer.from(JSON.stringify({ ...(json as object), pad: 'y'.repeat(5 * 1024 * 1024) })) };
    case 'drop':
      return { body: Buffer.from(textual), truncate: true };
    default:
      return { body: Buffer.from(textual) };
  }
}

// ---- send answers, acknowledgements and error bodies ----

export const statusCode = fc.oneof(
  fc.constantFrom(200, 201, 202, 204, 299, 301, 400, 401, 403, 404, 409, 413, 429, 500, 502, 503, 504),
  fc.integer({ min: 200, max: 599 }),
);
const sendResult = fc.record({
  messaging_product: fc.constant('agent_messaging'),
  contacts: fc.constant([{ input: CREATOR, wa_id: CREATOR }]),
  messages: fc.array(fc.record({ id: wamid, message_status: fc.constant('accepted') }), {
    minLength: 1,
    maxLength: 2,
  }),
});
const errorBody = fc.record({
  error: fc.record({
    code: fc.constantFrom(130429, 131016, 190, 131009, 2, -1, 1e300),
    message: text,
    error_data: fc.record({ details: text }),
  }),
});
export const answerJson = fc.oneof(
  sendResult,
  errorBody,
  fc.record({ success: fc.oneof(fc.boolean(), hostile) }),
  fc.jsonValue({ maxDepth: 3 }),
  text,
);
export const retryAfter = fc.constantFrom(
  undefined,
  '2',
  '0',
  '1.5',
  '-1',
  'soon',
  '',
  'Wed, 21 Oct 2015 07:28:00 GMT',
  `1${'0'.repeat(400)}`,
);
