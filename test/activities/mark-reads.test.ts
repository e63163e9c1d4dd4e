/**
 * Mark-reads as the activities make them (activities/mark-reads.ts), over real HTTP against the
 * simulator: one at a time, stopping at a 429 or an unknown outcome, each message's fate reported (done, refused for good, failed with
 * Retry-After), never a throw; and riding with a send attempt: read, then answer, the send going
 * whatever became of them, a failed send carrying their report.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { AGENT, activitiesOnSimulator } from '../support/activities-on-simulator';
import { waitFor } from '../support/temporal';
import { AmsflowMetrics } from '../../worker/observability/amsflow-metrics';
import { activityMetricsInterceptor } from '../../worker/observability/activity-metrics';
import { AmsflowLogger } from '../../worker/observability/logger';
import { markReads, type MarkReadReport } from '../../activities/mark-reads';
import type { MarkReadInput, SendFailureDetails, SendOutput } from '../../activities/types';

const CREATOR = 'user:1001';

describe('mark-reads', () => {
  const on = activitiesOnSimulator();

  const humanSays = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await on.sim.control.humanText(`m${i}`)).id);
    return ids;
  };
  const markedRead = async () =>
    (await on.sim.control.transcript()).inbound.filter((m) => m.markedRead).map((m) => m.id);
  const none = new AbortController().signal;

  it('marks every message read, one at a time in order, and says when each request was answered', async () => {
    const ids = await humanSays(3);
    const before = Date.now();
    const report = await markReads(ids, (id, signal) => on.client.markRead(id, { signal }), none);
    expect([...report.done].sort()).toEqual([...ids].sort());
    expect(report).toMatchObject({ refused: [], failed: [] });
    expect(report.times).toHaveLength(3);
    for (const at of report.times) expect(at).toBeGreaterThanOrEqual(before);
    expect((await markedRead()).sort()).toEqual([...ids].sort());
    const requests = (await on.sim.control.log()).filter((l) => l.endpoint === 'statuses');
    for (let i = 1; i < requests.length; i++) {
      expect(requests[i].receivedAt).toBeGreaterThanOrEqual(requests[i - 1].at);
    }
  });

  it('sends nothing more after a 429: the rest are left untried, in none of the lists', async () => {
    const ids = await humanSays(3);
    await on.sim.control.fault({
      endpoint: 'statuses',
      count: 1,
      fault: { kind: 'rate_limit', retryAfter: 2 },
    });
    const report = await markReads(ids, (m, s) => on.client.markRead(m, { signal: s }), none);
    expect(report).toMatchObject({
      done: [],
      refused: [],
      failed: [ids[0]],
      retryAfterMs: 2000,
      rejected: { '429': 1 },
    });
    expect(report.unknown).toBeUndefined();
    expect(report.times).toHaveLength(1);
    expect((await on.sim.control.log()).filter((l) => l.endpoint === 'statuses')).toHaveLength(1);
    expect(await markedRead()).toEqual([]);
  });

  it('stops at an unknown outcome too, and goes past a refusal for good', async () => {
    const ids = await humanSays(2);
    const report = await markReads(
      ['wamid.never-issued', ids[0], ids[1]],
      (m, s) => on.client.markRead(m, { signal: s }),
      none,
    );
    expect(report).toMatchObject({ done: ids, refused: ['wamid.never-issued'], failed: [] });
    const [next, after] = await humanSays(2);
    await on.sim.control.fault({ endpoint: 'statuses', count: 1, fault: { kind: 'drop_before' } });
    const dropped = await markReads([next, after], (m, s) => on.client.markRead(m, { signal: s }), none);
    expect(dropped).toMatchObject({ done: [], refused: [], failed: [], unknown: [next] });
    expect(dropped.times).toHaveLength(1);
  });

  it('reports a refusal for good apart, and a 429 as failed with its Retry-After, never throwing', async () => {
    const [id] = await humanSays(1);
    const refused = await markReads(
      ['wamid.never-issued'],
      (m, s) => on.client.markRead(m, { signal: s }),
      none,
    );
    expect(refused).toMatchObject({ done: [], refused: ['wamid.never-issued'], failed: [] });
    await on.sim.control.fault({
      endpoint: 'statuses',
      count: 1,
      fault: { kind: 'rate_limit', retryAfter: 3 },
    });
    const limited = await markReads([id], (m, s) => on.client.markRead(m, { signal: s }), none);
    expect(limited).toMatchObject({
      done: [],
      refused: [],
      failed: [id],
      retryAfterMs: 3000,
      rejected: { '429': 1 },
    });
    expect(limited.failure).toMatch(/rate limit/i);
    expect(limited.times).toHaveLength(1);
    expect(await markedRead()).toEqual([]);
  });

  it('gives a request up as of unknown outcome when the bound passes (it may have been counted)', async () => {
    const [id] = await humanSays(1);
    await on.sim.control.fault({ endpoint: 'statuses', count: 1, fault: { kind: 'slow', delayMs: 400 } });
    const bound = new AbortController();
    setTimeout(() => bound.abort(new Error('bound passed')), 50);
    const report = await markReads([id], (m, s) => on.client.markRead(m, { signal: s }), bound.signal);
    expect(report).toMatchObject({ done: [], refused: [], failed: [], unknown: [id] });
    // The service still answers the slow request (to nobody) 400 ms in: let it end in this test, or
    // its entry lands in a later test's request log.
    await waitFor(
      'the slow request to end at the service',
      async () => (await on.sim.control.log()).some((l) => l.endpoint === 'statuses'),
      { timeoutMs: 5000, intervalMs: 20 },
    );
  });

  it.each([
    ['a connection dropped after the service acted', { kind: 'drop_after' as const }],
    ['a connection dropped before it', { kind: 'drop_before' as const }],
    ['a 500', { kind: 'server_error_after_accept' as const }],
    ['an answer that does not parse', { kind: 'malformed_json' as const }],
  ])('reports %s as of unknown outcome, not as a failure to wait for', async (_what, fault) => {
    const [id] = await humanSays(1);
    await on.sim.control.fault({ endpoint: 'statuses', count: 1, fault });
    const none = new AbortController().signal;
    const report = await markReads([id], (m, s) => on.client.markRead(m, { signal: s }), none);
    expect(report).toMatchObject({ done: [], refused: [], failed: [], unknown: [id] });
    expect(report.retryAfterMs).toBeUndefined();
    expect(report.failure).toMatch(/\S/);
  });

  it('counts a mark-read of unknown outcome as a failed request in the metrics', async () => {
    const [dropped, done] = await humanSays(2);
    await on.sim.control.fault({ endpoint: 'statuses', count: 1, fault: { kind: 'drop_after' } });
    const metrics = new AmsflowMetrics();
    const logger = new AmsflowLogger({
      format: 'json',
      level: 'error',
      bodies: false,
      stream: { write: () => true },
    });
    const env = new MockActivityEnvironment(
      { activityType: 'markRead' },
      { logger, interceptors: [activityMetricsInterceptor({ metrics, logger, logBodies: false })] },
    );
    // One at a time, so that the dropped request is the first message's.
    const first: MarkReadReport = await env.run(on.acts.markRead, { agentKey: AGENT, messageIds: [dropped] });
    expect(first.unknown).toEqual([dropped]);
    await env.run(on.acts.markRead, { agentKey: AGENT, messageIds: [done] });
    const agent = { agent: AGENT, kind: 'markRead' };
    expect(metrics.statusRequests.get({ ...agent, outcome: 'failed' })).toBe(1);
    expect(metrics.statusRequests.get({ ...agent, outcome: 'ok' })).toBe(1);
  });

  it('the mark-read activity reports the same for each message it was handed', async () => {
    const ids = await humanSays(2);
    const report = await on
      .env()
      .run<[MarkReadInput], MarkReadReport, typeof on.acts.markRead>(on.acts.markRead, {
        agentKey: AGENT,
        messageIds: [...ids, 'wamid.nope'],
      });
    expect([...report.done].sort()).toEqual([...ids].sort());
    expect(report.refused).toEqual(['wamid.nope']);
  });

  describe('riding with a send attempt', () => {
    const send = (markRead: string[]): Promise<SendOutput> =>
      on.env().run(on.acts.sendMessage, {
        agentKey: AGENT,
        to: CREATOR,
        message: { type: 'text', text: { body: 'the answer' } },
        attemptId: 'r#1',
        markRead,
      });

    it('marks the messages read first, then sends: the read tick comes before the answer', async () => {
      const ids = await humanSays(2);
      const out = await send(ids);
      expect([...out.markRead!.done].sort()).toEqual([...ids].sort());
      expect((await markedRead()).sort()).toEqual([...ids].sort());
      const log = await on.sim.control.log();
      const lastRead = Math.max(...log.filter((l) => l.endpoint === 'statuses').map((l) => l.at));
      const sent = log.find((l) => l.endpoint === 'messages')!;
      expect(sent.status).toBe(200);
      expect(sent.at).toBeGreaterThanOrEqual(lastRead);
    });

    it('sends all the same when a mark-read fails, and says so', async () => {
      const [id] = await humanSays(1);
      await on.sim.control.fault({ endpoint: 'statuses', count: 1, fault: { kind: 'not_accepted' } });
      const out = await send([id]);
      expect(out.messageId).toMatch(/\S/);
      expect(out.markRead).toMatchObject({ done: [], failed: [id] });
      expect((await on.sim.control.transcript()).sent).toHaveLength(1);
    });

    it('a failed send carries what became of the mark-reads that went before it', async () => {
      const [id] = await humanSays(1);
      await on.sim.control.fault({ endpoint: 'messages', count: 1, fault: { kind: 'not_accepted' } });
      const failed = await send([id]).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(ApplicationFailure);
      const details = (failed as ApplicationFailure).details?.[0] as SendFailureDetails;
      expect(details.status).toBe(503);
      expect(details.markRead).toMatchObject({ done: [id], failed: [] });
      expect(await markedRead()).toEqual([id]);
    });
  });
});
