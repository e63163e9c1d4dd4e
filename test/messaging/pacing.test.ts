/**
 * Spec 8 "Client pacing rules", against the simulator over real HTTP (2 s windows).
 */
import { CREATOR, gaps, useSimulator } from './support';

const WINDOW = 2000;

describe('pacing', () => {
  const { sim, client } = useSimulator();

  it('paces a burst of 13 sends: 12 at once, the 13th when the oldest ages out, no 429', async () => {
    const c = client({ recipient: CREATOR });
    const results = await Promise.all(Array.from({ length: 13 }, (_, i) => c.sendText(`burst ${i}`)));
    expect(new Set(results.map((r) => r.messageId)).size).toBe(13);

    const log = (await sim().control.log()).filter((e) => e.endpoint === 'messages');
    expect(log.map((e) => e.status)).toEqual(Array(13).fill(200));
    const first = log[0].at;
    expect(log[11].at - first).toBeLessThan(WINDOW / 2);
    // Exactly when the oldest ages out: the window after the first answer, plus a round trip.
    expect(log[12].at - first).toBeGreaterThanOrEqual(WINDOW);
    expect(log[12].at - first).toBeLessThan(WINDOW + 400);
    expect((await sim().control.transcript()).counts.status429.messages).toBe(0);
  });

  it('counts typing indicators on their own counter, apart from mark-read', async () => {
    const c = client({ recipient: CREATOR });
    const { id } = await sim().control.humanText('hello');
    const started = Date.now();
    await Promise.all([
      ...Array.from({ length: 12 }, () => c.markRead(id)),
      ...Array.from({ length: 12 }, () => c.sendTyping(id)),
    ]);
    // 24 requests on one endpoint path, none paced: the two budgets are separate.
    expect(Date.now() - started).toBeLessThan(WINDOW / 2);

    await c.sendTyping(id); // the 13th typing indicator waits for its own window
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW);
    const transcript = await sim().control.transcript();
    expect(transcript.counts.requests.statuses).toBe(12);
    expect(transcript.counts.requests.typing).toBe(13);
    expect(transcript.counts.status429.typing).toBe(0);
  });

  it('keeps every window within the limit when many callers share one client', async () => {
    const c = client({ recipient: CREATOR, limits: { windowMs: WINDOW, statuses: 5 } });
    const { id } = await sim().control.humanText('hello');
    await Promise.all(Array.from({ length: 12 }, () => c.markRead(id)));
    const times = (await sim().control.log()).filter((e) => e.endpoint === 'statuses').map((e) => e.at);
    expect(times).toHaveLength(12);
    // Any 6 consecutive requests span at least one window.
    for (let i = 5; i < times.length; i++) expect(times[i] - times[i - 5]).toBeGreaterThanOrEqual(WINDOW);
    expect(
      gaps(times)
        .slice(0, 4)
        .every((g) => g < 200),
    ).toBe(true);
  });

  it('counts only its own instance: a second client has a window of its own', async () => {
    const a = client({ recipient: CREATOR, limits: { windowMs: WINDOW, mediaGet: 2 } });
    const b = client({ recipient: CREATOR, limits: { windowMs: WINDOW, mediaGet: 2 } });
    const id = await a.uploadMedia(Buffer.from('x'), { mimeType: 'text/plain' });
    const started = Date.now();
    await Promise.all([a.getMedia(id), a.getMedia(id), b.getMedia(id), b.getMedia(id)]);
    expect(Date.now() - started).toBeLessThan(WINDOW / 2);
  });

  it('does not pace at all with rateLimit: false (the 429 retry absorbs the overflow)', async () => {
    const c = client({ recipient: CREATOR, rateLimit: false, maxRetries: 5 });
    const { id } = await sim().control.humanText('hello');
    await Promise.all(Array.from({ length: 13 }, () => c.markRead(id)));
    const transcript = await sim().control.transcript();
    expect(transcript.counts.status429.statuses).toBeGreaterThanOrEqual(1);
    expect(transcript.counts.requests.statuses).toBe(13 + transcript.counts.status429.statuses);
  });
});
