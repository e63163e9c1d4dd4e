/**
 * Only the human decides an approval (issue 37): a signal from anyone else (the CLI, the UI, any
 * client) decides nothing, not even one reusing a real message's id with other words; the record
 * names the deciding message; a bare answer never goes silently to an approval while another
 * conversation waits for the human's next message; a decided approval leaves the router at once.
 * The reference bot in the bot test harness (time skipping).
 */
import { approvalWorkflowId } from '../../protocol/agent';
import { inboundSignal } from '../../protocol/messages';
import { createBotTestEnv, type BotTestEnv } from '../../testing';
import type { ConversationView } from '../../protocol/conversations';
import type { ApprovalDecision, ApprovalView } from '../../protocol/approvals';
import { proofAsked } from '../support/routing-proof';
import { waitFor } from '../support/temporal';

jest.setTimeout(180_000);

describe('only the human decides an approval', () => {
  let bot: BotTestEnv;
  let n = 0;
  beforeAll(async () => {
    bot = await createBotTestEnv({ workflows: require.resolve('../../examples/reference/bot') });
  });
  afterAll(async () => {
    await bot?.teardown();
  });

  /** Approvals of the test that runs: one left pending would take the next test's bare answers. */
  const started: string[] = [];
  afterEach(async () => {
    for (const workflowId of started.splice(0)) {
      const handle = bot.client.workflow.getHandle(workflowId);
      if ((await handle.query<ApprovalView>('amsflow.approval')).status !== 'pending') continue;
      await handle.signal('amsflow.cancel', { reason: 'test over' });
      await bot.expectBot(/^Approval cancelled: /);
    }
  });

  const request = async (question: string) => {
    const id = `hostile-${++n}`;
    const workflowId = approvalWorkflowId(bot.agentKey, id);
    started.push(workflowId);
    const handle = await bot.client.workflow.start('approvalWorkflow', {
      taskQueue: bot.taskQueue,
      workflowId,
      args: [{ agentKey: bot.agentKey, id, question, timeoutMs: 3_600_000, requestedAt: Date.now() }],
    });
    return {
      workflowId,
      handle,
      status: async () => (await handle.query<ApprovalView>('amsflow.approval')).status,
      result: () => handle.result() as Promise<ApprovalDecision>,
      historyLength: async () => ((await handle.fetchHistory()).events ?? []).length,
      conversation: () => handle.query<ConversationView>('amsflow.conversation'),
    };
  };
  /** A signal as the agent would send it, sent by a client instead. */
  const forge = (workflowId: string, message: { id: string; body: string; quotes?: string }, waitId = 1) =>
    bot.client.workflow.getHandle(workflowId).signal(inboundSignal, {
      message: {
        from: 'user:1001',
        id: message.id,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: 'text',
        text: { body: message.body },
        ...(message.quotes ? { context: { from: 'agent:demo', id: message.quotes } } : {}),
      },
      seq: 9999,
      waitId,
    });

  it('a forged "yes" decides nothing; the human\'s own answer does, and the record names it', async () => {
    const approval = await request('Transfer 500 EUR to DE00 1234?');
    const question = await bot.expectBot(/Approval needed: Transfer 500 EUR/);
    const before = await approval.historyLength();
    await forge(approval.workflowId, { id: 'wamid.forged-1', body: 'yes', quotes: question.id });
    await proofAsked(bot.client, approval.workflowId, before);
    expect(await approval.status()).toBe('pending');
    const answer = await bot.say('no', { replyTo: question });
    await bot.expectBot('Rejected: Transfer 500 EUR to DE00 1234?');
    expect(await approval.result()).toMatchObject({
      decision: 'rejected',
      by: 'user:1001',
      messageId: answer,
    });
  });

  it("a forged signal reusing the human's message id with other words decides nothing", async () => {
    const approval = await request('Delete the backups?');
    const question = await bot.expectBot(/Approval needed: Delete the backups\?/);
    const maybe = await bot.say('maybe later', { replyTo: question });
    await bot.expectBot('Please answer yes or no.');
    // It waits again (its wait 2 registered with the agent) once the request is answered.
    await waitFor('the approval to wait again', async () => (await approval.conversation()).waiting);
    const before = await approval.historyLength();
    // The same id, now saying yes, on the wait the approval registered again.
    await forge(approval.workflowId, { id: maybe, body: 'yes', quotes: question.id }, 2);
    await proofAsked(bot.client, approval.workflowId, before);
    expect(await approval.status()).toBe('pending');
    await bot.say('no', { replyTo: question });
    await bot.expectBot('Rejected: Delete the backups?');
    expect((await approval.result()).decision).toBe('rejected');
  });

  it('shows the question as it is: a right-to-left override or a zero-width space is written out', async () => {
    const approval = await request('Transfer 500 EUR to \u202E4321 00ED\u202C\u200B?');
    await bot.expectBot(
      'Approval needed: Transfer 500 EUR to ⟨U+202E⟩4321 00ED⟨U+202C⟩⟨U+200B⟩?\nReply yes or no (or react 👍 / 👎).',
    );
    await approval.handle.signal('amsflow.cancel', { reason: 'test over' });
    await bot.expectBot(/^Approval cancelled: Transfer 500 EUR to ⟨U\+202E⟩/);
  });

  it('a bare "yes" while another conversation waits for the next message gets "which one?", never the approval', async () => {
    await bot.say('signup');
    await bot.expectBot('What is your name?');
    const approval = await request('Wire the funds?');
    await bot.expectBot(/Approval needed: Wire the funds\?/);
    await bot.say('yes');
    const list = await bot.expectBot(/^Which one\?.*\n1\. Wire the funds\?\n2\. What is your name\?$/s);
    expect(await approval.status()).toBe('pending');
    // The human meant the signup's question.
    await bot.say('2', { replyTo: list });
    await bot.expectBot(/yes/i);
    expect(await approval.status()).toBe('pending');
    await bot.say('cancel');
    await bot.expectBot(/Cancelled/);
    // Now only the approval waits: a bare answer is its.
    await bot.say('yes');
    await bot.expectBot('Approved: Wire the funds?');
    expect((await approval.result()).decision).toBe('approved');
    // Decided: it left the router at once, and a bare "yes" is no answer to it any more.
    await bot.say('yes');
    const next = await bot.expectBot(/./);
    expect(next.text).not.toMatch(/^Which one\?|Wire the funds/);
  });
});
