/**
 * No secret anywhere a run leaves traces: after a full scenario with the reference bot (echo, a
 * whole signup, a reminder that fires, an approval requested through the client and answered,
 * a message the bot cannot parse, a media message, polls refused with 401 while a worker held a
 * wrong token, and 429, malformed, 503 and 500-after-acceptance faults), neither token is in any
 * workflow history or description (failures included, payloads decoded), nor in any line the
 * worker processes printed; with `AMSFLOW_LOG_BODIES` off, no message body is in any
 * line either. A second worker with bodies on logs the body, which proves the body check can
 * fail; the search itself is shown to find a token planted in a history.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { requestApproval } from '../../client/approval-handle';
import { approvalWorkflowId } from '../../protocol/agent';
import type { Endpoint, Fault } from '../../simulator/wire';
import { remindersWorkflowId } from '../../protocol/reminders';
import { waitFor } from '../support/temporal';
import { agentQueries, listRuns, runTexts, search, textOf } from './secret-search';
import { engineSuite } from './support';

jest.setTimeout(120_000);

const LONG = { timeoutMs: 60_000, intervalMs: 100 };

/** A PNG-looking image of `size` bytes. */
function png(size: number): Uint8Array {
  const bytes = new Uint8Array(randomBytes(size));
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

function levelOf(line: string): string | undefined {
  try {
    return (JSON.parse(line) as { level?: string }).level;
  } catch {
    return undefined;
  }
}

describe('secrets', () => {
  const suite = engineSuite();

  it('finds a token planted in a history payload, in plain and in base64', () => {
    const token = `token-${randomUUID()}`;
    const planted = {
      events: [
        {
          eventId: 1,
          workflowExecutionStartedEventAttributes: {
            input: {
              payloads: [
                {
                  metadata: { encoding: Buffer.from('json/plain') },
                  data: Buffer.from(JSON.stringify({ config: { auth: token } })),
                },
              ],
            },
          },
        },
      ],
    };
    expect(search([{ where: 'planted', text: textOf(planted) }], token)).toHaveLength(1);
    const encoded = { data: Buffer.from(Buffer.from(token).toString('base64')) };
    expect(search([{ where: 'encoded', text: textOf(encoded) }], token)).toHaveLength(1);
    expect(search([{ where: 'clean', text: textOf(planted) }], `token-${randomUUID()}`)).toEqual([]);
  });

  it('leaves the token in no history, failure or log line, and bodies in no log line with bodies off', async () => {
    const started = Date.now();
    const engine = await suite.start({
      windowMs: 1000,
      workflows: require.resolve('../../examples/reference/bot'),
      env: { AMSFLOW_LOG_FORMAT: 'json', AMSFLOW_LOG_LEVEL: 'debug', AMSFLOW_LOG_BODIES: '0' },
    });
    // Every body the human writes or the bot says carries this tag.
    const tag = randomUUID().replace(/-/g, '');
    const texts = () => engine.sentTexts();
    const saw = (what: string, test: (text: string) => boolean) =>
      waitFor(`the bot to say ${what}`, async () => (await texts()).some(test), LONG);
    const handlerIds: string[] = [];

    // First a worker holding a wrong token (as after a botched rotation): its polls get 401s,
    // which the agent backs off from; then the worker with the right token takes over.
    const wrongToken = `token-${randomUUID()}`;
    const quietEnv = engine.options.env;
    engine.options.env = { ...quietEnv, AMS_TOKEN: wrongToken };
    const refused = await engine.startWorker();
    // (The simulator logs no request it cannot tie to an agent: the worker's line says it.)
    await waitFor(
      'a poll refused with 401 in a log line',
      () => refused.output.some((l) => l.includes('"activityType":"pollUpdates"') && l.includes('HTTP 401')),
      LONG,
    );
    expect(await refused.stop()).toBe(0);
    engine.options.env = quietEnv;
    const quiet = await engine.startWorker();
    await waitFor(
      'the agent to poll',
      async () => (await engine.transcript()).counts.requests.updates > 0,
      LONG,
    );

    // A reminder a few seconds ahead; it fires while the rest goes on.
    handlerIds.push(await engine.human(`remind me in 5 seconds to feed the zebra ${tag}`));
    await saw('the reminder confirmation', (t) => t.startsWith('OK, I will remind you') && t.includes(tag));

    // Faults on the next polls and send: a 429, a malformed page, a send not accepted (503).
    const fault = (endpoint: Endpoint, f: Fault) =>
      engine.sim.control.fault({ agent: engine.agentKey, endpoint, count: 1, fault: f });
    await fault('updates', { kind: 'rate_limit', retryAfter: 1 });
    await fault('updates', { kind: 'malformed_json' });
    await fault('messages', { kind: 'not_accepted' });
    handlerIds.push(await engine.human(`echo zebra-echo ${tag}`));
    await saw('the echo', (t) => t === `zebra-echo ${tag}`);
    await saw('the reminder', (t) => t.startsWith('⏰') && t.includes(tag));

    // A whole signup, with one invalid email on the way.
    handlerIds.push(await engine.human('signup'));
    await saw('the name question', (t) => t === 'What is your name?');
    await engine.human(`Zebra${tag}`);
    await saw('the email question', (t) => t === `Thanks, Zebra${tag}. What is your email?`);
    await engine.human(`zebra${tag}`);
    await saw('the invalid email', (t) => t.startsWith(`"zebra${tag}" has no @`));
    await engine.human(`zebra${tag}@example.com`);
    await saw('the registration', (t) => t === `Thanks Zebra${tag}, registered zebra${tag}@example.com.`);

    // A media message (the reference bot stays quiet): its handler runs and completes.
    const { id: mediaId } = await engine.sim.control.uploadHumanMedia({
      bytes: png(2000),
      mimeType: 'image/png',
      agent: engine.agentKey,
    });
    const { id: imageMessage } = await engine.sim.control.human({
      agent: engine.agentKey,
      type: 'image',
      image: { id: mediaId, caption: `zebra-caption ${tag}` },
    });
    handlerIds.push(imageMessage);
    await waitFor(
      'the media handler to complete',
      async () => {
        const { status } = await engine.client.workflow
          .getHandle(engine.handlerWorkflowId(imageMessage))
          .describe();
        return status.name === 'COMPLETED';
      },
      LONG,
    );

    // An approval requested from outside, through the client API, answered yes in the chat.
    const approval = await requestApproval(engine.client, {
      agentKey: engine.agentKey,
      id: 'deploy-secrets',
      question: `Deploy zebra ${tag}?`,
      timeout: '10m',
      taskQueue: engine.taskQueue,
    });
    const question = await waitFor(
      'the approval question',
      async () =>
        (await engine.transcript()).sent.find((s) =>
          JSON.stringify(s.body).includes(`Approval needed: Deploy zebra ${tag}?`),
        ),
      LONG,
    );
    await engine.human('yes', { id: question.id });
    expect(await approval.result()).toMatchObject({ decision: 'approved', by: engine.creator });
    await saw('the approval confirmation', (t) => t === `Approved: Deploy zebra ${tag}?`);

    // A message the bot cannot parse, its answer hit by a 500 after acceptance (ambiguous, then
    // settled from receipts).
    await fault('messages', { kind: 'server_error_after_accept' });
    const unparsed = await engine.human(`what about zebra-huh ${tag}`);
    handlerIds.push(unparsed);
    // (The handler hands its answer to the outbox and completes; the agent settles the send.)
    await saw('the help answer, settled from the receipts', (t) => t.startsWith('I know these commands:'));
    expect((await texts()).filter((t) => t.startsWith('I know these commands:'))).toHaveLength(1);
    const faultsLeft = await engine.sim.control.faults(engine.agentKey);
    expect(faultsLeft).toEqual([]);
    expect(await quiet.stop()).toBe(0);

    // The same worker with bodies on: the body shows in its debug lines, so the check can fail.
    const loudTag = randomUUID().replace(/-/g, '');
    engine.options.env = { ...engine.options.env, AMSFLOW_LOG_BODIES: '1' };
    const loud = await engine.startWorker();
    handlerIds.push(await engine.human(`echo zebra-loud ${loudTag}`));
    await saw('the loud echo', (t) => t === `zebra-loud ${loudTag}`);
    await waitFor('the body in a debug line', () => loud.output.some((l) => l.includes(loudTag)), LONG);
    expect(await loud.stop()).toBe(0);

    // Every run of every workflow of the agent, once visibility lists them all.
    const expected = [
      engine.agentWorkflowId,
      remindersWorkflowId(engine.agentKey),
      approvalWorkflowId(engine.agentKey, 'deploy-secrets'),
      ...handlerIds.map((id) => engine.handlerWorkflowId(id)),
    ];
    const runs = await waitFor(
      'visibility to list every workflow of the agent',
      async () => {
        const listed = await listRuns(engine.client, agentQueries(engine.agentKey, engine.taskQueue));
        return expected.every((id) => listed.has(id)) && listed;
      },
      LONG,
    );
    const histories = await runTexts(engine.client, runs);
    const historyTexts = histories.map((r) => ({ where: `${r.workflowId} (${r.runId})`, text: r.text }));
    const refusedLines = refused.output.map((line, i) => ({
      where: `refused worker line ${i + 1}`,
      text: line,
    }));
    const quietLines = quiet.output.map((line, i) => ({ where: `quiet worker line ${i + 1}`, text: line }));
    const loudLines = loud.output.map((line, i) => ({ where: `loud worker line ${i + 1}`, text: line }));

    // The searches can fail: bodies are workflow data, so the histories hold them.
    expect(search(historyTexts, tag).length).toBeGreaterThan(0);
    expect(search(loudLines, loudTag).length).toBeGreaterThan(0);
    // The failures searched include the 401 of the poll and the 500 of the send.
    expect(search(historyTexts, 'HTTP 401').length).toBeGreaterThan(0);
    expect(search(historyTexts, 'injected server error after acceptance').length).toBeGreaterThan(0);

    expect(search(historyTexts, engine.token)).toEqual([]);
    expect(search(historyTexts, wrongToken)).toEqual([]);
    const lines = [...refusedLines, ...quietLines, ...loudLines];
    expect(search(lines, engine.token)).toEqual([]);
    expect(search(lines, wrongToken)).toEqual([]);
    expect(search([...refusedLines, ...quietLines], tag)).toEqual([]);
    // Errors were produced, and logged.
    const warnings = quiet.output.filter((l) => ['warn', 'error'].includes(levelOf(l) ?? ''));
    expect(warnings.length).toBeGreaterThan(0);

    const failures = historyTexts.reduce((n, t) => n + t.text.split('"failure":{').length - 1, 0);
    const redacted = [...refused.output, ...quiet.output, ...loud.output].filter((l) =>
      l.includes('[REDACTED]'),
    ).length;
    const kib = Math.round(historyTexts.reduce((n, t) => n + t.text.length, 0) / 1024);
    const messages = [...new Set(warnings.map((l) => (JSON.parse(l) as { msg: string }).msg))];
    console.log(
      `secrets: ${histories.length} runs of ${runs.size} workflows searched (${kib} KiB, ${failures} failures), ` +
        `${lines.length} log lines (${redacted} redacted; warn/error: ${messages.join(' | ')}), ` +
        `${Date.now() - started} ms`,
    );
    await engine.client.workflow
      .getHandle(remindersWorkflowId(engine.agentKey))
      .terminate('test over')
      .catch(() => undefined);
  });
});
