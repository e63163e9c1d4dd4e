// The bot's bundle: the agent, the approval workflow, and a handler for everything else.
import { handleMessages, reply } from 'amsflow/workflows';
export { agentWorkflow, approvalWorkflow } from 'amsflow/workflows';

export const onMessage = handleMessages(async (msg) => void (await reply(msg, 'Approvals show up here.')));
