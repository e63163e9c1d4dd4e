/**
 * The chaos run's verdict, pure: from what each scripted session expected and what the service
 * recorded (the bot's accepted messages, the request log, what was marked read), the lines the
 * run prints and must keep at zero — lost, duplicated, stuck, reminders fired 0 or 2 times,
 * approvals resolved twice or never, messages never marked read, protocol violations — and the
 * figures beside them.
 */

/** One bot message a session waited for, and what became of it. */
export interface Expectation {
  agent: string;
  /** The text expected (unique in the run: it carries the session's tag), matched as `match` says. */
  text: string;
  match: 'exact' | 'prefix' | 'suffix';
  kind:
    | 'echo'
    | 'signup'
    | 'reminder-confirmation'
    | 'reminder'
    | 'approval-question'
    | 'approval-confirmation'
    /** A photo from the human: `text` is its message id; seen once its handler ran and it was marked read. */
    | 'media';
  /**
   * `surfaced`: the reply could not be sent and that was reported, not lost: the handler failed
   * with it (a question), or the agent kept it in its state's `failedSends` (a plain reply).
   */
  outcome: 'seen' | 'surfaced' | 'stuck';
  /** With `surfaced`: the failure reported. */
  surfacedAs?: SurfacedAs;
  /** With `stuck`: what became of the handler (its status and failure), for the post-mortem. */
  detail?: string;
}

/** How a reply that could not be sent is reported. */
export type SurfacedAs = 'AmbiguousSend' | 'SendRejected';

export interface LogLine {
  agent: string;
  at: number;
  endpoint: string | null;
  status: number;
}

export interface ChaosFacts {
  expectations: Expectation[];
  /** Every text the bot had accepted, per agent, in order. */
  botTexts: Record<string, string[]>;
  /** Questions a session saw more than once (a conversation step asked twice). */
  repeatedQuestions: number;
  /** Decisions read from the approval workflows: how many results each id gave. */
  approvalsResolved: Record<string, number>;
  log: LogLine[];
  overlappingSends: number;
  /** 429s the service answered, and how many of them were injected. */
  status429: number;
  injected429: number;
  /** 409s on polls, and injected poll_replaced faults. */
  replacedPolls: number;
  injectedReplaced: number;
  /** Faults injected that make a send's outcome unknown (500 after accept, drops, bad JSON). */
  ambiguousInjected: number;
  /** Human messages the agent had not marked read at the end of the run. */
  unread: number;
}

export interface ChaosVerdict {
  lost: number;
  duplicated: number;
  stuck: number;
  remindersNotFired: number;
  remindersFiredTwice: number;
  approvalsResolvedTwice: number;
  approvalsUnresolved: number;
  ambiguousSurfaced: number;
  /** Replies given up after the spec's retries of 429/503, the handler told (SendRejected). */
  rejectedSurfaced: number;
  ambiguousInjected: number;
  /** Human messages never marked read. */
  unread: number;
  violations: {
    overlappingSends: number;
    concurrentPolls: number;
    served429: number;
    retriesTooSoon: number;
  };
}

/** The smallest wait after a 429 the engine may keep (the scaled ladder's first rung). */
export const MIN_WAIT_AFTER_429_MS = 400;

/** Whether a bot text is the one an expectation waits for. */
export function matches(e: Pick<Expectation, 'text' | 'match'>, text: string): boolean {
  return e.match === 'exact'
    ? text === e.text
    : e.match === 'prefix'
      ? text.startsWith(e.text)
      : text.endsWith(e.text);
}

export function tally(facts: ChaosFacts): ChaosVerdict {
  const count = (e: Expectation) => (facts.botTexts[e.agent] ?? []).filter((t) => matches(e, t)).length;
  const reminders = facts.expectations.filter((e) => e.kind === 'reminder');
  // (A photo gets no answer: it is checked in the chat itself, so only `stuck` can count it.)
  const once = facts.expectations.filter((e) => e.kind !== 'reminder' && e.kind !== 'media');
  const approvals = Object.values(facts.approvalsResolved);
  const surfacedAs = (type: SurfacedAs) =>
    facts.expectations.filter((e) => e.outcome === 'surfaced' && e.surfacedAs === type).length;
  return {
    // Expected, not surfaced as unsendable, and never accepted by the service.
    lost: once.filter((e) => e.outcome !== 'surfaced' && count(e) === 0).length,
    duplicated: once.concat(reminders).filter((e) => count(e) > 1).length + facts.repeatedQuestions,
    stuck: facts.expectations.filter((e) => e.outcome === 'stuck').length,
    remindersNotFired: reminders.filter((e) => count(e) === 0).length,
    remindersFiredTwice: reminders.filter((e) => count(e) > 1).length,
    approvalsResolvedTwice: approvals.filter((n) => n > 1).length,
    approvalsUnresolved: approvals.filter((n) => n === 0).length,
    ambiguousSurfaced: surfacedAs('AmbiguousSend'),
    rejectedSurfaced: surfacedAs('SendRejected'),
    ambiguousInjected: facts.ambiguousInjected,
    unread: facts.unread,
    violations: {
      overlappingSends: facts.overlappingSends,
      concurrentPolls: Math.max(0, facts.replacedPolls - facts.injectedReplaced),
      served429: Math.max(0, facts.status429 - facts.injected429),
      retriesTooSoon: retriesTooSoon(facts.log),
    },
  };
}

/** A request that followed a 429 on the same agent and endpoint sooner than the engine may. */
export interface EarlyRetry {
  agent: string;
  endpoint: string | null;
  /** When it came, and how long after the 429. */
  at: number;
  afterMs: number;
}

/** The requests that followed a 429 on the same agent and endpoint sooner than the engine may. */
export function earlyRetries(log: LogLine[]): EarlyRetry[] {
  const last429 = new Map<string, number>();
  const early: EarlyRetry[] = [];
  for (const line of [...log].sort((a, b) => a.at - b.at)) {
    const key = `${line.agent} ${line.endpoint}`;
    const after = last429.get(key);
    if (after !== undefined) {
      if (line.at - after < MIN_WAIT_AFTER_429_MS)
        early.push({ agent: line.agent, endpoint: line.endpoint, at: line.at, afterMs: line.at - after });
      last429.delete(key);
    }
    if (line.status === 429) last429.set(key, line.at);
  }
  return early;
}

/**
 * Per endpoint, how many more 429s the service answered than were injected there: the limiter's
 * own refusals (`served429` in the verdict, by endpoint). Endpoints with none are left out.
 */
export function served429ByEndpoint(
  log: LogLine[],
  injected: Record<string, number>,
): Record<string, number> {
  const answered: Record<string, number> = {};
  for (const line of log)
    if (line.status === 429 && line.endpoint) answered[line.endpoint] = (answered[line.endpoint] ?? 0) + 1;
  const served: Record<string, number> = {};
  for (const [endpoint, n] of Object.entries(answered))
    if (n > (injected[endpoint] ?? 0)) served[endpoint] = n - (injected[endpoint] ?? 0);
  return served;
}

/** How many requests came sooner than allowed after a 429 ({@link earlyRetries}). */
export function retriesTooSoon(log: LogLine[]): number {
  return earlyRetries(log).length;
}

/** True when every loss, duplicate, stuck and violation line is zero. */
export function clean(v: ChaosVerdict): boolean {
  return (
    v.lost === 0 &&
    v.duplicated === 0 &&
    v.stuck === 0 &&
    v.remindersNotFired === 0 &&
    v.remindersFiredTwice === 0 &&
    v.approvalsResolvedTwice === 0 &&
    v.approvalsUnresolved === 0 &&
    v.unread === 0 &&
    Object.values(v.violations).every((n) => n === 0)
  );
}
