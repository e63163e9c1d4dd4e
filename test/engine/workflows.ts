/**
 * The workflow bundle of the engine suites: the real agent workflow and reference bot, plus
 * probes that report what a sending workflow sees.
 *   "probe <text>"        sends <text>; the handler fails with the send's failure type, if any
 *   "probe-retry <text>"  the same, opting in to re-sending after an ambiguous outcome
 *   "probe-reconcile <text>" the same, opting in to reconciliation from receipts
 *   "twice <text>"        replies "<text> (1)" and "<text> (2)"
 *   "quiz"                asks a question and replies "answer: <text>" to the answer
 *   "rquiz"               the same, settling an ambiguous question from receipts
 *   "receipt"             sends "watch me", waits for its 'read' receipt, then sends "seen it"
 *   "slowwait"            waits 4 s for the next message, stays 6 s more, then says what it got
 *   "probe-malformed"     asks the outbox to send a message without a type (fails with its failure type)
 *   "quickquiz"           asks "Quick question?" (2 s timeout), says "too slow" and ends
 *   "slowquiz"            the same, then stays 20 s; its late answers get "late: <text>" (onLate)
 *   "greet <name>"        answers the configured greeting and <name>, shouted by the bot's own activity
 *   "sleepy"              gives up its first-reply turn, sleeps 8 s, then says "awake"
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type * as botActivities from './bot-activities';
import {
  ask,
  handleMessages,
  reply,
  sendText,
  textOf,
  waitForMessage,
  waitForReceipt,
  isWaitTimeout,
  type OutboundMessage,
} from '../../workflows';
import { referenceBot } from '../../examples/reference/bot';
import { request } from '../../workflows/author/sending';

export { agentWorkflow } from '../../workflows/engine-workflows';

const { shout } = proxyActivities<typeof botActivities>({ startToCloseTimeout: '10 seconds' });

export const onMessage = handleMessages<{ greeting?: string } | undefined>(
  async (message, ctx) => {
    const text = textOf(message) ?? '';
    const probe = /^probe(-retry|-reconcile)? ([\s\S]+)$/.exec(text);
    if (probe) {
      await sendText(probe[2], {
        retryAmbiguous: probe[1] === '-retry',
        reconcileAmbiguous: probe[1] === '-reconcile',
        confirm: true,
      });
      return;
    }
    if (text === 'receipt') {
      const { messageId } = await sendText('watch me', { confirm: true });
      const receipt = await waitForReceipt(messageId, 'read', { timeout: '1 minute' }).catch((err) => {
        if (isWaitTimeout(err)) return undefined;
        throw err;
      });
      await sendText(receipt?.status === 'read' ? 'seen it' : 'no receipt');
      return;
    }
    if (text === 'probe-malformed') {
      // Past `send`'s own check (it refuses this at the call with InvalidOption): the outbox's edge.
      await request({ text: { body: 'no type' } } as unknown as OutboundMessage);
      return;
    }
    const greet = /^greet (.+)$/.exec(text);
    if (greet) {
      await reply(message, await shout(`${ctx.config?.greeting ?? 'no config'} ${greet[1]}`));
      return;
    }
    if (text === 'sleepy') {
      await ctx.release();
      await sleep('8 seconds');
      await sendText('awake');
      return;
    }
    if (text === 'quickquiz' || text === 'slowquiz') {
      try {
        await ask('Quick question?', { replyTo: message, timeout: '2 seconds' });
      } catch {
        await sendText('too slow');
      }
      if (text === 'slowquiz') await sleep('20 seconds');
      return;
    }
    if (text === 'slowwait') {
      const got = await waitForMessage({ timeout: '4 seconds' }).catch((err) => {
        if (isWaitTimeout(err)) return undefined;
        throw err;
      });
      await sleep('6 seconds');
      await sendText(got ? `slowwait got ${textOf(got)}` : 'slowwait got nothing');
      return;
    }
    const twice = /^twice (.+)$/.exec(text);
    if (twice) {
      await reply(message, `${twice[1]} (1)`);
      await reply(message, `${twice[1]} (2)`);
      return;
    }
    if (text === 'quiz' || text === 'rquiz') {
      const reconcileAmbiguous = text === 'rquiz';
      const answer = await ask('What is your answer?', { replyTo: message, reconcileAmbiguous });
      await reply(answer, `answer: ${textOf(answer) ?? answer.type}`);
      return;
    }
    await referenceBot(message, ctx);
  },
  {
    onLate: async (message) => {
      await reply(message, `late: ${textOf(message) ?? message.type}`);
    },
  },
);
