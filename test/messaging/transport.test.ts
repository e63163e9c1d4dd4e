/**
 * What the simulator cannot easily produce: a hanging answer (undici MockAgent), a connection reset
 * in the middle of a body and a refused connection (a raw local socket server), plus aborts.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import {
  AmbiguousSendError,
  ClientClosedError,
  MessagingClient,
  type MessagingClientOptions,
  RequestAbortedError,
  TransportError,
  ValidationError,
} from '../../messaging';
import { CREATOR, FAST_RETRIES, RecordingDispatcher, rejectionOf, waitFor } from './support';

const ORIGIN = 'https://ams.test';
const BASE = `${ORIGIN}/agent/v1`;
const SEND_OK = {
  messaging_product: 'agent_messaging',
  contacts: [{ input: CREATOR, wa_id: CREATOR }],
  messages: [{ id: 'wamid.1' }],
};

describe('transport edge cases (MockAgent)', () => {
  let mock: MockAgent;
  const clients: MessagingClient[] = [];
  const make = (overrides: Partial<MessagingClientOptions> = {}): MessagingClient => {
    const c = new MessagingClient({
      token: 'mock-token',
      baseUrl: BASE,
      dispatcher: mock,
      ...FAST_RETRIES,
      ...overrides,
    });
    clients.push(c);
    return c;
  };

  beforeEach(() => {
    mock = new MockAgent();
    mock.disableNetConnect();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await mock.close();
  });

  /** Intercepts `times` requests, counting them, answering after `delayMs`. */
  function intercept(method: string, path: string, status: number, body: unknown, delayMs = 0, times = 1) {
    const seen = { count: 0, bodies: [] as unknown[] };
    const scope = mock
      .get(ORIGIN)
      .intercept({ method, path: (p) => p.split('?')[0] === `/agent/v1${path}` })
      .reply((opts) => {
        seen.count += 1;
        if (typeof opts.body === 'string') seen.bodies.push(JSON.parse(opts.body));
        return { statusCode: status, data: body === undefined ? '' : JSON.stringify(body) };
      });
    if (delayMs > 0) scope.delay(delayMs);
    scope.times(times);
    return seen;
  }

  it('gives up on a hanging send after the read timeout: ambiguous, sent once', async () => {
    const c = make({ recipient: CREATOR, timeoutMs: 200 });
    const seen = intercept('POST', '/messages', 200, SEND_OK, 10_000, 5);
    const started = Date.now();
    const err = await rejectionOf(c.sendText('hi'));
    expect(err).toBeInstanceOf(AmbiguousSendError);
    expect((err as AmbiguousSendError).reason).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen.count).toBe(1);
  });

  it('retries a hanging poll (the read timeout is the long-poll wait plus timeoutMs), then fails', async () => {
    const c = make({ timeoutMs: 150, maxRetries: 1 });
    const seen = intercept('GET', '/updates', 204, undefined, 10_000, 5);
    const started = Date.now();
    const err = await rejectionOf(c.getUpdates({ offset: 3, timeout: 0 }));
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ reason: 'timeout' });
    expect(seen.count).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 150 + FAST_RETRIES.backoffBaseMs - 10);
  });

  it('aborts an in-flight send at once; it may have been sent', async () => {
    const c = make({ recipient: CREATOR });
    intercept('POST', '/messages', 200, SEND_OK, 10_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const err = await rejectionOf(c.sendText('hi', {}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect((err as RequestAbortedError).mayHaveBeenSent).toBe(true);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('aborts a pacing wait; nothing was sent', async () => {
    const c = make({ recipient: CREATOR, limits: { windowMs: 60_000, messages: 1 } });
    const seen = intercept('POST', '/messages', 200, SEND_OK, 0, 2);
    await c.sendText('first');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await rejectionOf(c.sendText('second', {}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect((err as RequestAbortedError).mayHaveBeenSent).toBe(false);
    expect(seen.count).toBe(1);
  });

  it('aborts a Retry-After wait; nothing was sent', async () => {
    const c = make({ recipient: CREATOR });
    mock
      .get(ORIGIN)
      .intercept({ method: 'POST', path: '/agent/v1/messages' })
      .reply(429, { error: { code: 130429 } }, { headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const err = await rejectionOf(c.sendText('hi', {}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect((err as RequestAbortedError).mayHaveBeenSent).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('says plainly that no recipient is known yet when the discovery poll answers 204, and never polls again', async () => {
    const c = make();
    const seen = intercept('GET', '/updates', 204, undefined);
    const err = await rejectionOf(c.sendText('hi'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(
      /No recipient is known yet: the discovery poll \(offset=0, timeout=0\) answered 204/,
    );
    const again = await rejectionOf(c.sendText('hi'));
    expect(again.message).toMatch(/already polled/);
    expect(seen.count).toBe(1);
  });

  it('follows the wa_id a send result answers with, passing identifiers through unchanged', async () => {
    const c = make({ recipient: CREATOR });
    const first = intercept('POST', '/messages', 200, {
      ...SEND_OK,
      contacts: [{ input: CREATOR, wa_id: 'user:NEW/id?=1' }],
      extra_member: { kept: true },
    });
    const result = await c.sendText('one');
    expect(result.recipient).toBe('user:NEW/id?=1');
    expect(result.raw).toMatchObject({ extra_member: { kept: true } });
    expect(c.recipient).toBe('user:NEW/id?=1');
    const second = intercept('POST', '/messages', 200, SEND_OK);
    await c.sendText('two');
    expect(first.bodies[0]).toMatchObject({ to: CREATOR });
    expect(second.bodies[0]).toMatchObject({ to: 'user:NEW/id?=1', type: 'text', text: { body: 'two' } });
  });

  it('passes a payload of a type it does not know through as given', async () => {
    const c = make({ recipient: CREATOR });
    const seen = intercept('POST', '/messages', 200, SEND_OK);
    await c.send({ type: 'location', location: { latitude: 52.5, longitude: 13.4, name: 'Berlin' } });
    expect(seen.bodies[0]).toEqual({
      to: CREATOR,
      type: 'location',
      location: { latitude: 52.5, longitude: 13.4, name: 'Berlin' },
    });
  });

  it('fails pending calls with ClientClosedError on close, leaving a supplied dispatcher open', async () => {
    const c = make({ recipient: CREATOR });
    const closeSpy = jest.spyOn(mock, 'close');
    const destroySpy = jest.spyOn(mock, 'destroy');
    const seen = intercept('POST', '/messages', 200, SEND_OK, 10_000);
    const pending = c.sendText('hi');
    const queued = c.sendText('queued');
    await waitFor(
      () => seen.count,
      (n) => n === 1,
    ); // the first send is in flight
    await c.close();
    await expect(pending).rejects.toBeInstanceOf(ClientClosedError);
    await expect(queued).rejects.toBeInstanceOf(ClientClosedError);
    await expect(c.sendText('after')).rejects.toBeInstanceOf(ClientClosedError);
    expect(closeSpy).not.toHaveBeenCalled();
    expect(destroySpy).not.toHaveBeenCalled();
    intercept('POST', '/messages', 200, SEND_OK);
    await expect(make({ recipient: CREATOR }).sendText('still open')).resolves.toMatchObject({
      messageId: 'wamid.1',
    });
  });
});

describe('transport edge cases (raw socket server)', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  const sockets = new Set<Socket>();
  const recorders: RecordingDispatcher[] = [];
  const clients: MessagingClient[] = [];

  /** Answers every request with a 200 whose body stops half-way and a reset connection. */
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        requests += 1;
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"messaging_product":"agent_messaging","messages":[{"id":"wamid.',
          () => setTimeout(() => socket.resetAndDestroy(), 20),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests = 0;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(recorders.splice(0).map((r) => r.close()));
  });
  const make = (overrides: Partial<MessagingClientOptions> = {}): MessagingClient => {
    const c = new MessagingClient({
      token: 'raw-token',
      baseUrl: `http://127.0.0.1:${port}/agent/v1`,
      recipient: CREATOR,
      ...FAST_RETRIES,
      ...overrides,
    });
    clients.push(c);
    return c;
  };

  it('treats a reset in the middle of a 200 send body as ambiguous and never repeats it, even when opted in', async () => {
    const err = await rejectionOf(make({ retrySendOnServerError: true }).sendText('hi'));
    expect(err).toBeInstanceOf(AmbiguousSendError);
    expect(err).toMatchObject({ reason: 'connection', status: 200 });
    expect(err.message).toMatch(/accepted it/);
    expect(requests).toBe(1);
  });

  it('retries a poll whose body was cut off, then reports the dropped connection', async () => {
    const err = await rejectionOf(make({ maxRetries: 2 }).getUpdates({ offset: 0, timeout: 0 }));
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ reason: 'connection', status: 200 });
    expect(requests).toBe(3);
  });

  it('retries a send whose connection was refused (nothing was sent), then reports it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const rec = new RecordingDispatcher();
    recorders.push(rec);
    const c = make({
      baseUrl: `http://127.0.0.1:${deadPort}/agent/v1`,
      dispatcher: rec.dispatcher,
      maxRetries: 2,
    });
    const err = await rejectionOf(c.sendText('hi'));
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ reason: 'connect' });
    expect(err.message).toMatch(/nothing was sent/);
    expect(rec.requests).toHaveLength(3);
  });
});
