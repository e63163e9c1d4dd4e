// A signup conversation: name, then email (re-asked until valid), nudges, cancel, help.
import { z } from 'zod';
import { handleMessages, nameConversation, prompt, reply, sendText, textOf } from 'amsflow/workflows';

const HELP = 'Write signup to register. While I wait for an answer, cancel stops.';
const wait = { timeout: '3 days', nudge: { after: '1 day', max: 2 } } as const;
const email = z.string().email('That is not an email address');

export const onMessage = handleMessages(
  async (msg) => {
    if (textOf(msg)?.trim().toLowerCase() !== 'signup') return void (await reply(msg, HELP));
    nameConversation('signup');
    const name = await prompt('What is your name?', { ...wait, replyTo: msg });
    if (!name.ok) return void (name.reason === 'timeout' && (await sendText('Signup stopped: no answer.')));
    const address = await prompt('What is your email?', { ...wait, parse: email });
    if (!address.ok)
      return void (address.reason === 'timeout' && (await sendText('Signup stopped: no answer.')));
    await reply(address.message, `Thanks ${name.value}, registered ${address.value}.`);
  },
  { commands: { help: async (msg) => void (await reply(msg, HELP)) } },
);
