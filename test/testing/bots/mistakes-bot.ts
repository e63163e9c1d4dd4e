/**
 * A bot with the mistakes a bot author makes, for the fail-fast tests:
 *   "typo"   asks with `timeout: '1 dya'` (InvalidOption at the call: nothing is asked)
 *   "bug"    reads a property of undefined (its workflow task fails, and would be retried forever)
 *   "boom"   fails with an ApplicationFailure of its own (a real warning, not a mistake of the API)
 *   else     answers "ok <text>"
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { ask, handleMessages, sendText, textOf } from 'amsflow/workflows';

export { agentWorkflow } from 'amsflow/engine-workflows';

export const onMessage = handleMessages(async (message) => {
  const text = textOf(message)?.trim();
  if (text === 'typo') await ask('Which day?', { timeout: '1 dya' as never });
  if (text === 'bug') {
    const missing = (message as unknown as { nothing?: { here: string } }).nothing;
    await sendText(missing!.here);
  }
  if (text === 'boom') throw ApplicationFailure.nonRetryable('boom: the bot gave up on purpose', 'BotGaveUp');
  await sendText(`ok ${text}`);
});
