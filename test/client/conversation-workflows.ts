/**
 * Workflows of the conversations CLI suite (`amsflow conversations list|show|cancel`):
 *   any message            a conversation named "signup": replies "what is your name?", waits for the
 *                          next message, answers "hello <text>" (a cancel ends the wait; handleMessages
 *                          then tells the human and completes)
 *   notAConversation       a workflow that never uses the conversation API (answers no conversation query)
 *   reminder(agentKey)     a conversation opened with `useAgent` under an id its starter chose
 */
import { condition } from '@temporalio/workflow';
import { handleMessages, nameConversation, reply, textOf, useAgent, waitForMessage } from '../../workflows';

export { agentWorkflow } from '../../workflows/engine-workflows';

export const onMessage = handleMessages(async (message) => {
  nameConversation('signup');
  await reply(message, 'what is your name?');
  const answer = await waitForMessage();
  await reply(answer, `hello ${textOf(answer) ?? 'there'}`);
});

/** Runs until terminated, without a conversation. */
export async function notAConversation(): Promise<void> {
  await condition(() => false);
}

/** A conversation of `agentKey` that is not a message handler; runs until terminated. */
export async function reminder(agentKey: string): Promise<void> {
  useAgent(agentKey);
  await condition(() => false);
}
