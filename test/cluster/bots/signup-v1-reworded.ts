// A compatible change to build 1: the same steps, other words (history records no message text).
import { handleMessages, isText, nameConversation, prompt, reply } from 'amsflow/workflows';

export const onMessage = handleMessages(async (msg) => {
  if (!isText(msg, /^signup$/i)) return void (await reply(msg, 'Please write signup.'));
  nameConversation('signup');
  const name = await prompt('What is your name, please?', { replyTo: msg, timeout: '1 day' });
  if (!name.ok) return;
  const email = await prompt('And your email?', { timeout: '1 day' });
  if (email.ok) await reply(email.message, `Welcome ${name.value}, registered ${email.value} (signup v1.1).`);
});
