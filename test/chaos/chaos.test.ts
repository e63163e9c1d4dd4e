/**
 * The reduced chaos run (the full one is `npm run chaos`): 2 worker processes for 3 agents,
 * about 150 human messages (echo, signups, reminders, approvals, photos), 5 worker SIGKILLs, one
 * restart of the Temporal server on the same data, about 5 % of requests faulted. Every loss,
 * duplicate, stuck, unread and protocol-violation line is zero (a message left unread past the
 * simulator's grace is a violation), and the read ticks come before their replies (p95 within the
 * run's limit).
 */
import { runChaos } from '../../chaos/chaos';
import { chaosLines } from '../../chaos/report';

jest.setTimeout(600_000);

it('keeps every promise through kills, a server restart and injected faults', async () => {
  const result = await runChaos({
    messages: 150,
    kills: 5,
    restarts: 1,
    seed: 7,
    log: (l) => console.log(l),
  });
  console.log(
    chaosLines(result)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );
  // The run did what it says.
  expect(result.messagesWritten).toBeGreaterThanOrEqual(150);
  expect(result.kills).toBe(5);
  expect(result.restarts).toBe(1);
  expect(Object.values(result.sessions).every((n) => n > 0)).toBe(true);
  expect(Object.values(result.faultsInjected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  // Nothing stuck (a failure prints what became of each stuck session's handler)...
  expect(result.stuckDetails).toEqual([]);
  // ... and nothing was lost, doubled or against the protocol.
  expect(result.verdict).toMatchObject({
    lost: 0,
    duplicated: 0,
    stuck: 0,
    remindersNotFired: 0,
    remindersFiredTwice: 0,
    approvalsResolvedTwice: 0,
    approvalsUnresolved: 0,
    unread: 0,
    violations: {
      overlappingSends: 0,
      concurrentPolls: 0,
      served429: 0,
      retriesTooSoon: 0,
      unreadPastGrace: 0,
    },
  });
  // Marked read before the replies that quote them, at p95 within the run's limit.
  expect(result.verdict.readTicksLate.p95Ms).toBeLessThanOrEqual(result.verdict.readTicksLate.limitMs);
  expect(result.verdict.ambiguousSurfaced).toBeLessThanOrEqual(result.verdict.ambiguousInjected);
});
