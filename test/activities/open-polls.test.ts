/**
 * One open poll per agent and worker: a poll that outlived its activity (timed out while the
 * Temporal server was down, cancelled but not told yet) is ended before the next poll of the
 * same agent goes out, so the service never sees two polls at once. Against the simulator.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities, type PollOutput } from '../../activities';
import { OpenPolls, StalePollError } from '../../activities/open-polls';
import { failureInfo } from '../../workflows/engine/request-policy';
import type { MessagingClient } from '../../messaging';
import { engineClient } from '../support/engine-client';
import { flattenPage } from '../../messaging/page';
import { startSimulator, type RunningSimulator } from '../../simulator';

const env = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

describe('open polls', () => {
  it('ends the older poll of an agent, and waits until it has closed', async () => {
    const polls = new OpenPolls();
    const first = await polls.begin('a');
    const other = await polls.begin('b');
    let secondBegun = false;
    const second = polls.begin('a').then((p) => {
      secondBegun = true;
      return p;
    });
    await new Promise((r) => setImmediate(r));
    expect(first.stale.aborted).toBe(true);
    expect(first.stale.reason).toBeInstanceOf(StalePollError);
    expect(other.stale.aborted).toBe(false);
    expect(secondBegun).toBe(false); // not before the first has closed
    first.end();
    const next = await second;
    expect(next.stale.aborted).toBe(false);
    // A late end of the first does not unregister the second.
    first.end();
    expect(polls.size).toBe(2);
    next.end();
    other.end();
    expect(polls.size).toBe(0);
  });

  describe('the grace after an aborted poll', () => {
    // A scripted clock: sleeps advance it, and are recorded.
    const scripted = () => {
      let now = 1_000;
      const slept: number[] = [];
      const polls = new OpenPolls({
        closeGraceMs: 700,
        now: () => now,
        sleep: async (ms) => {
          slept.push(ms);
          now += ms;
        },
      });
      return { polls, slept, advance: (ms: number) => (now += ms) };
    };

    it('holds the next poll of the agent until the grace after the abort has passed', async () => {
      const { polls, slept, advance } = scripted();
      (await polls.begin('a')).end({ aborted: true });
      advance(200);
      (await polls.begin('a')).end();
      expect(slept).toEqual([500]);
    });

    it('leaves none after a poll that was answered, after the grace, or for another agent', async () => {
      const { polls, slept, advance } = scripted();
      (await polls.begin('a')).end();
      (await polls.begin('a')).end({ aborted: true });
      (await polls.begin('b')).end();
      advance(700);
      (await polls.begin('a')).end();
      expect(slept).toEqual([]);
    });

    it('a poll ended by a newer one: the newer waits for its close, then the grace', async () => {
      const { polls, slept } = scripted();
      const older = await polls.begin('a');
      const newer = polls.begin('a');
      await new Promise((r) => setImmediate(r));
      expect(older.stale.aborted).toBe(true);
      older.end({ aborted: true });
      (await newer).end();
      expect(slept).toEqual([700]);
    });

    it('a cancelled new poll stops waiting', async () => {
      const polls = new OpenPolls({ closeGraceMs: 60_000 });
      (await polls.begin('a')).end({ aborted: true });
      const cancel = new AbortController();
      const waiting = polls.begin('a', cancel.signal);
      cancel.abort(new Error('cancelled'));
      await expect(waiting).rejects.toThrow('cancelled');
      expect(polls.size).toBe(0);
    });
  });

  describe('in the poll activity', () => {
    let sim: RunningSimulator;
    let client: MessagingClient;
    beforeAll(async () => {
      sim = await startSimulator({ port: 0 });
      client = engineClient(sim, { timeoutMs: 30_000, recipient: 'user:1001' });
    });
    afterAll(async () => {
      await client?.close();
      await sim?.close();
    });

    /** Waits until the service has (or has no) poll open. */
    async function waitUntilPolling(open: boolean): Promise<void> {
      const deadline = Date.now() + 10_000;
      while ((await sim.control.transcript()).polling !== open) {
        if (Date.now() > deadline)
          throw new Error(`the service's poll never became ${open ? 'open' : 'closed'}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }

    it('a newer poll of the agent ends the open one: no 409, the newer one gets the page', async () => {
      const acts = createActivities(new Map([['demo', client]]));
      const poll = { agentKey: 'demo', offset: 0, limit: 10, timeoutSeconds: 20 };
      const stale = env().run(acts.pollUpdates, poll);
      const staleOutcome = stale.then(
        () => undefined,
        (err: unknown) => err,
      );
      // The first long poll is open at the service.
      const deadline = Date.now() + 10_000;
      while (!(await sim.control.transcript()).polling) {
        if (Date.now() > deadline) throw new Error('the first poll never reached the service');
        await new Promise((r) => setTimeout(r, 20));
      }
      const fresh = env().run(acts.pollUpdates, poll);
      await sim.control.humanText('after the newer poll');
      const page = (await fresh) as PollOutput;
      expect(page.status === 'page' && page.messages.map((m) => m.text?.body)).toEqual([
        'after the newer poll',
      ]);
      expect(failureInfo(await staleOutcome).type).toBe('StalePoll');
      const statuses = (await sim.control.log()).filter((e) => e.endpoint === 'updates').map((e) => e.status);
      expect(statuses).not.toContain(409);
    });

    it('after a cancelled poll, the next one reaches the service only once the grace has passed', async () => {
      const acts = createActivities(new Map([['demo', client]]), { pollCloseGraceMs: 400 });
      // After what is there already, so that the polls stay open.
      const read = await client.getUpdates({ offset: 0, limit: 100, timeout: 0 });
      const offset = read ? flattenPage(read).nextOffset : 0;
      const poll = { agentKey: 'demo', offset, limit: 10, timeoutSeconds: 20 };
      await waitUntilPolling(false);
      const first = env();
      const cancelled = first.run(acts.pollUpdates, poll).then(
        () => undefined,
        (err: unknown) => err,
      );
      await waitUntilPolling(true);
      first.cancel();
      expect(await cancelled).toBeDefined();
      const endedAt = Date.now();
      const next = env();
      const outcome = next.run(acts.pollUpdates, poll).catch(() => undefined);
      await waitUntilPolling(false); // the aborted poll's close has reached the service
      await waitUntilPolling(true); // the next poll has
      expect(Date.now() - endedAt).toBeGreaterThanOrEqual(350);
      next.cancel();
      await outcome;
    });
  });
});
