/**
 * The poll lease (protocol/agent.ts) on the dev server, with toxiproxy between one worker and
 * the frontend: while the agent workflow runs on the other worker and the poll on this one, every
 * connection of this one to Temporal is reset (it still reaches the service). Its heartbeats fail
 * at once, which resets the SDK's local heartbeat timer, so nothing stops its quiet poll; Temporal
 * times the activity out and the workflow polls from the other worker. With the lease the cut-off
 * worker stops polling (no acknowledgement) and the service never has two polls of the agent open
 * at once (no 409 it did not inject); without it (verified, 3 of 3 runs) the service answered the
 * older of two polls 409, as in the cluster chaos run's 4 "concurrent polls".
 */
import { startToxiproxy, type RunningToxiproxy, type Toxic } from '../../chaos/cluster/toxiproxy';
import { findToxiproxy } from '../../scripts/cluster-tools';
import { devServerAddress, waitFor } from '../support/temporal';
import { engineSuite, type Engine } from './support';

jest.setTimeout(240_000);

/**
 * Every connection to the frontend reset as soon as it carries data: the worker's heartbeats fail
 * at once. (A blackhole would not show it: a heartbeat that hangs holds the SDK's local heartbeat
 * timer, which then cancels the activity; one that fails at once resets that timer.)
 */
const CUT: Toxic[] = [{ name: 'cut', type: 'reset_peer', stream: 'upstream', attributes: { timeout: 0 } }];

/** Requests to the updates endpoint since `since`, as the service logged them. */
async function pollsSince(engine: Engine, since: number) {
  const log = await engine.sim.control.log(engine.agentKey);
  return log.filter((l) => l.endpoint === 'updates' && l.at >= since);
}

describe('the poll lease', () => {
  const suite = engineSuite();
  let toxiproxy: RunningToxiproxy | undefined;
  afterEach(async () => {
    await toxiproxy?.stop();
    toxiproxy = undefined;
  });

  it('stops a worker cut off from Temporal from polling on: the other worker polls, never two at once', async () => {
    toxiproxy = await startToxiproxy(findToxiproxy());
    const proxy = await toxiproxy.createProxy('frontend', devServerAddress());
    const engine = await suite.start({ windowMs: 6000 });
    // The agent workflow stays cached on the worker that started it (its tasks sticky there)...
    await engine.startWorker();
    const said = ['before'];
    await engine.human('echo before');
    await waitFor('the first reply', async () => (await engine.sentTexts()).length === 1, {
      timeoutMs: 60_000,
    });
    // ...while its poll runs on the worker about to be cut off: each message ends a quiet poll,
    // and the next poll activity goes to whichever worker asks first.
    const cutOff = await engine.startWorker({ TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}` });
    const agent = engine.client.workflow.getHandle(engine.agentWorkflowId);
    const pollOnCutOff = async () => {
      const { raw } = await agent.describe();
      return (raw.pendingActivities ?? []).some(
        (a) =>
          a.activityType?.name === 'pollUpdates' &&
          (a.lastWorkerIdentity ?? '').startsWith(`${cutOff.child.pid}@`),
      );
    };
    for (let n = 1; n <= 20 && !(await pollOnCutOff()); n++) {
      said.push(`m${n}`);
      await engine.human(`echo m${n}`);
      await waitFor(`reply ${n}`, async () => (await engine.sentTexts()).length === said.length, {
        timeoutMs: 60_000,
      });
      await waitFor('the next poll activity', async () => {
        const { raw } = await agent.describe();
        return (raw.pendingActivities ?? []).some((a) => a.activityType?.name === 'pollUpdates');
      });
    }
    expect(await pollOnCutOff()).toBe(true);
    const cutAt = Date.now();
    for (const toxic of CUT) await toxiproxy.addToxic('frontend', toxic);
    // Polls go on while it stays cut off (a message would end its quiet poll): two dozen of 2 s
    // each, where it would have polled on beside the other worker.
    await waitFor(
      'two dozen polls since the cut',
      async () => (await pollsSince(engine, cutAt)).length >= 24,
      {
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    expect((await pollsSince(engine, 0)).filter((l) => l.status === 409 && !l.fault)).toEqual([]);
    await engine.human('echo during');
    said.push('during');
    await waitFor(
      'the reply through the other worker',
      async () => (await engine.sentTexts()).length === said.length,
      {
        timeoutMs: 60_000,
      },
    );
    for (const toxic of CUT) await toxiproxy.removeToxic('frontend', toxic.name);
    await engine.human('echo after');
    said.push('after');
    await waitFor('the reply after the cut', async () => (await engine.sentTexts()).length === said.length, {
      timeoutMs: 60_000,
    });
    expect(await engine.sentTexts()).toEqual(said);
    expect((await pollsSince(engine, 0)).filter((l) => l.status === 409 && !l.fault)).toEqual([]);
    expect((await engine.transcript()).counts.overlappingSends).toBe(0);
  });
});
