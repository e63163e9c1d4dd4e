// Build 1 of the deploy test's bot: signup asks the name, then the email.
import { handleMessages, isText, nameConversation, prompt, reply } from 'amsflow/workflows';

export const onMessage = handleMessages(async (msg) => {
  if (!isText(msg, /^signup$/i)) return void (await reply(msg, 'Write signup.'));
  nameConversation('signup');
  const name = await prompt('What is your name?', { replyTo: msg, timeout: '1 day' });
  if (!name.ok) return;
  const email = await prompt('What is your email?', { timeout: '1 day' });
  if (email.ok) await reply(email.message, `Thanks ${name.value}, registered ${email.value} (signup v1).`);
});
