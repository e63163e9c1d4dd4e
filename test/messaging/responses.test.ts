/**
 * Every answer is parsed with zod; an unusable body becomes a typed error carrying the raw body.
 */
import { AmbiguousSendError, type MessagingClient, UnexpectedResponseError } from '../../messaging';
import { CREATOR, rejectionOf, useSimulator } from './support';

describe('response parsing', () => {
  const { sim, client } = useSimulator();

  it('treats a 200 send with an unparseable body as ambiguous (it was sent) and never repeats it', async () => {
    const c = client({ recipient: CREATOR, retrySendOnServerError: true });
    await sim().control.fault('messages', { kind: 'malformed_json' });
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(AmbiguousSendError);
    expect(err).toMatchObject({ reason: 'malformed_response', status: 200, body: '{"messaging_product": "' });
    const transcript = await sim().control.transcript();
    expect(transcript.sent).toHaveLength(1);
    expect(transcript.counts.requests.messages).toBe(1);
  });

  it.each([
    ['media metadata', 'media.get', (c: MessagingClient, id: string) => c.getMedia(id)],
    ['a delete acknowledgement', 'media.delete', (c: MessagingClient, id: string) => c.deleteMedia(id)],
  ] as const)(
    'turns malformed %s into UnexpectedResponseError with the raw body',
    async (_what, endpoint, call) => {
      const c = client();
      const id = await c.uploadMedia(Buffer.from('hi'), { mimeType: 'text/plain' });
      await sim().control.fault(endpoint, { kind: 'malformed_json' });
      const err = await rejectionOf(call(c, id));
      expect(err).toBeInstanceOf(UnexpectedResponseError);
      expect(err).toMatchObject({
        status: 200,
        body: '{"messaging_product": "',
        code: 'AMS_UNEXPECTED_RESPONSE',
      });
    },
  );

  it('turns a malformed upload answer and a malformed ack into typed errors too', async () => {
    const c = client();
    await sim().control.fault('media.upload', { kind: 'malformed_json' });
    await expect(c.uploadMedia(Buffer.from('hi'), { mimeType: 'text/plain' })).rejects.toBeInstanceOf(
      UnexpectedResponseError,
    );
    const { id } = await sim().control.humanText('hi');
    await sim().control.fault('statuses', { kind: 'malformed_json' });
    await expect(c.markRead(id)).rejects.toBeInstanceOf(UnexpectedResponseError);
  });
});
