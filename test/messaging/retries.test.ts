/**
 * Spec 7, retry rules: which failures are retried, how often, and how long the client waits.
 */
import {
  AmbiguousSendError,
  ApiError,
  AuthError,
  MessagingClient,
  NotAcceptedError,
  RateLimitError,
} from '../../messaging';
import { CREATOR, gaps, rejectionOf, useSimulator } from './support';

describe('retries', () => {
  const { sim, client } = useSimulator();
  const sendLog = async () => (await sim().control.log()).filter((e) => e.endpoint === 'messages');

  it('honours Retry-After exactly before retrying a rate-limited send', async () => {
    const c = client({ recipient: CREATOR });
    await sim().control.fault('messages', { kind: 'rate_limit', retryAfter: 1 });
    await c.sendText('hello');
    const log = await sendLog();
    expect(log.map((e) => e.status)).toEqual([429, 200]);
    const [gap] = gaps(log.map((e) => e.at));
    expect(gap).toBeGreaterThanOrEqual(1000 - 5);
    expect(gap).toBeLessThan(1000 + 250);
  });

  it('backs off 5, 10, 20 s (here scaled to 50, 100, 200 ms) after 429s without Retry-After', async () => {
    const c = client({ recipient: CREATOR, rateLimitBackoffMs: 50, backoffMaxMs: 1000 });
    await sim().control.fault('messages', { kind: 'rate_limit', retryAfter: null }, { count: 3 });
    await c.sendText('hello');
    const log = await sendLog();
    expect(log.map((e) => e.status)).toEqual([429, 429, 429, 200]);
    gaps(log.map((e) => e.at)).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(50 * 2 ** i - 5);
      expect(gap).toBeLessThan(50 * 2 ** i + 150);
    });
  });

  it('gives up after maxRetries with a RateLimitError that carries the retry-after', async () => {
    const c = client({ recipient: CREATOR, maxRetries: 2 });
    await sim().control.fault('messages', { kind: 'rate_limit', retryAfter: 0 }, { count: 5 });
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBe(0);
    expect((err as RateLimitError).errorCode).toBe(130429);
    expect(await sendLog()).toHaveLength(3);
  });

  it('retries a send refused with 503/131016 (nothing was sent), with backoff between base and max', async () => {
    const c = client({ recipient: CREATOR, backoffBaseMs: 60, backoffMaxMs: 150 });
    await sim().control.fault('messages', { kind: 'not_accepted' }, { count: 3 });
    await c.sendText('hello');
    const log = await sendLog();
    expect(log.map((e) => e.status)).toEqual([503, 503, 503, 200]);
    const bounds = [
      [60, 120],
      [120, 150],
      [150, 150],
    ];
    gaps(log.map((e) => e.at)).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(bounds[i][0] - 5);
      expect(gap).toBeLessThan(bounds[i][1] + 150);
    });
    expect((await sim().control.transcript()).sent).toHaveLength(1);
  });

  it('surfaces NotAcceptedError once retries are used up', async () => {
    const c = client({ recipient: CREATOR, maxRetries: 0 });
    await sim().control.fault('messages', { kind: 'not_accepted' });
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(NotAcceptedError);
    expect(err).toMatchObject({ status: 503, errorCode: 131016, code: 'AMS_NOT_ACCEPTED' });
  });

  it.each([
    ['a 500 after acceptance', 'server_error_after_accept', 'server_error', 1],
    ['a connection dropped after acceptance', 'drop_after', 'connection', 1],
    ['a connection dropped before processing', 'drop_before', 'connection', 0],
  ] as const)('never retries a send after %s: AmbiguousSendError', async (_what, kind, reason, delivered) => {
    const c = client({ recipient: CREATOR });
    await sim().control.fault('messages', { kind });
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(AmbiguousSendError);
    expect((err as AmbiguousSendError).reason).toBe(reason);
    expect(await sendLog()).toHaveLength(1);
    expect((await sim().control.transcript()).sent).toHaveLength(delivered);
  });

  it('never retries a send after a read timeout, although the service went on to deliver it', async () => {
    const c = client({ recipient: CREATOR, timeoutMs: 200 });
    await sim().control.fault('messages', { kind: 'slow', delayMs: 500 });
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(AmbiguousSendError);
    expect((err as AmbiguousSendError).reason).toBe('timeout');
    const transcript = await sim().control.waitFor(
      (ctl) => ctl.transcript(),
      (t) => t.sent.length === 1,
      { timeoutMs: 3000 },
    );
    expect(transcript.counts.requests.messages).toBe(1);
  });

  it.each([
    ['a 500', 'server_error_after_accept'],
    ['a dropped connection', 'drop_after'],
  ] as const)(
    'retries a send after %s with retrySendOnServerError, at the price of a duplicate',
    async (_what, kind) => {
      const c = client({ recipient: CREATOR, retrySendOnServerError: true });
      await sim().control.fault('messages', { kind });
      const result = await c.sendText('hello');
      const transcript = await sim().control.transcript();
      expect(transcript.sent).toHaveLength(2);
      expect(transcript.sent[1].id).toBe(result.messageId);
    },
  );

  it('does not retry a rejected send (403 recipient not the creator)', async () => {
    const c = client({ recipient: CREATOR });
    const err = await rejectionOf(c.sendText('hello', { to: 'user:2002' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, errorCode: 131005 });
    expect(await sendLog()).toHaveLength(1);
  });

  it('fails with AuthError on a bad token, without retrying', async () => {
    const c = new MessagingClient({ token: 'wrong-token', baseUrl: sim().url, recipient: CREATOR });
    try {
      const err = await rejectionOf(c.sendText('hello'));
      expect(err).toBeInstanceOf(AuthError);
      expect(err).toMatchObject({ status: 401, errorCode: 190, code: 'AMS_AUTH' });
    } finally {
      await c.close();
    }
  });

  it('retries a poll after a dropped connection and a server error (polls are repeatable)', async () => {
    const c = client();
    await sim().control.fault('updates', { kind: 'drop_before' });
    await sim().control.fault('updates', { kind: 'server_error_after_accept' });
    const page = await c.getUpdates({ offset: 0, timeout: 0 });
    expect(page?.next_offset).toBeDefined();
    const log = (await sim().control.log()).filter((e) => e.endpoint === 'updates');
    expect(log.map((e) => e.status)).toEqual([0, 500, 200]);
  });

  it('retries mark-read after a dropped connection', async () => {
    const c = client({ recipient: CREATOR });
    const { id } = await sim().control.humanText('hi');
    await sim().control.fault('statuses', { kind: 'drop_after' });
    await expect(c.markRead(id)).resolves.toBe(true);
    const log = (await sim().control.log()).filter((e) => e.endpoint === 'statuses');
    expect(log.map((e) => e.status)).toEqual([0, 200]);
  });

  it('makes at most maxRetries retries of a repeatable request', async () => {
    const c = client({ maxRetries: 2 });
    await sim().control.fault('updates', { kind: 'drop_before' }, { count: 10 });
    const err = await rejectionOf(c.getUpdates({ offset: 0, timeout: 0 }));
    expect(err).toMatchObject({ code: 'AMS_TRANSPORT', reason: 'connection' });
    expect((await sim().control.log()).filter((e) => e.endpoint === 'updates')).toHaveLength(3);
  });
});
