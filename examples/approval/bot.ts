// The bot: approvals asked from outside show up in its chat; anything else gets this reply.
import { handleMessages, reply } from 'amsflow/workflows';

export const onMessage = handleMessages(async (msg) => void (await reply(msg, 'Approvals show up here.')));
