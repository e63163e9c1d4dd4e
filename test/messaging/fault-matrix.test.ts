/**
 * Fault matrix: every fault kind the simulator injects, on every endpoint, through the client
 * (one attempt, as the engine's clients make them) and through the activity that wraps it. The
 * expected (client error, activity failure, meaning for the engine) lives below as data; it is
 * rendered to Markdown and compared with the "Fault matrix" section of docs/RELIABILITY.md.
 * The engine's behaviour for each meaning runs end to end in test/engine/faults.test.ts and
 * test/engine/ambiguity.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../activities';
import {
  AmbiguousSendError,
  ApiError,
  type MessagingClient,
  RateLimitError,
  TransportError,
  UnexpectedResponseError,
} from '../../messaging';
import { engineClient } from '../support/engine-client';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { ENDPOINTS, FaultSchema, type Endpoint, type Fault } from '../../simulator/wire';
import type { MarkReadReport } from '../../activities/mark-reads';
import { failureInfo, requestVerdict, sendVerdict } from '../../workflows/engine/request-policy';
import { rideReport } from '../../workflows/engine/statuses';
import { DEFAULT_TUNING } from '../../workflows/engine/tuning';

const AGENT = 'demo';
const CREATOR = 'user:1001';
const TIMEOUT_MS = 250;
const SLOW_MS = 700;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const TEXT = { type: 'text', text: { body: 'hi' } };
const DOC = join(__dirname, '../../docs/RELIABILITY.md');
const START = '<!-- fault-matrix:start -->';
const END = '<!-- fault-matrix:end -->';

const NOT_SENT = 'not sent, retry after';
const AMBIGUOUS = 'ambiguous, never retried blindly';
const POLL_AGAIN = 'harmless, poll again';
const RETRY = 'harmless, retried';
const STOP = 'stop';
const DONE = 'done (late)';

const VARIANTS: { name: string; fault: Fault }[] = [
  { name: 'rate_limit, Retry-After: 2', fault: { kind: 'rate_limit', retryAfter: 2 } },
  { name: 'rate_limit, no Retry-After', fault: { kind: 'rate_limit', retryAfter: null } },
  { name: 'not_accepted', fault: { kind: 'not_accepted' } },
  { name: 'server_error_after_accept', fault: { kind: 'server_error_after_accept' } },
  { name: 'drop_before', fault: { kind: 'drop_before' } },
  { name: 'drop_after', fault: { kind: 'drop_after' } },
  { name: `slow ${20} ms (under the read timeout)`, fault: { kind: 'slow', delayMs: 20 } },
  { name: `slow ${SLOW_MS} ms (past the read timeout)`, fault: { kind: 'slow', delayMs: SLOW_MS } },
  { name: 'malformed_json', fault: { kind: 'malformed_json' } },
  { name: 'poll_replaced', fault: { kind: 'poll_replaced' } },
  { name: 'bad_token', fault: { kind: 'bad_token' } },
];

type Group = 'messages' | 'updates' | 'statuses' | 'other';
const GROUPS: Group[] = ['messages', 'updates', 'statuses', 'other'];
const OTHER = ENDPOINTS.filter((e) => e !== 'messages' && e !== 'updates' && e !== 'statuses');
const groupOf = (e: Endpoint): Group =>
  e === 'messages' || e === 'updates' || e === 'statuses' ? e : 'other';
/** [client error, activity outcome, meaning]. */
type Cell = [string, string, string];
const A = 'thrown as is, retryable';
/** The mark-read activity reports what became of each message; it never fails for one of them. */
const READ_AGAIN = 'not read yet: marked again after Retry-After or the backoff';
const READ_FAILED: Cell[1] = 'reports failed';
const same = (messages: Cell, statuses: Cell, rest: Cell): Record<Group, Cell> => ({
  messages,
  updates: rest,
  statuses,
  other: rest,
});
/** What the statuses endpoint gives for a failure that may pass: the client's error, reported failed. */
const readAgain = (clientError: string, shown = READ_FAILED): Cell => [clientError, shown, READ_AGAIN];
const READ_AGAIN_AT_ONCE = 'may or may not be read: marked again at once';
/** ... and for a failure whose outcome is unknown: reported so, marked again at once. */
const readAtOnce = (clientError: string): Cell => [clientError, 'reports unknown', READ_AGAIN_AT_ONCE];

/** The expected matrix: variant name -> endpoint group -> cell. */
const EXPECTED: Record<string, Record<Group, Cell>> = {
  'rate_limit, Retry-After: 2': same(
    ['RateLimitError (retryAfterMs 2000)', 'SendRejected (status 429, retryAfterMs 2000)', NOT_SENT],
    readAgain('RateLimitError (retryAfterMs 2000)', 'reports failed (retryAfterMs 2000)'),
    ['RateLimitError (retryAfterMs 2000)', 'RateLimited (status 429, retryAfterMs 2000)', NOT_SENT],
  ),
  'rate_limit, no Retry-After': same(
    ['RateLimitError (no retryAfterMs)', 'SendRejected (status 429)', NOT_SENT],
    readAgain('RateLimitError (no retryAfterMs)'),
    ['RateLimitError (no retryAfterMs)', 'RateLimited (status 429)', NOT_SENT],
  ),
  not_accepted: same(
    ['NotAcceptedError (503)', 'SendRejected (status 503)', NOT_SENT],
    readAgain('NotAcceptedError (503)'),
    ['NotAcceptedError (503)', 'RateLimited (status 503)', NOT_SENT],
  ),
  server_error_after_accept: {
    messages: [
      'AmbiguousSendError (server_error, 500)',
      'AmbiguousSend (status 500, reason server_error)',
      AMBIGUOUS,
    ],
    updates: ['ApiError (500)', `ApiError (${A})`, POLL_AGAIN],
    statuses: readAtOnce('ApiError (500)'),
    other: ['ApiError (500)', `ApiError (${A})`, RETRY],
  },
  drop_before: {
    messages: ['AmbiguousSendError (connection)', 'AmbiguousSend (reason connection)', AMBIGUOUS],
    updates: ['TransportError (connection)', `TransportError (${A})`, POLL_AGAIN],
    statuses: readAtOnce('TransportError (connection)'),
    other: ['TransportError (connection)', `TransportError (${A})`, RETRY],
  },
  drop_after: {
    messages: ['AmbiguousSendError (connection)', 'AmbiguousSend (reason connection)', AMBIGUOUS],
    updates: ['TransportError (connection)', `TransportError (${A})`, POLL_AGAIN],
    statuses: readAtOnce('TransportError (connection)'),
    other: ['TransportError (connection)', `TransportError (${A})`, RETRY],
  },
  'slow 20 ms (under the read timeout)': same(
    ['answered', 'completed', DONE],
    ['answered', 'reports done', DONE],
    ['answered', 'completed', DONE],
  ),
  [`slow ${SLOW_MS} ms (past the read timeout)`]: {
    messages: ['AmbiguousSendError (timeout)', 'AmbiguousSend (reason timeout)', AMBIGUOUS],
    updates: ['TransportError (timeout)', `TransportError (${A})`, POLL_AGAIN],
    statuses: readAtOnce('TransportError (timeout)'),
    other: ['TransportError (timeout)', `TransportError (${A})`, RETRY],
  },
  malformed_json: {
    messages: [
      'AmbiguousSendError (malformed_response, 200)',
      'AmbiguousSend (status 200, reason malformed_response)',
      AMBIGUOUS,
    ],
    updates: ['UnexpectedResponseError (200)', `UnexpectedResponseError (${A})`, POLL_AGAIN],
    statuses: readAtOnce('UnexpectedResponseError (200)'),
    other: ['UnexpectedResponseError (200)', `UnexpectedResponseError (${A})`, RETRY],
  },
  poll_replaced: {
    messages: ['ApiError (409)', 'SendInvalid (status 409)', STOP],
    updates: ['PollReplacedError (409)', "returns { status: 'replaced' }", POLL_AGAIN],
    statuses: readAgain('ApiError (409)'),
    other: ['ApiError (409)', `ApiError (${A})`, RETRY],
  },
  // A refused token is the agent's to stop on (its polls say it): the mark-read waits for the fix.
  bad_token: same(
    ['AuthError (401)', 'SendUnauthorized (status 401, tokenRefused true)', STOP],
    readAgain('AuthError (401)'),
    ['AuthError (401)', 'Unauthorized (status 401)', STOP],
  ),
};

function describeClientError(err: unknown): string {
  if (err instanceof RateLimitError) {
    return `RateLimitError (${err.retryAfterMs === undefined ? 'no retryAfterMs' : `retryAfterMs ${err.retryAfterMs}`})`;
  }
  if (err instanceof AmbiguousSendError) {
    return `AmbiguousSendError (${[err.reason, err.status].filter((x) => x !== undefined).join(', ')})`;
  }
  if (err instanceof TransportError) return `TransportError (${err.reason})`;
  if (err instanceof ApiError || err instanceof UnexpectedResponseError) return `${err.name} (${err.status})`;
  return `unexpected ${String(err)}`;
}

function describeActivityError(err: unknown): string {
  if (!(err instanceof ApplicationFailure)) return `${(err as Error).name} (${A})`;
  if (!err.nonRetryable) return `${err.type} (retryable!)`;
  const details = { ...(err.details?.[0] as Record<string, unknown> | undefined) };
  delete details.startedAt;
  const shown = Object.entries(details).filter(([, v]) => v !== undefined);
  return shown.length === 0
    ? `${err.type}`
    : `${err.type} (${shown.map(([k, v]) => `${k} ${String(v)}`).join(', ')})`;
}

/** The meaning of an activity outcome for the agent workflow (its own classification functions). */
function meaningOf(
  endpoint: Endpoint,
  outcome: { ok: true; value: unknown } | { ok: false; err: unknown },
): string {
  if (outcome.ok && endpoint === 'statuses') return readMeaning(outcome.value as MarkReadReport);
  if (outcome.ok) return (outcome.value as { status?: string }).status === 'replaced' ? POLL_AGAIN : DONE;
  const info = failureInfo(outcome.err);
  const verdict = endpoint === 'messages' ? sendVerdict(info) : requestVerdict(info);
  if (verdict.kind === 'rejected') return NOT_SENT;
  if (verdict.kind === 'ambiguous') return AMBIGUOUS;
  if (verdict.kind === 'final') return STOP;
  return endpoint === 'updates' ? POLL_AGAIN : RETRY;
}

/** A mark-read report's meaning: done, dropped for good, or marked again (the workflow's rideReport). */
function readMeaning(report: MarkReadReport): string {
  if (report.done.length > 0) return DONE;
  if (report.refused.length > 0) return 'dropped for good, logged once';
  const ride = rideReport(report, DEFAULT_TUNING);
  if (ride.unknown.length > 0 && !ride.retry) return READ_AGAIN_AT_ONCE;
  return ride.retry ? READ_AGAIN : 'unknown';
}

/** The mark-read activity's report as a cell: what it says of the one message. */
function describeReport(report: MarkReadReport): string {
  if (report.done.length > 0) return 'reports done';
  if (report.refused.length > 0) return 'reports refused';
  if (report.unknown?.length) return 'reports unknown';
  return report.retryAfterMs === undefined
    ? READ_FAILED
    : `${READ_FAILED} (retryAfterMs ${report.retryAfterMs})`;
}

function renderMatrix(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [
    '| fault | endpoint | client error | activity failure | meaning for the engine |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const { name } of VARIANTS) {
    for (const group of GROUPS) {
      const endpoints = group === 'other' ? OTHER.join(', ') : group;
      lines.push(`| ${esc(name)} | ${endpoints} | ${EXPECTED[name][group].map(esc).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

/** A Markdown table without the padding that prettier adds. */
function normalizeTable(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/^-{3,}$/, '---'))
        .join(' | ')
        .trim(),
    )
    .join('\n');
}

let sim: RunningSimulator;
let client: MessagingClient;
let acts: ReturnType<typeof createActivities>;
beforeAll(async () => {
  const big = 10_000;
  sim = await startSimulator({
    port: 0,
    limits: { windowMs: 1000, messages: big, statuses: big, typing: big, updates: big },
  });
  client = engineClient(sim, { timeoutMs: TIMEOUT_MS, recipient: CREATOR });
  acts = createActivities(new Map([[AGENT, client]]));
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
});

/** Whatever the call of an endpoint needs (an inbound message, an uploaded media item). */
async function prepare(endpoint: Endpoint): Promise<string> {
  if (endpoint === 'statuses' || endpoint === 'typing') return (await sim.control.humanText('hi')).id;
  if (endpoint.startsWith('media.') && endpoint !== 'media.upload') {
    return client.uploadMedia(PNG, { mimeType: 'image/png' });
  }
  return '';
}

const CALLS: Record<
  Endpoint,
  { client: (id: string) => Promise<unknown>; activity: (id: string) => unknown }
> = {
  messages: {
    client: () => client.sendText('hello'),
    activity: () => acts.sendMessage({ agentKey: AGENT, to: CREATOR, message: TEXT, attemptId: 'a' }),
  },
  updates: {
    client: () => client.getUpdates({ offset: 0, timeout: 0 }),
    activity: () => acts.pollUpdates({ agentKey: AGENT, offset: 0, limit: 10, timeoutSeconds: 0 }),
  },
  statuses: {
    client: (id) => client.markRead(id),
    activity: (id) => acts.markRead({ agentKey: AGENT, messageIds: [id] }),
  },
  typing: {
    client: (id) => client.sendTyping(id),
    activity: (id) => acts.sendTyping({ agentKey: AGENT, messageId: id }),
  },
  'media.upload': {
    client: () => client.uploadMedia(PNG, { mimeType: 'image/png' }),
    activity: () =>
      acts.uploadMedia({ agentKey: AGENT, dataBase64: PNG.toString('base64'), mimeType: 'image/png' }),
  },
  'media.get': {
    client: (id) => client.getMedia(id),
    activity: (id) => acts.getMedia({ agentKey: AGENT, mediaId: id }),
  },
  'media.delete': {
    client: (id) => client.deleteMedia(id),
    activity: (id) => acts.deleteMedia({ agentKey: AGENT, mediaId: id }),
  },
  'media.download': {
    client: (id) => client.downloadMedia(id),
    activity: (id) => acts.downloadMedia({ agentKey: AGENT, mediaId: id }),
  },
};

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; err: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (err) {
    return { ok: false, err };
  }
}

describe('fault matrix', () => {
  it('covers every fault kind the simulator has and every endpoint', () => {
    const kinds = FaultSchema.options.map((o) => o.shape.kind.value);
    expect([...new Set(VARIANTS.map((v) => v.fault.kind))].sort()).toEqual([...kinds].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual(VARIANTS.map((v) => v.name).sort());
  });

  describe.each(VARIANTS)('$name', ({ name, fault }) => {
    it.each([...ENDPOINTS])('on %s', async (endpoint) => {
      await sim.control.reset();
      const call = CALLS[endpoint];
      let id = await prepare(endpoint);
      await sim.control.fault({ endpoint, count: 1, fault });
      const direct = await settle(call.client(id));
      const clientCell = direct.ok ? 'answered' : describeClientError(direct.err);

      id = await prepare(endpoint);
      await sim.control.fault({ endpoint, count: 1, fault });
      const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
      const viaActivity = await settle(env.run(call.activity as (id: string) => Promise<unknown>, id));
      let activityCell = viaActivity.ok ? 'completed' : describeActivityError(viaActivity.err);
      if (viaActivity.ok && endpoint === 'statuses')
        activityCell = describeReport(viaActivity.value as MarkReadReport);
      if (viaActivity.ok && (viaActivity.value as { status?: string }).status === 'replaced') {
        activityCell = "returns { status: 'replaced' }";
      }
      const observed: Cell = [clientCell, activityCell, meaningOf(endpoint, viaActivity)];
      expect(observed).toEqual(EXPECTED[name][groupOf(endpoint)]);
      // A slow request the client gave up on is still being served: let it finish first.
      if (fault.kind === 'slow' && fault.delayMs > TIMEOUT_MS)
        await new Promise((r) => setTimeout(r, SLOW_MS));
    });
  });

  it('is the table of docs/RELIABILITY.md', () => {
    const fresh = renderMatrix();
    const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    const current = start >= 0 && end > start ? doc.slice(start + START.length, end) : '(no section)';
    if (normalizeTable(current) !== fresh) {
      console.log(
        `docs/RELIABILITY.md is stale; the fault matrix between the markers should read:\n\n${fresh}\n`,
      );
    }
    expect(normalizeTable(current)).toBe(fresh);
  });
});
