/**
 * The chaos run's verdict, pure: from what each scripted session expected and what the service
 * recorded (the bot's accepted messages, the request log, what was marked read and when), the
 * lines the run prints and must keep at zero — lost, duplicated, stuck, reminders fired 0 or 2
 * times, approvals resolved twice or never, messages unread at the end, protocol violations
 * (messages left unread past the service's grace among them) — the read ticks later than their
 * reply, whose p95 must stay under a limit, and the figures beside them.
 *
 * The read checks do not count the time a fault stopped everything (a stall: PostgreSQL down, a
 * worker partitioned, the Temporal server restarting) nor the time the cluster did not serve an
 * agent's workflow (chaos/serving-monitor.ts; that agent's stall): no engine marks a message read
 * while its database is gone. A worker's kill is not a stall: recovering from it in time is the
 * engine's promise.
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
  /** When the service answered it. */
  at: number;
  /** When the request came in; default `at`. */
  receivedAt?: number;
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
  /** Human messages the agent had not marked read at the end of the run (counted at once, no wait). */
  unread: number;
  /** Every human message the service delivered: when, and when it was marked read (null: unread). */
  inbound: { agent: string; deliveredAt: number; readAt: number | null }[];
  /** The service's grace from a message's delivery to its mark-read, ms. */
  unreadGraceMs: number;
  /** When faults stopped everything (their time is not counted against the read checks). */
  stalls: Stall[];
  /**
   * When a fault slowed the links every agent's work crosses (latency, resets, bandwidth limits):
   * not counted against the grace, which is a bound on recovery with nothing in the way (a worker
   * killed as a message arrives costs up to 10 s of it: a 7-s task timeout, a 3-s sticky queue);
   * counted against the read ticks, whose p95 the engine must keep through them.
   */
  slowed: Stall[];
  /** Every bot reply quoting a human message, with when that message was marked read. */
  readTicks: ReadTick[];
  /** Real epoch ms the run was counted at: a message still unread is late until then. */
  endedAt: number;
  /** The largest p95 of the read ticks' lateness the run accepts, ms. */
  readLateP95LimitMs: number;
}

/**
 * A stretch of real time (epoch ms) during which a fault stopped everything, or, with `agent`, the
 * cluster did not serve that agent's workflow.
 */
export interface Stall {
  from: number;
  to: number;
  agent?: string;
}

/** A bot reply quoting a human message, and the moment that message was marked read. */
export interface ReadTick {
  agent: string;
  /** The human message the reply quotes (`context.message_id`). */
  messageId: string;
  /** Real epoch ms the service accepted the reply. */
  replyAt: number;
  /** Real epoch ms the agent marked the message read; null while unread. */
  readAt: number | null;
}

/** The part of the service's transcript (simulator/control-client.ts) the read ticks come from. */
export interface ReadTickTranscript {
  sent: { body: Record<string, unknown>; realAt: number }[];
  inbound: { id: string; readAt: number | null }[];
}

/** How the read ticks compare with their replies. */
export interface ReadTicksLate {
  /** Replies quoting a human message (each one a read tick measured). */
  measured: number;
  /** Read ticks later than their reply, stalls not counted (still unread at the end included). */
  count: number;
  /** Lateness over every measured reply (0 for a read at or before its reply), ms. */
  p95Ms: number;
  maxMs: number;
  /** The largest p95 the run accepts, ms. */
  limitMs: number;
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
  /** Human messages not marked read at the end of the run. */
  unread: number;
  readTicksLate: ReadTicksLate;
  violations: {
    overlappingSends: number;
    concurrentPolls: number;
    served429: number;
    retriesTooSoon: number;
    /** Messages delivered and then left unread longer than the service's grace, stalls and slowed links not counted. */
    unreadPastGrace: number;
  };
  /** The same, stalls counted (the service's own count, for the figures). */
  unreadPastGraceWithStalls: number;
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
    readTicksLate: readTicksLate(facts.readTicks, facts.endedAt, facts.readLateP95LimitMs, facts.stalls),
    violations: {
      overlappingSends: facts.overlappingSends,
      concurrentPolls: Math.max(0, facts.replacedPolls - facts.injectedReplaced),
      served429: Math.max(0, facts.status429 - facts.injected429),
      retriesTooSoon: retriesTooSoon(facts.log),
      unreadPastGrace: unreadPastGrace(facts.inbound, facts.unreadGraceMs, facts.endedAt, [
        ...facts.stalls,
        ...facts.slowed,
      ]),
    },
    unreadPastGraceWithStalls: unreadPastGrace(facts.inbound, facts.unreadGraceMs, facts.endedAt, []),
  };
}

/**
 * How much of `[from, to]` the stalls cover, ms (overlapping stalls counted once); with `agent`,
 * only the stalls of everything and of that agent.
 */
export function stalledMs(from: number, to: number, stalls: readonly Stall[], agent?: string): number {
  const cut = stalls
    .filter((s) => s.agent === undefined || s.agent === agent)
    .map((s) => ({ from: Math.max(from, s.from), to: Math.min(to, s.to) }))
    .filter((s) => s.to > s.from)
    .sort((a, b) => a.from - b.from);
  let total = 0;
  let reached = from;
  for (const s of cut) {
    const start = Math.max(reached, s.from);
    if (s.to > start) total += s.to - start;
    reached = Math.max(reached, s.to);
  }
  return total;
}

/**
 * The messages delivered and then unread longer than `graceMs` (until `endedAt` for one still
 * unread), the stalls' time not counted.
 */
export function unreadPastGrace(
  inbound: readonly { agent: string; deliveredAt: number; readAt: number | null }[],
  graceMs: number,
  endedAt: number,
  stalls: readonly Stall[],
): number {
  return inbound.filter((m) => {
    const until = m.readAt ?? endedAt;
    return until - m.deliveredAt - stalledMs(m.deliveredAt, until, stalls, m.agent) > graceMs;
  }).length;
}

/**
 * The read ticks of one agent's transcript: each reply whose `context.message_id` names a human
 * message of the chat, with when that message was marked read. (A reply quoting the bot's own
 * message, or nothing, measures nothing.)
 */
export function readTicksOf(agent: string, transcript: ReadTickTranscript): ReadTick[] {
  const readAt = new Map(transcript.inbound.map((m) => [m.id, m.readAt]));
  return transcript.sent.flatMap((s) => {
    const context = s.body.context;
    const messageId =
      typeof context === 'object' && context !== null
        ? (context as { message_id?: unknown }).message_id
        : undefined;
    if (typeof messageId !== 'string' || !readAt.has(messageId)) return [];
    return [{ agent, messageId, replyAt: s.realAt, readAt: readAt.get(messageId) ?? null }];
  });
}

/**
 * How long after its reply a message was marked read, ms: 0 when it was read first (as it should
 * be: the human sees the read tick before the answer); a message still unread is late until
 * `endedAt`. The stalls' time is not counted.
 */
export function readLateness(tick: ReadTick, endedAt: number, stalls: readonly Stall[] = []): number {
  const until = tick.readAt ?? endedAt;
  return Math.max(0, until - tick.replyAt - stalledMs(tick.replyAt, until, stalls, tick.agent));
}

/** The read ticks later than their replies: how many, and the p95 and largest lateness of all. */
export function readTicksLate(
  ticks: readonly ReadTick[],
  endedAt: number,
  limitMs: number,
  stalls: readonly Stall[] = [],
): ReadTicksLate {
  const lateness = ticks.map((t) => readLateness(t, endedAt, stalls)).sort((a, b) => a - b);
  // Nearest rank, as the report's recovery percentiles.
  const p95Ms = lateness.length
    ? lateness[Math.min(lateness.length - 1, Math.floor(0.95 * lateness.length))]
    : 0;
  return {
    measured: lateness.length,
    count: lateness.filter((ms) => ms > 0).length,
    p95Ms,
    maxMs: lateness.at(-1) ?? 0,
    limitMs,
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

/**
 * The requests that followed a 429 on the same agent and endpoint sooner than the engine may: the
 * first request of that endpoint that came in after the 429 was answered, if it came within
 * {@link MIN_WAIT_AFTER_429_MS}. A request that came in before the 429 was answered was already in
 * flight (a mark-read of the status queue beside a send's own, say): no client could have waited.
 */
export function earlyRetries(log: LogLine[]): EarlyRetry[] {
  const last429 = new Map<string, number>();
  const early: EarlyRetry[] = [];
  for (const line of [...log].sort((a, b) => a.at - b.at)) {
    const key = `${line.agent} ${line.endpoint}`;
    const after = last429.get(key);
    const came = line.receivedAt ?? line.at;
    if (after !== undefined && came >= after) {
      if (came - after < MIN_WAIT_AFTER_429_MS)
        early.push({ agent: line.agent, endpoint: line.endpoint, at: came, afterMs: came - after });
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

/**
 * True when every loss, duplicate, stuck, unread and violation line is zero and the read ticks'
 * p95 lateness is within its limit.
 */
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
    v.readTicksLate.p95Ms <= v.readTicksLate.limitMs &&
    Object.values(v.violations).every((n) => n === 0)
  );
}
