/**
 * Poll tickets: after a poll activity timed out, the next one waits the poll lease's whole wait
 * unless the lost attempt's ticket file shows its process ended (or was this one). The verdict
 * pure; the files and the processes real (child processes, killed or alive); and the activity
 * itself against the simulator over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { certainlyEnded, ownMark, startOf, type ProcessMark } from '../../activities/process-mark';
import { PollTickets, lostPollVerdict, waitAfterLost, type AttemptRef } from '../../activities/poll-tickets';
import type { MessagingClient } from '../../messaging';
import { EndedPolls } from '../../worker/ended-polls';
import { engineClient } from '../support/engine-client';
import { flattenPage } from '../../messaging/page';
import { startSimulator, type RunningSimulator } from '../../simulator';

const me: ProcessMark = { boot: 'b1', pidNs: 'pid:[1]', pid: 100, start: '5000' };
const other = { ...me, pid: 200, start: '6000' };

describe('the verdict on a lost poll attempt (pure)', () => {
  const ended = () => true;
  const alive = () => false;

  it("is unknown without an entry, or with another attempt's ticket", () => {
    expect(lostPollVerdict(undefined, 't1', me, ended)).toBe('unknown');
    expect(lostPollVerdict({ ticket: 't2', owner: other }, 't1', me, ended)).toBe('unknown');
  });

  it('is self for an attempt of this process, ended or unknown for another by its process', () => {
    expect(lostPollVerdict({ ticket: 't1', owner: me }, 't1', me, ended)).toBe('self');
    expect(lostPollVerdict({ ticket: 't1', owner: other }, 't1', me, ended)).toBe('ended');
    expect(lostPollVerdict({ ticket: 't1', owner: other }, 't1', me, alive)).toBe('unknown');
    // The same PID started at another time is another process.
    expect(lostPollVerdict({ ticket: 't1', owner: { ...me, start: '1' } }, 't1', me, alive)).toBe('unknown');
  });

  it('waits nothing after self, the close grace after an ended process, the whole wait otherwise', () => {
    expect(waitAfterLost('self', 22_000, 1000)).toBe(0);
    expect(waitAfterLost('ended', 22_000, 1000)).toBe(1000);
    expect(waitAfterLost('ended', 500, 1000)).toBe(500);
    expect(waitAfterLost('unknown', 22_000, 1000)).toBe(22_000);
    // The grace counts from when the process was first seen ended: partly or wholly past.
    expect(waitAfterLost('ended', 22_000, 1000, 400)).toBe(600);
    expect(waitAfterLost('ended', 22_000, 1000, 5000)).toBe(0);
    expect(waitAfterLost('unknown', 22_000, 1000, 5000)).toBe(22_000);
  });

  it('knows a process ended only within its own boot and PID namespace', () => {
    const gone = () => undefined;
    expect(certainlyEnded(other, me, gone)).toBe(true);
    expect(certainlyEnded(other, me, () => other.start)).toBe(false);
    expect(certainlyEnded(other, me, () => '1')).toBe(true); // the PID is another process's now
    expect(certainlyEnded({ ...other, boot: 'b2' }, me, gone)).toBe(false);
    expect(certainlyEnded({ ...other, pidNs: 'pid:[2]' }, me, gone)).toBe(false);
  });
});

/** A child process that idles until killed, and its mark. */
async function childProcess(): Promise<{ child: ChildProcess; mark: ProcessMark; kill(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((done) => child.once('exit', done));
  const own = ownMark()!;
  let start: string | undefined;
  const deadline = Date.now() + 10_000;
  while ((start = startOf(child.pid!)) === undefined) {
    if (Date.now() > deadline) throw new Error('the child process never showed in /proc');
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    child,
    mark: { ...own, pid: child.pid!, start },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Writes the ticket file `tickets` keeps for `agentKey` as the process of `owner` would have. */
async function recordAs(
  dir: string,
  agentKey: string,
  ticket: string,
  owner: ProcessMark,
  attempt?: AttemptRef,
): Promise<void> {
  await new PollTickets(dir, owner).record(agentKey, ticket, attempt);
}

describe('ticket files, with real processes', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'amsflow-tickets-'));

  it('this process has a mark that /proc confirms', () => {
    const mark = ownMark();
    expect(mark?.pid).toBe(process.pid);
    expect(startOf(process.pid)).toBe(mark?.start);
    expect(startOf(2 ** 22 + 1)).toBeUndefined(); // above the kernel's PID limit: no such process
  });

  it('tells an attempt of a killed process (ended) from one of a live process (unknown)', async () => {
    const d = dir();
    const tickets = new PollTickets(d);
    const child = await childProcess();
    try {
      await recordAs(d, 'agent', 'wf/run/7', child.mark);
      expect(tickets.lostPoll('agent', 'wf/run/7').verdict).toBe('unknown'); // alive: may still poll
    } finally {
      await child.kill();
    }
    expect(tickets.lostPoll('agent', 'wf/run/7').verdict).toBe('ended');
    expect(tickets.lostPoll('agent', 'wf/run/8').verdict).toBe('unknown');
    expect(tickets.lostPoll('other agent', 'wf/run/7').verdict).toBe('unknown');
  });

  it("knows its own attempts, and a later attempt's ticket replaces the earlier one", async () => {
    const d = dir();
    const tickets = new PollTickets(d);
    await tickets.record('agent', 'wf/run/1');
    expect(tickets.lostPoll('agent', 'wf/run/1').verdict).toBe('self');
    // It holds a task token: readable by this user only.
    expect(statSync(join(d, readdirSync(d)[0])).mode & 0o077).toBe(0);
    await tickets.record('agent', 'wf/run/2');
    expect(tickets.lostPoll('agent', 'wf/run/1').verdict).toBe('unknown');
  });

  it('writes off the event loop; overlapping writes of one agent leave one whole ticket and no part file', async () => {
    const d = dir();
    const tickets = new PollTickets(d);
    await Promise.all([tickets.record('agent', 'wf/run/1'), tickets.record('agent', 'wf/run/2')]);
    expect(readdirSync(d)).toHaveLength(1);
    const verdicts = ['wf/run/1', 'wf/run/2'].map((t) => tickets.lostPoll('agent', t).verdict);
    expect(verdicts.sort()).toEqual(['self', 'unknown']);
  });

  it('lists the recent attempts of ended processes that Temporal may be told of, and no others; removes the old ones', async () => {
    const d = dir();
    const tickets = new PollTickets(d);
    const attempt = { namespace: 'default', taskToken: Buffer.from('token').toString('base64') };
    const dead = await childProcess();
    const live = await childProcess();
    try {
      await recordAs(d, 'dead', 'wf/run/1', dead.mark, attempt);
      await recordAs(d, 'dead, no attempt', 'wf/run/2', dead.mark);
      await recordAs(d, 'live', 'wf/run/3', live.mark, attempt);
      await tickets.record('mine', 'wf/run/4', attempt);
      await dead.kill();
      const ended = tickets.endedAttempts(60_000);
      expect(ended.map((e) => [e.ticket, e.namespace, e.taskToken])).toEqual([
        ['wf/run/1', 'default', attempt.taskToken],
      ]);
      expect(ended[0].ageMs).toBeGreaterThanOrEqual(0);
      // Recorded longer ago than asked: over at Temporal, and their files removed (the ended
      // process's only: the live one's and this process's stay).
      expect(readdirSync(d)).toHaveLength(4);
      expect(tickets.endedAttempts(60_000, Date.now() + 120_000)).toEqual([]);
      expect(readdirSync(d)).toHaveLength(2);
      expect(tickets.lostPoll('live', 'wf/run/3').verdict).toBe('unknown');
      expect(tickets.lostPoll('mine', 'wf/run/4').verdict).toBe('self');
    } finally {
      await live.kill();
    }
    expect(new PollTickets(false).endedAttempts(60_000)).toEqual([]);
  });

  it("leaves a starting worker only its own cluster's namespace's attempts to give up", async () => {
    const d = dir();
    const dead = await childProcess();
    const token = Buffer.from('token').toString('base64');
    await recordAs(d, 'a', 'wf/run/1', dead.mark, {
      namespace: 'default',
      namespaceId: 'id-A',
      taskToken: token,
    });
    await recordAs(d, 'b', 'wf/run/2', dead.mark, {
      namespace: 'default',
      namespaceId: 'id-B',
      taskToken: token,
    });
    await recordAs(d, 'old', 'wf/run/3', dead.mark, { namespace: 'default', taskToken: token });
    await dead.kill();
    const ended = new EndedPolls(new PollTickets(d));
    expect(ended.size).toBe(3);
    ended.keepNamespace('id-A');
    expect(ended.size).toBe(1);
    // A worker that does not know its namespace's id gives up none.
    const unknown = new EndedPolls(new PollTickets(d));
    unknown.keepNamespace(undefined);
    expect(unknown.size).toBe(0);
  });

  it('notes when an ended process was first seen ended, and counts the close grace from then', async () => {
    const d = dir();
    const attempt = { namespace: 'default', taskToken: 'dG9rZW4=', workflowId: 'wf', runId: 'run' };
    const dead = await childProcess();
    await recordAs(d, 'agent', 'wf/run/1', dead.mark, attempt);
    const [file] = readdirSync(d);
    const recordedAt = statSync(join(d, file)).mtimeMs;
    await dead.kill();
    // A worker starting sees it ended at t0, and notes it; the file still dates the attempt.
    const t0 = Date.now();
    const [seen] = new PollTickets(d).endedAttempts(60_000, t0);
    expect(seen).toMatchObject({ ticket: 'wf/run/1', workflowId: 'wf', runId: 'run', endedSeenAt: t0 });
    expect(Math.abs(statSync(join(d, file)).mtimeMs - recordedAt)).toBeLessThan(1);
    // Another look later (another process too) keeps the first sighting.
    expect(new PollTickets(d).endedAttempts(60_000, t0 + 700)[0].endedSeenAt).toBe(t0);
    // The agent's next poll, 700 ms on, has 300 ms of the grace left.
    const next = new PollTickets(d).lostPoll('agent', 'wf/run/1', t0 + 700);
    expect(next).toEqual({ verdict: 'ended', sinceEndedMs: 700 });
    expect(waitAfterLost(next.verdict, 22_000, 1000, next.sinceEndedMs)).toBe(300);
    // Seen first by the poll itself: the whole grace, and noted.
    const d2 = dir();
    const dead2 = await childProcess();
    await recordAs(d2, 'agent', 'wf/run/2', dead2.mark);
    await dead2.kill();
    expect(new PollTickets(d2).lostPoll('agent', 'wf/run/2', t0)).toEqual({
      verdict: 'ended',
      sinceEndedMs: 0,
    });
    expect(new PollTickets(d2).lostPoll('agent', 'wf/run/2', t0 + 250).sinceEndedMs).toBe(250);
    expect(new PollTickets(d2).lostPoll('agent', 'wf/run/9', t0)).toEqual({
      verdict: 'unknown',
      sinceEndedMs: 0,
    });
  });

  it('reads a damaged file, or none, as unknown, and can be switched off', async () => {
    const d = dir();
    const tickets = new PollTickets(d);
    await tickets.record('agent', 'wf/run/1');
    const [file] = readdirSync(d);
    writeFileSync(join(d, file), '{"ticket":"wf/run/1","owner":{"pid":"x"}}');
    expect(tickets.lostPoll('agent', 'wf/run/1').verdict).toBe('unknown');
    writeFileSync(join(d, file), 'not json');
    expect(tickets.lostPoll('agent', 'wf/run/1').verdict).toBe('unknown');
    // A directory others may write to (planted under the shared temporary directory): not used.
    const open = dir();
    chmodSync(open, 0o777);
    const planted = new PollTickets(open);
    await planted.record('agent', 'wf/run/5');
    expect(readdirSync(open)).toEqual([]);
    expect(planted.lostPoll('agent', 'wf/run/5').verdict).toBe('unknown');
    const off = new PollTickets(false);
    await off.record('agent', 'wf/run/3');
    expect(off.lostPoll('agent', 'wf/run/3').verdict).toBe('unknown');
  });
});

describe('the poll after a lost one, against the simulator', () => {
  let sim: RunningSimulator;
  let client: MessagingClient;
  let offset = 0;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    client = engineClient(sim, { timeoutMs: 30_000, recipient: 'user:1001' });
    const read = await client.getUpdates({ offset: 0, limit: 100, timeout: 0 });
    offset = read ? flattenPage(read).nextOffset : 0;
  });
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  /** Runs a poll handed the lost attempt `ticket` with a lease wait of `waitMs`; resolves when it reached the service. */
  async function pollAfterLost(
    dir: string,
    ticket: string,
    waitMs: number,
    namespaceId?: string,
  ): Promise<number> {
    const acts = createActivities(new Map([['demo', client]]), {
      pollTicketsDir: dir,
      pollCloseGraceMs: 300,
      namespaceId,
    });
    const env = new MockActivityEnvironment(
      { activityId: '9', workflowExecution: { workflowId: 'wf', runId: 'run' } },
      { logger: new DefaultLogger('ERROR') },
    );
    const startedAt = Date.now();
    const poll = env
      .run(acts.pollUpdates, {
        agentKey: 'demo',
        offset,
        limit: 10,
        timeoutSeconds: 20,
        lostPoll: { ticket, waitMs },
      })
      .catch(() => undefined);
    const deadline = Date.now() + waitMs + 10_000;
    while (!(await sim.control.transcript()).polling) {
      if (Date.now() > deadline) throw new Error('the poll never reached the service');
      await new Promise((r) => setTimeout(r, 10));
    }
    const reachedAfterMs = Date.now() - startedAt;
    env.cancel();
    await poll;
    while ((await sim.control.transcript()).polling) await new Promise((r) => setTimeout(r, 10));
    return reachedAfterMs;
  }

  it("polls after the close grace, not the lease's wait, when the lost attempt's process has ended", async () => {
    const d = mkdtempSync(join(tmpdir(), 'amsflow-tickets-'));
    const child = await childProcess();
    await recordAs(d, 'demo', 'wf/run/8', child.mark);
    await child.kill();
    const reachedAfterMs = await pollAfterLost(d, 'wf/run/8', 8000);
    expect(reachedAfterMs).toBeGreaterThanOrEqual(300);
    expect(reachedAfterMs).toBeLessThan(8000);
  });

  it("waits the lease's whole wait when the lost attempt's process lives (cut off, not dead)", async () => {
    const d = mkdtempSync(join(tmpdir(), 'amsflow-tickets-'));
    const child = await childProcess();
    try {
      await recordAs(d, 'demo', 'wf/run/8', child.mark);
      expect(await pollAfterLost(d, 'wf/run/8', 1500)).toBeGreaterThanOrEqual(1500);
    } finally {
      await child.kill();
    }
  });

  it("records its attempt, with the namespace's id when the worker knows it", async () => {
    const d = mkdtempSync(join(tmpdir(), 'amsflow-tickets-'));
    await pollAfterLost(d, 'none', 0, 'ns-id-1');
    const [file] = readdirSync(d);
    expect(JSON.parse(readFileSync(join(d, file), 'utf8'))).toMatchObject({
      ticket: 'wf/run/9',
      attempt: { namespace: 'default', namespaceId: 'ns-id-1', workflowId: 'wf', runId: 'run' },
    });
  });
});
