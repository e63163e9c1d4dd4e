// Build 2 of the deploy test's bot: an incompatible change to signup's steps. It looks the human
// up first (a timer before the first question, where build 1 asked at once), then asks the email
// before the name. A signup started by build 1 cannot replay on this code.
import { sleep } from '@temporalio/workflow';
import { handleMessages, isText, nameConversation, prompt, reply } from 'amsflow/workflows';

export const onMessage = handleMessages(async (msg) => {
  if (!isText(msg, /^signup$/i)) return void (await reply(msg, 'Write signup.'));
  nameConversation('signup');
  await sleep(200);
  const email = await prompt('Signup v2: your email first, please?', { replyTo: msg, timeout: '1 day' });
  if (!email.ok) return;
  const name = await prompt('And your name?', { timeout: '1 day' });
  if (name.ok) await reply(name.message, `Thanks ${name.value}, registered ${email.value} (signup v2).`);
});
