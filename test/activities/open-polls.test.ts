/**
 * One open poll per agent and worker: a poll that outlived its activity (timed out while the
 * Temporal server was down, cancelled but not told yet) is ended before the next poll of the
 * same agent goes out, so the service never sees two polls at once. Against the simulator.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities, type PollOutput } from '../../activities';
import { OpenPolls, StalePollError } from '../../activities/open-polls';
import { failureInfo } from '../../workflows/engine/failure';
import { MessagingClient } from '../../messaging';
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

  describe('in the poll activity', () => {
    let sim: RunningSimulator;
    let client: MessagingClient;
    beforeAll(async () => {
      sim = await startSimulator({ port: 0 });
      client = new MessagingClient({
        token: sim.token,
        baseUrl: sim.url,
        rateLimit: false,
        maxRetries: 0,
        autoDiscover: false,
        timeoutMs: 30_000,
        recipient: 'user:1001',
      });
    });
    afterAll(async () => {
      await client?.close();
      await sim?.close();
    });

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
  });
});
