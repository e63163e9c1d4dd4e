/**
 * A bot for the harness's own tests, on the public API only:
 *   "late"   asks "Pick a color?" (1 hour), says "too late", stays a day; late answers: "late: <text>"
 *   "age"    prompts "How old are you?" with a zod schema (2 tries): "age <n>" or "gave up: <reason>"
 *   "race"   sends "Approve?" and waits for whichever comes first (1 hour): "race: <kind> <detail>"
 *   "city"   prompts "Your city?" with nudges every 10 minutes (3), 1 hour timeout: "city <name>"
 */
import { defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import { z } from 'zod';
import {
  ask,
  firstOf,
  handleMessages,
  isWaitTimeout,
  prompt,
  reply,
  sendText,
  textOf,
} from 'amsflow/workflows';
import { sleep } from '@temporalio/workflow';

export { agentWorkflow } from 'amsflow/engine-workflows';

export const approveSignal = defineSignal<[string]>('approve');
export const flagUpdate = defineUpdate<void>('flag');

export const onMessage = handleMessages(
  async (message) => {
    const text = textOf(message)?.trim();
    if (text === 'late') {
      try {
        await ask('Pick a color?', { timeout: '1 hour' });
      } catch (err) {
        if (!isWaitTimeout(err)) throw err;
        await sendText('too late');
        await sleep('1 day');
      }
    } else if (text === 'age') {
      const age = await prompt('How old are you?', {
        parse: z.coerce.number().int().min(0).max(150),
        maxTries: 2,
      });
      await sendText(age.ok ? `age ${age.value}` : `gave up: ${age.reason}`);
    } else if (text === 'race') {
      let flagged = false;
      setHandler(flagUpdate, () => {
        flagged = true;
      });
      const question = await sendText('Approve?', { confirm: true });
      const got = await firstOf({
        about: question,
        timeout: '1 hour',
        signals: [approveSignal],
        until: () => flagged,
      });
      const detail =
        got.kind === 'message' || got.kind === 'reply'
          ? textOf(got.message)
          : got.kind === 'reaction'
            ? got.emoji
            : got.kind === 'cancel'
              ? got.by
              : got.kind === 'signal'
                ? `${got.name} ${String(got.args[0])}`
                : '';
      await sendText(`race: ${got.kind} ${detail}`.trim());
    } else if (text === 'city') {
      const city = await prompt('Your city?', {
        nudge: { after: '10 minutes', every: '10 minutes', max: 3 },
        timeout: '1 hour',
      });
      await sendText(city.ok ? `city ${city.value}` : `gave up: ${city.reason}`);
    } else {
      await reply(message, 'unknown');
    }
  },
  { onLate: async (message) => void (await reply(message, `late: ${textOf(message) ?? message.type}`)) },
);
