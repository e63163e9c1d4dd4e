/**
 * The live chat's poll scheduling problem (bench/live-chat-optimum.ts): the bench's traffic at the
 * spec's limits, simulated for a client that groups its sends after a poll and for one whose
 * poller and outbox work apart.
 */
import { BENCH_LIVE_CHAT, simulateLiveChat } from '../../bench/live-chat-optimum';

describe('the bench live chat at the spec’s limits (24 messages every 6 s, two replies each)', () => {
  it('a client that sends 3 replies at a time right after a poll picks every message up at once', () => {
    const out = simulateLiveChat(BENCH_LIVE_CHAT, { kind: 'grouped', groupSize: 3 });
    expect(out.pickup.n).toBe(24);
    expect(out.pickup.maxMs).toBe(0);
    expect(out.sends).toHaveLength(48);
    expect(out.mostPollsInWindow).toBeLessThanOrEqual(15);
    expect(out.mostSendsInWindow).toBeLessThanOrEqual(12);
  });

  it('the same with sends that take 100 ms each', () => {
    const out = simulateLiveChat({ ...BENCH_LIVE_CHAT, sendMs: 100 }, { kind: 'grouped', groupSize: 3 });
    expect(out.pickup.p95Ms).toBe(0);
    expect(out.sends).toHaveLength(48);
  });

  it('groups of 2 need 16 polls a minute: some messages wait for the budget', () => {
    const out = simulateLiveChat(BENCH_LIVE_CHAT, { kind: 'grouped', groupSize: 2 });
    expect(out.pickup.p95Ms).toBeGreaterThan(0);
    expect(out.mostPollsInWindow).toBeLessThanOrEqual(15);
  });

  it('a poller that polls again at once beside an outbox that sends apart runs out of polls', () => {
    const out = simulateLiveChat(BENCH_LIVE_CHAT, { kind: 'independent' });
    // Each send's receipts wake the open poll: far more than 15 polls a minute are wanted.
    expect(out.pickup.p95Ms).toBeGreaterThan(2000);
    expect(out.polls.length).toBeGreaterThan(out.sends.length);
    expect(out.mostPollsInWindow).toBe(15);
    expect(out.mostSendsInWindow).toBe(12);
  });

  it('without replies nothing competes with the human: every message is read as it comes', () => {
    const out = simulateLiveChat({ ...BENCH_LIVE_CHAT, repliesPerMessage: 0 }, { kind: 'independent' });
    expect(out.pickup.maxMs).toBe(0);
    expect(out.sends).toEqual([]);
  });
});
