/**
 * Hostile input, property-based: update pages, send answers, error bodies and media metadata that
 * no real service sends (mutated fields and types, odd Unicode, lone surrogates, huge strings and
 * offsets, truncated or oversize bodies, wrong content types), served by a local HTTP server to the
 * client and the activities. Only typed errors come out; a page whose envelope parses is accepted
 * whatever its members (one that does not fit is handed on as type `unknown`, or left out and
 * listed when it has no usable id, sender or time), so the offset moves past a poison message
 * instead of stopping at it; and an unreadable answer to a send that was accepted (2xx) is
 * ambiguous, never "not sent".
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import fc from 'fast-check';
import { createActivities } from '../../activities';
import {
  AmbiguousSendError,
  MessagingClient,
  MessagingError,
  NotAcceptedError,
  RateLimitError,
  flattenPage,
  InboundMessageSchema,
} from '../../messaging';
import { mediaFileSize } from '../../messaging/schemas';
import { checkUpdatesParams } from '../../messaging/validation';
import { failureInfo, requestVerdict } from '../../workflows/engine/request-policy';
import {
  answerJson,
  BYTES,
  CannedServer,
  contentType,
  CREATOR,
  encode,
  encoding,
  mutate,
  mutation,
  type Node,
  page,
  retryAfter,
  SHA,
  statusCode,
  text,
} from './hostile-wire';

const KNOWN = ['text', 'image', 'video', 'audio', 'document', 'sticker', 'reaction'];
// HOSTILE_RUNS=2000 searches deeper.
const RUNS = { numRuns: Number(process.env.HOSTILE_RUNS ?? 200) };
const wire = new CannedServer();
let client: MessagingClient;
let acts: ReturnType<typeof createActivities>;

beforeAll(async () => {
  await wire.start();
  client = new MessagingClient({
    token: 'hostile-token',
    baseUrl: `${wire.origin}/agent/v1`,
    recipient: CREATOR,
    rateLimit: false,
    maxRetries: 0,
    timeoutMs: 2000,
  });
  acts = createActivities(new Map([['a', client]]));
});
afterAll(async () => {
  await client?.close();
  await wire.close();
});

const quietEnv = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; err: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (err) {
    return { ok: false, err };
  }
}

/** What the spec needs of a message to handle it at all (a necessary condition, not the schema). */
function processable(m: unknown): boolean {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
  const msg = m as Node;
  if (!['from', 'id', 'timestamp', 'type'].every((k) => typeof msg[k] === 'string')) return false;
  const payload = msg[msg.type as string];
  if (KNOWN.includes(msg.type as string) && (payload === null || typeof payload !== 'object')) return false;
  return msg.type !== 'text' || typeof (payload as Node).body === 'string';
}

/** What a message needs to be handed on at all, even as `unknown`: an id, a sender, a time. */
function routable(m: unknown): boolean {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
  const msg = m as Node;
  return (
    typeof msg.id === 'string' &&
    msg.id.length > 0 &&
    typeof msg.from === 'string' &&
    typeof msg.timestamp === 'string'
  );
}

/** The messages of a served page: `value.messages` of the changes whose field is "messages" (spec 2.4). */
function servedMessages(tree: unknown): unknown[] {
  const entries = (tree as { entry: { changes: { field: string; value: { messages?: unknown[] } }[] }[] })
    .entry;
  return entries.flatMap((e) =>
    e.changes.filter((c) => c.field === 'messages').flatMap((c) => c.value.messages ?? []),
  );
}

describe('hostile update pages', () => {
  it('give a page holding every routable served message (as `unknown` when it does not fit), or a typed error; the agent keeps polling', async () => {
    await fc.assert(
      fc.asyncProperty(
        page,
        fc.array(mutation, { maxLength: 3 }),
        fc.option(fc.constantFrom(-1, 0.5, 1e300, 2 ** 53 + 2, 1e21, '7', null), { freq: 4 }),
        encoding,
        contentType,
        fc.nat(),
        async (valid, mutations, offset, how, type, cut) => {
          const tree = mutate(offset === null ? valid : { ...valid, next_offset: offset }, mutations);
          wire.canned = { status: 200, contentType: type, ...encode(tree, how, cut) };
          const direct = await settle(client.getUpdates({ offset: 7, timeout: 0 }));
          const env = quietEnv();
          const poll = { agentKey: 'a', offset: 7, limit: 50, timeoutSeconds: 0 };
          const viaActivity = await settle(env.run(acts.pollUpdates, poll));
          if (!direct.ok) {
            expect(direct.err).toBeInstanceOf(MessagingError);
            // A page exactly as the spec shows it is never refused.
            expect(mutations.length > 0 || offset !== null || how !== 'json').toBe(true);
          } else {
            expect(how).toBe('json');
            const flat = flattenPage(direct.value!);
            // What was served (JSON has no -0, no undefined).
            const sent = JSON.parse(wire.canned.body.toString()) as { next_offset: unknown };
            const served = servedMessages(sent);
            const handedOn = served.filter(routable);
            expect(flat.messages.map((m) => m.id)).toEqual(handedOn.map((m) => (m as Node).id));
            handedOn.forEach((m, i) => {
              const got = flat.messages[i];
              // Every message handed on fits the schema; one that did not as served is `unknown`.
              expect(InboundMessageSchema.safeParse(got).success).toBe(true);
              if (!processable(m)) expect(got.type).toBe('unknown');
              if (got.type !== (m as Node).type)
                expect(got.unknown).toMatchObject({ problems: expect.any(Array) });
            });
            // Each message not handed on as served is listed, never silently dropped.
            const changed = handedOn.filter((m, i) => flat.messages[i].type !== (m as Node).type).length;
            const misfits = flat.misfits.filter((f) => f.kind === 'message' && f.action !== 'trimmed');
            expect(misfits.length).toBeGreaterThanOrEqual(served.length - handedOn.length + changed);
            expect(flat.nextOffset).toBe(sent.next_offset);
            // The next poll can start from it.
            expect(() => checkUpdatesParams({ offset: flat.nextOffset })).not.toThrow();
          }
          if (viaActivity.ok) {
            expect(viaActivity.value).toMatchObject({ status: 'page' });
            // Only an answer over the client's cap differs: the activity reads it again, smaller.
            if (!direct.ok) expect(direct.err).toMatchObject({ overLimitBytes: expect.any(Number) });
          } else {
            expect(direct.ok).toBe(false);
            expect(requestVerdict(failureInfo(viaActivity.err)).kind).toBe('transient');
          }
        },
      ),
      RUNS,
    );
  }, 60_000);
});

describe('hostile send answers and error bodies', () => {
  it('give typed errors only; an accepted send with an unreadable answer is ambiguous', async () => {
    await fc.assert(
      fc.asyncProperty(
        statusCode,
        answerJson,
        fc.array(mutation, { maxLength: 2 }),
        encoding,
        contentType,
        retryAfter,
        fc.nat(),
        async (status, json, mutations, how, type, after, cut) => {
          wire.canned = {
            status,
            contentType: type,
            retryAfter: after,
            ...encode(mutate(json, mutations), how, cut),
          };
          const accepted = status >= 200 && status < 300;
          const send = await settle(client.sendText('hello'));
          if (send.ok) expect(accepted && how === 'json').toBe(true);
          else {
            expect(send.err).toBeInstanceOf(MessagingError);
            if (accepted) expect(send.err).toBeInstanceOf(AmbiguousSendError);
            if (send.err instanceof RateLimitError) {
              expect(status).toBe(429);
              const wait = send.err.retryAfterMs;
              expect(wait === undefined || (Number.isFinite(wait) && wait >= 0)).toBe(true);
            }
            if (send.err instanceof NotAcceptedError) expect(status).toBe(503);
          }
          const env = quietEnv();
          const message = { type: 'text', text: { body: 'hello' } };
          const viaActivity = await settle(
            env.run(acts.sendMessage, { agentKey: 'a', to: CREATOR, message, attemptId: 'x' }),
          );
          expect(viaActivity.ok).toBe(send.ok);
          const failure = viaActivity.ok ? undefined : failureInfo(viaActivity.err).type;
          if (accepted && failure) expect(failure).toBe('AmbiguousSend');
          // "Not sent" only when the service said so.
          if (failure === 'SendRejected') expect([429, 503]).toContain(status);
          const read = await settle(client.markRead('wamid.1'));
          if (read.ok) expect(accepted && typeof read.value).toBe('boolean');
          else expect(read.err).toBeInstanceOf(MessagingError);
        },
      ),
      RUNS,
    );
  }, 60_000);

  it.each([
    ['30 days', '2592000'],
    ['401 digits', `1${'0'.repeat(400)}`],
  ])('waits out a Retry-After of %s, never retrying at once', async (_name, after) => {
    wire.canned = { status: 429, retryAfter: after, body: Buffer.from('{"error":{"code":130429}}') };
    const patient = new MessagingClient({
      token: 't',
      baseUrl: `${wire.origin}/agent/v1`,
      recipient: CREATOR,
      maxRetries: 3,
    });
    wire.hits = 0;
    const call = patient.sendText('x', {}, { signal: AbortSignal.timeout(300) });
    await expect(call).rejects.toMatchObject({ name: 'RequestAbortedError', mayHaveBeenSent: false });
    await patient.close();
    expect(wire.hits).toBe(1);
  });
});

// ---- media metadata ----

/** Where a metadata `url` may point; nothing outside this machine is ever asked. */
const mediaUrl = fc.constantFrom(
  '/bytes/1',
  'ORIGIN/bytes/2',
  'http://127.0.0.2:9/x',
  'https://127.0.0.1:1/x',
  'http://[',
  '::::',
  '',
  'javascript:alert(1)',
  'file:///etc/passwd',
  '/bytes/\uD800',
);
const metadata = fc.record({
  messaging_product: fc.constant('agent_messaging'),
  id: text,
  url: mediaUrl,
  mime_type: fc.constantFrom('image/png', '', 'x'),
  sha256: fc.constantFrom(SHA, SHA.toUpperCase(), Buffer.from(SHA, 'hex').toString('base64'), 'nope', ''),
  file_size: fc.constantFrom(BYTES.length, String(BYTES.length), -1, 0.5, 1e300, 'big', ' 11 '),
});

/** A url the client could be led to fetch: only loopback, never the outside world. */
function onlyLoopback(tree: unknown): unknown {
  const url = (tree as Node | null)?.url;
  if (typeof url !== 'string') return tree;
  const withOrigin = url.replace('ORIGIN', wire.origin);
  let host = '127.0.0.1';
  try {
    host = new URL(withOrigin, `${wire.origin}/`).hostname;
  } catch {
    // An unparsable url is fine: it is never fetched.
  }
  return { ...(tree as Node), url: ['127.0.0.1', '127.0.0.2'].includes(host) ? withOrigin : '/bytes/3' };
}

describe('hostile media metadata', () => {
  it('gives metadata or a typed error, and downloads only bytes that match it', async () => {
    await fc.assert(
      fc.asyncProperty(
        metadata,
        fc.array(mutation, { maxLength: 2 }),
        encoding,
        contentType,
        fc.nat(),
        async (meta, mutations, how, type, cut) => {
          wire.canned = {
            status: 200,
            contentType: type,
            ...encode(onlyLoopback(mutate(meta, mutations)), how, cut),
          };
          const got = await settle(client.getMedia('m1'));
          if (got.ok) expect(typeof got.value.url).toBe('string');
          else expect(got.err).toBeInstanceOf(MessagingError);
          const download = await settle(client.downloadMedia('m1'));
          if (!download.ok) expect(download.err).toBeInstanceOf(MessagingError);
          else if (!download.value.data.equals(BYTES)) {
            // Other bytes only when the metadata gave nothing to check them against.
            const meta = download.value.metadata!;
            expect(meta.sha256).toBeUndefined();
            expect(mediaFileSize(meta) ?? download.value.data.length).toBe(download.value.data.length);
          }
          const env = quietEnv();
          const viaActivity = await settle(env.run(acts.downloadMedia, { agentKey: 'a', mediaId: 'm1' }));
          expect(viaActivity.ok).toBe(download.ok);
        },
      ),
      RUNS,
    );
  }, 60_000);
});
