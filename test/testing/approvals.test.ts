/**
 * Approvals answered in the chat (reference bot, bot test harness, time skipping): a quoted yes,
 * a bare no, a reaction, two pending at once ("which one?"), the same id twice, expiry with a
 * late answer, the reminder ladder, and other commands working while one is pending.
 */
import { approvalWorkflowId } from '../../protocol/agent';
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import type { ApprovalDecision, ApprovalInput } from '../../protocol/approvals';

jest.setTimeout(180_000);

describe('approvals (bot test harness, time skipping)', () => {
  let bot: BotTestEnv;
  let n = 0;
  beforeAll(async () => {
    bot = await createBotTestEnv({ workflows: require.resolve('../../examples/reference/bot') });
  });
  afterAll(async () => {
    await bot?.teardown();
  });

  const request = async (question: string, extra: Partial<ApprovalInput> = {}) => {
    const id = extra.id ?? `req-${++n}`;
    const requestedAt = Date.now();
    const handle = await bot.client.workflow.start('approvalWorkflow', {
      taskQueue: bot.taskQueue,
      workflowId: approvalWorkflowId(bot.agentKey, id),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [{ agentKey: bot.agentKey, id, question, timeoutMs: 3_600_000, requestedAt, ...extra }],
    });
    return { id, requestedAt, result: () => handle.result() as Promise<ApprovalDecision> };
  };

  it('a quoted yes approves: confirmation, decision by the human at the time of the answer', async () => {
    const approval = await request('Deploy v2 to production?');
    const question = await bot.expectBot(/Approval needed: Deploy v2 to production\?/);
    await bot.say('Yes', { replyTo: question });
    await bot.expectBot('Approved: Deploy v2 to production?');
    const decision = await approval.result();
    expect(decision).toMatchObject({ id: approval.id, decision: 'approved', by: 'user:1001' });
    expect(Date.parse(decision.at)).toBeGreaterThanOrEqual(approval.requestedAt - 1000);
    expect(decision.at).toMatch(/\.\d{3}Z$/);
  });

  it('a bare no rejects the only pending approval', async () => {
    const approval = await request('Delete the old logs?');
    await bot.expectBot(/Delete the old logs\?/);
    await bot.say('no');
    await bot.expectBot('Rejected: Delete the old logs?');
    expect((await approval.result()).decision).toBe('rejected');
  });

  it('a 👍 reaction approves', async () => {
    const approval = await request('Send the invoice?');
    const question = await bot.expectBot(/Send the invoice\?/);
    await bot.react(question, '👍');
    const confirmation = await bot.expectBot('Approved: Send the invoice?');
    // A reaction is no message to quote: the confirmation quotes the question.
    expect(confirmation.replyTo).toBe(question.id);
    expect((await approval.result()).decision).toBe('approved');
  });

  it('two pending: a bare yes gets "which one?", a quoting answer decides one', async () => {
    const first = await request('Restart the web tier?');
    const q1 = await bot.expectBot(/Restart the web tier\?/);
    const second = await request('Rotate the keys?');
    const q2 = await bot.expectBot(/Rotate the keys\?/);
    await bot.say('yes');
    await bot.expectBot(/^Which one\?.*\n1\. Restart the web tier\?\n2\. Rotate the keys\?$/s);
    await bot.say('no', { replyTo: q2 });
    await bot.expectBot('Rejected: Rotate the keys?');
    expect((await second.result()).decision).toBe('rejected');
    await bot.say('yes', { replyTo: q1 });
    await bot.expectBot('Approved: Restart the web tier?');
    expect((await first.result()).decision).toBe('approved');
  });

  it('two pending: the "which one?" list is answered by quoting it with a number', async () => {
    const first = await request('Open the gates?');
    await bot.expectBot(/Open the gates\?/);
    const second = await request('Close the valves?');
    const q2 = await bot.expectBot(/Close the valves\?/);
    await bot.say('yes');
    const list = await bot.expectBot(/^Which one\?.*\n1\. Open the gates\?\n2\. Close the valves\?$/s);
    // Quoting the list with no number of it asks again (it used to get the help text).
    await bot.say('yes', { replyTo: list });
    const again = await bot.expectBot(/^Which one\?.*\n1\. Open the gates\?\n2\. Close the valves\?$/s);
    await bot.say('1', { replyTo: again });
    await bot.expectBot('Approved: Open the gates?');
    expect((await first.result()).decision).toBe('approved');
    // The list's other question is still answered by quoting it.
    await bot.say('no', { replyTo: q2 });
    await bot.expectBot('Rejected: Close the valves?');
    expect((await second.result()).decision).toBe('rejected');
    // A pick of a question that no longer waits says so.
    await bot.say('2', { replyTo: list });
    await bot.expectBot('That question is not waiting for an answer any more.');
  });

  it('the same request id twice is one approval, asked once', async () => {
    const a = await request('Merge the release branch?', { id: 'same-id' });
    const b = await request('Merge the release branch?', { id: 'same-id' });
    const question = await bot.expectBot(/Merge the release branch\?/);
    await bot.say('yes', { replyTo: question });
    await bot.expectBot('Approved: Merge the release branch?');
    expect(await a.result()).toEqual(await b.result());
    const asked = (await bot.transcript()).filter(
      (m) => m.text?.includes('Merge the release branch?') && m.text.startsWith('Approval'),
    );
    expect(asked).toHaveLength(1);
  });

  it('reminds on the ladder, expires, and tells a late answer it is too late', async () => {
    const approval = await request('Renew the certificate?', {
      timeoutMs: 4 * 3_600_000,
      remindAfterMs: 3_600_000,
    });
    const question = await bot.expectBot(/Renew the certificate\?/);
    await bot.skip('1 hour');
    await bot.expectBot('Reminder: Renew the certificate? (yes or no?)');
    await bot.skip('1 hour');
    await bot.expectBot('Reminder: Renew the certificate? (yes or no?)');
    await bot.skip('2 hours');
    await bot.expectBot('Reminder: Renew the certificate? (yes or no?)');
    await bot.expectBot('Expired without an answer: Renew the certificate?');
    expect((await approval.result()).decision).toBe('expired');
    await bot.say('yes', { replyTo: question });
    await bot.expectBot(/^Too late: this approval expired at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.$/);
  });

  it('other commands keep working while an approval is pending', async () => {
    const approval = await request('Scale up?');
    const question = await bot.expectBot(/Scale up\?/);
    await bot.say('echo still here');
    await bot.expectBot('still here');
    await bot.react(question, '👎');
    await bot.expectBot('Rejected: Scale up?');
    expect((await approval.result()).decision).toBe('rejected');
  });
});
