import { CARRIED_STATE_MAX_BYTES, composeCarried } from '../../../workflows/engine/runtime';
import { FirstReplyOrder, InboundBudget } from '../../../workflows/engine/handlers';

/** An inbound budget for the state-size test (the default, 0, keeps no times). */
const FLOOD_BUDGET = 60;
import { Outbox } from '../../../workflows/engine/outbox';
import { PollCursor } from '../../../workflows/engine/poll-rules';
import { FAILED_SENDS_KEPT } from '../../../workflows/engine/agent-status';
import { ReceiptLedger, STATUSES_KEPT, WATCHES_KEPT } from '../../../workflows/engine/receipts';
import {
  DELIVERIES_KEPT,
  EXPIRED_KEPT,
  ROUTED_KEPT,
  Router,
  CHOICES_KEPT,
  WHICH_ONES_KEPT,
} from '../../../workflows/engine/router';
import { jsonBytes } from '../../../workflows/engine/bounds';
import { SlidingWindow } from '../../../core/sliding-window';
import { StatusQueue } from '../../../workflows/engine/statuses';
import { DEFAULT_TUNING as T } from '../../../workflows/engine/tuning';

// Worst-case entries: ids as long as the engine makes them, texts of 4096 four-byte characters.
const wamid = (i: number) => `wamid.${'X'.repeat(40)}${i}`;
const workflowId = (i: number) => `agent:${'k'.repeat(100)}:msg:${wamid(i)}`;
const requestId = (i: number) => `${workflowId(i)}/${'r'.repeat(36)}/${'c'.repeat(36)}/send/${i}`;
const hugeText = '😀'.repeat(4096);

describe('carried state', () => {
  it(`stays under ${CARRIED_STATE_MAX_BYTES} bytes with every part filled to its bound`, () => {
    const cursor = new PollCursor(T.recentIdsKept);
    for (let i = 0; i < T.recentIdsKept * 2; i++) cursor.dispatched(wamid(i));
    const router = new Router(T.maxWaiters);
    for (let i = 0; i < EXPIRED_KEPT * 2; i++) {
      router.register({ workflowId: `x${workflowId(i)}`, waitId: i }, `x${wamid(i)}`, false);
      router.end({ workflowId: `x${workflowId(i)}`, waitId: i }, hugeText);
    }
    // Word waiters (approvals), each with the most and longest words and the longest label.
    const words = Array.from({ length: 40 }, (_, k) => `${k}${'w'.repeat(60)}`);
    for (let i = 0; i < T.maxWaiters * 2; i++)
      router.register({ workflowId: `a${workflowId(i)}`, waitId: i }, undefined, false, {
        words,
        label: hugeText,
      });
    for (let i = 0; i < T.maxWaiters * 2; i++)
      router.register({ workflowId: workflowId(i), waitId: i }, wamid(i));
    for (let i = 0; i < T.maxWaiters; i++) router.register({ workflowId: `n${workflowId(i)}`, waitId: i });
    for (let i = 0; i < ROUTED_KEPT * 2; i++) {
      const message = {
        from: 'user:1',
        id: wamid(i),
        timestamp: '1',
        type: 'text',
        text: { body: hugeText },
      };
      router.delivered({ workflowId: `d${i}`, waitId: 1 }, { message: message, seq: i });
    }
    // Deliveries kept for the routing proof, each with the longest parts a gist keeps.
    for (let i = 0; i < DELIVERIES_KEPT * 2; i++) {
      const message = {
        from: `user:${'9'.repeat(200)}`,
        id: wamid(1000 + i),
        timestamp: '1'.repeat(200),
        type: 'text',
        context: { id: 'c'.repeat(200) },
        text: { body: hugeText },
      };
      router.delivered({ workflowId: workflowId(i), waitId: i }, { message, seq: i });
    }
    // "Which one?" lists, each with the longest answer and the most choices.
    for (let i = 0; i < WHICH_ONES_KEPT * 2; i++) {
      const answer = { from: 'user:1', id: wamid(i), timestamp: '1', type: 'text', text: { body: hugeText } };
      const workflowIds = Array.from({ length: CHOICES_KEPT * 2 }, (_, k) => workflowId(k));
      router.whichOnes.asked(requestId(i), { answer, workflowIds });
      router.whichOnes.sent(requestId(i), wamid(i));
    }
    const ledger = new ReceiptLedger(T.recentIdsKept);
    for (let i = 0; i < T.recentIdsKept * 2; i++) {
      ledger.sent(wamid(i));
      ledger.watch(wamid(i), workflowId(i));
      ledger.receive({ id: wamid(i), status: 'delivered' }, i);
    }
    // Every entry failed (the larger form), then more came than it keeps.
    const failedEntry = (i: number) => ({
      messageId: wamid(i),
      failures: 99,
      failingSince: 1_700_000_000_000,
      notBefore: 1_700_000_000_000,
    });
    const statuses = new StatusQueue(
      {
        maxPending: T.maxPendingMarkRead,
        maxTyping: T.maxQueuedTyping,
        giveUpMs: T.markReadGiveUpMs,
        graceMs: T.markReadGraceMs,
        unknownRetryBaseMs: T.backoffBaseMs,
      },
      new SlidingWindow(T.maxPendingMarkRead, 60_000),
      { markRead: Array.from({ length: T.maxPendingMarkRead * 2 }, (_, i) => failedEntry(i)) },
    );
    expect(statuses.pendingMarkRead).toBe(T.maxPendingMarkRead);
    const outbox = new Outbox(
      { recentIdsKept: T.recentIdsKept, maxQueued: T.maxQueuedSends, maxQueuedBytes: T.maxQueuedSendBytes },
      undefined,
      0,
    );
    for (let i = 0; i < T.maxQueuedSends * 2; i++) {
      outbox.enqueue(
        {
          requestId: requestId(i),
          message: { type: 'text', text: { body: hugeText } },
          requester: workflowId(i),
        },
        'signal',
        0,
      );
    }
    for (let i = 0; i < T.recentIdsKept * 2; i++) {
      outbox.outcomes.set(`done-${requestId(i)}`, {
        ok: false,
        type: 'AmbiguousSend',
        message: 'm'.repeat(2000),
        attempts: 4,
      });
    }
    const order = new FirstReplyOrder(T.orderingGraceMs);
    for (let i = 0; i < 100; i++) order.hold(i, i);
    const window = () => {
      const w = new SlidingWindow(15, 60_000);
      for (let i = 0; i < 15; i++) w.record(1_700_000_000_000 + i);
      return w;
    };
    const carried = composeCarried({
      cursor,
      router,
      ledger,
      statuses,
      outbox,
      order,
      windows: { messages: window(), updates: window(), statuses: window(), typing: window() },
      inboundSeq: 1_000_000,
      counters: { received: 1e9, sent: 1e9, failedSends: 1e9, polls: 1e9, receipts: 1e9 },
      generation: 1e6,
      lastError: {
        at: new Date().toISOString(),
        where: 'send',
        type: 'AmbiguousSend',
        message: 'x'.repeat(1000),
      },
      inbound: (() => {
        const budget = new InboundBudget(FLOOD_BUDGET, T.inboundBudgetWindowMs);
        for (let i = 0; i < FLOOD_BUDGET * 2; i++) budget.admit(1_700_000_000_000 + i);
        return budget;
      })(),
      failedSends: Array.from({ length: FAILED_SENDS_KEPT }, (_, i) => ({
        requestId: requestId(i),
        requester: workflowId(i),
        type: 'AmbiguousSend',
        at: new Date().toISOString(),
      })),
    });
    const bytes = jsonBytes(carried);
    if (process.env.SIZE_DEBUG)
      console.log(
        Object.entries(carried)
          .map(([k, v]) => `${k} ${jsonBytes(v)}`)
          .join('\n'),
      );
    expect(outbox.length).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(CARRIED_STATE_MAX_BYTES);
    // Every slice is at its bound, not empty: the test measures a full state.
    expect(carried.recentInbound).toHaveLength(T.recentIdsKept);
    expect(carried.nextWaiters).toHaveLength(T.maxWaiters);
    expect(carried.routed).toHaveLength(ROUTED_KEPT);
    expect(carried.whichOnes).toHaveLength(WHICH_ONES_KEPT);
    expect(carried.expiredQuestions).toHaveLength(EXPIRED_KEPT);
    expect(carried.replyWaiters).toHaveLength(T.maxWaiters);
    expect(carried.markRead).toHaveLength(T.maxPendingMarkRead);
    expect(carried.statuses).toHaveLength(STATUSES_KEPT);
    expect(carried.inboundTimes).toHaveLength(FLOOD_BUDGET);
    expect(carried.receiptRoutes).toHaveLength(WATCHES_KEPT);
  });
});
