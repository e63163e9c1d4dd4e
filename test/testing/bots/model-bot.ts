/**
 * A bot for the model-turn tests: every message goes to `answerWithModel`, with the options the
 * test gives as the bot's configuration (`ctx.config`, JSON) and two tools: `count` (an activity
 * that counts its runs, optionally slow), `confirmCount` (the same, needing approval) and the
 * ready `askApproval` (`approvalTool`). With
 * no model it answers "no model"; a failed or cancelled turn is reported in a second message, so
 * the test sees the typed result.
 */
import { z } from 'zod';
import {
  answerWithModel,
  approvalTool,
  handleMessages,
  nameConversation,
  reply,
  tool,
} from '../../../workflows/index';
import type { ModelTurnOptions } from '../../../workflows/index';

const input = z.object({ label: z.string().min(1), slowMs: z.number().int().min(0).max(10_000).optional() });

const count = tool({ description: 'Counts a run of `label`', inputSchema: input, execute: 'count' });
const confirmCount = tool({ ...count, needsApproval: true });

export const onMessage = handleMessages<ModelTurnOptions | undefined>(async (msg, ctx) => {
  nameConversation('assistant');
  const answer = await answerWithModel(msg, {
    ...ctx.config,
    tools: { count, confirmCount, askApproval: approvalTool('5 minutes') },
  });
  if (answer.ok) return;
  if (answer.reason === 'noModel') await reply(msg, 'no model');
  else await reply(msg, `turn ${answer.reason}${answer.reason === 'failed' ? `: ${answer.failure}` : ''}`);
});
