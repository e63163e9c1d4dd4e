/**
 * The token never appears in an error message, a stack, or any property of a thrown error, even
 * when the service echoes it back.
 */
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { MessagingClient, MessagingError } from '../../messaging';
import { CREATOR, rejectionOf } from './support';

const TOKEN = 'tok-3f9a-SECRET-b71c';
const ORIGIN = 'https://ams.test';

/** Every way the token could leak from an error. */
function renderings(err: Error): Record<string, string> {
  return {
    message: err.message,
    stack: err.stack ?? '',
    json: JSON.stringify(err),
    inspect: inspect(err, { depth: Infinity, showHidden: true }),
    string: String(err),
  };
}

type Call = (c: MessagingClient) => Promise<unknown>;
const send: Call = (c) => c.sendText('hi');
const poll: Call = (c) => c.getUpdates({ offset: 0, timeout: 0 });
const media: Call = (c) => c.getMedia('m1');

describe('token secrecy', () => {
  let mock: MockAgent;
  let client: MessagingClient;

  beforeEach(() => {
    mock = new MockAgent();
    mock.disableNetConnect();
    client = new MessagingClient({
      token: TOKEN,
      baseUrl: `${ORIGIN}/agent/v1`,
      dispatcher: mock,
      recipient: CREATOR,
      maxRetries: 0,
    });
  });
  afterEach(async () => {
    await client.close();
    await mock.close();
  });

  /** Answers with `status` and a body that echoes the Authorization header. */
  function echo(status: number, extra: Record<string, unknown> = {}, raw = false): void {
    mock
      .get(ORIGIN)
      .intercept({ method: /.*/, path: /.*/ })
      .reply(status, (opts) => {
        const auth = String((opts.headers as Record<string, string>).authorization);
        return raw
          ? `not json ${auth}`
          : JSON.stringify({ error: { code: 1, message: `you sent ${auth}`, ...extra } });
      });
  }

  it.each<[string, number, Record<string, unknown>, boolean, Call, string]>([
    ['a rejected send', 400, { code: 100 }, false, send, 'AMS_API_ERROR'],
    ['a refused token', 401, { code: 190 }, false, send, 'AMS_AUTH'],
    ['a rate limit', 429, { code: 130429 }, false, send, 'AMS_RATE_LIMITED'],
    ['a send not accepted', 503, { code: 131016 }, false, send, 'AMS_NOT_ACCEPTED'],
    ['a replaced poll', 409, {}, false, poll, 'AMS_POLL_REPLACED'],
    ['a server error on a send', 500, { code: 2 }, false, send, 'AMS_AMBIGUOUS_SEND'],
    ['a server error on a poll', 500, { code: 2 }, false, poll, 'AMS_API_ERROR'],
    ['an unparseable send result', 200, {}, true, send, 'AMS_AMBIGUOUS_SEND'],
    ['unparseable metadata', 200, {}, true, media, 'AMS_UNEXPECTED_RESPONSE'],
  ])('keeps the token out of the error for %s', async (_what, status, extra, raw, call, code) => {
    echo(status, extra, raw);
    const err = await rejectionOf(call(client));
    expect(err).toBeInstanceOf(MessagingError);
    expect((err as MessagingError).code).toBe(code);
    for (const [how, text] of Object.entries(renderings(err))) {
      expect({ how, leaked: text.includes(TOKEN) }).toEqual({ how, leaked: false });
    }
    // The body is kept, the token redacted in it (an UnexpectedResponseError keeps it off its
    // enumerable members: it may be a page of the human's messages).
    expect(JSON.stringify({ ...(err as object), body: (err as { body?: unknown }).body })).toContain(
      '[redacted]',
    );
  });

  it('keeps the token out of transport, abort, close and validation errors', async () => {
    mock.get(ORIGIN).intercept({ method: 'POST', path: /.*/ }).replyWithError(new Error('socket hang up'));
    const errors = [await rejectionOf(send(client))];
    errors.push(await rejectionOf(client.sendText('x'.repeat(5000))));
    errors.push(await rejectionOf(client.sendText('hi', {}, { signal: AbortSignal.abort() })));
    await client.close();
    errors.push(await rejectionOf(send(client)));
    expect(errors.map((e) => (e as MessagingError).code)).toEqual([
      'AMS_AMBIGUOUS_SEND',
      'AMS_VALIDATION',
      'AMS_ABORTED',
      'AMS_CLIENT_CLOSED',
    ]);
    for (const err of errors) {
      for (const text of Object.values(renderings(err))) expect(text.includes(TOKEN)).toBe(false);
    }
  });

  it('keeps the token out of the client object itself', () => {
    expect(inspect(client, { depth: Infinity, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(client)).not.toContain(TOKEN);
  });
});
