/**
 * A person's path through `npm start`, in headless Chromium: the real command (the `start`
 * script of package.json) in a process of its own, on a data dir and ports of the test's own.
 * `signup` is begun in the web chat, `npm start` is stopped with Ctrl-C (SIGINT) and started
 * again, and the chat is reloaded: the history is still there, and the signup begun before the
 * restart finishes after it, with nothing asked twice and nothing lost. Screenshots go to
 * `test-artifacts/npm-start-*.png`, the measured times to `test-artifacts/npm-start-timings.json`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../../tools/temporal-connection';
import { type Browser, type Page } from 'playwright-core';
import { getAgentState } from '../../client/agents';
import type { Conversation } from '../../simulator';
import {
  demoEnv,
  launch,
  ROOT,
  startCommand,
  textOf as text,
  untilRunning,
  type NpmStart,
} from '../support/npm-start';
import { launchChromium } from '../support/chromium';

const ARTIFACTS_DIR = path.join(ROOT, 'test-artifacts');
/** Deadline of a start (bundling the workflows, starting the dev server) and of a stop. */
const START_MS = 90_000;
const STOP_MS = 60_000;
/** Deadline of anything the page or the bot should do. */
const WAIT_MS = 20_000;

const NAME = 'Ada Lovelace';
const EMAIL = 'ada@example.com';

describe('npm start: a resumable demo (headless Chromium)', () => {
  let env: NodeJS.ProcessEnv = {};
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let current: NpmStart | undefined;
  const pageErrors: string[] = [];
  const timings: Record<string, number> = {};

  async function npmStart(): Promise<NpmStart> {
    const began = Date.now();
    const start = launch(process.execPath, startCommand(), env);
    current = start;
    await untilRunning(start, START_MS);
    timings[`start${Object.keys(timings).filter((k) => k.startsWith('start')).length + 1}Ms`] =
      Date.now() - began;
    return start;
  }

  /** Ctrl-C, as in the terminal (the dev server, in a process group of its own, is stopped by npm start). */
  async function stop(start: NpmStart): Promise<number | null> {
    const began = Date.now();
    start.child.kill('SIGINT');
    const code = await Promise.race([
      start.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`npm start still running ${STOP_MS} ms after Ctrl-C`)), STOP_MS),
      ),
    ]);
    timings[`stop${Object.keys(timings).filter((k) => k.startsWith('stop')).length + 1}Ms`] =
      Date.now() - began;
    current = undefined;
    return code;
  }

  const banner = (start: NpmStart, label: string): string => {
    const match = new RegExp(`^\\s*${label}\\s+(\\S+)\\s*$`, 'm').exec(text(start));
    if (!match) throw new Error(`no "${label}" in the banner:\n${text(start)}`);
    return match[1];
  };

  async function say(message: string): Promise<void> {
    await page.getByTestId('composer-input').fill(message);
    await page.getByTestId('send-button').click();
    await page
      .locator('[data-testid="message"][data-author="human"]:not(.pending)', { hasText: message })
      .locator('[data-testid="ticks"]')
      .waitFor();
  }

  /** Waits for the bot's message whose text matches; answers its text. */
  async function botSays(pattern: RegExp): Promise<string> {
    const message = page
      .locator('[data-testid="message"][data-author="agent"]')
      .getByTestId('message-text')
      .filter({ hasText: pattern });
    await message.first().waitFor({ timeout: WAIT_MS });
    return (await message.first().textContent()) ?? '';
  }

  async function screenshot(name: string): Promise<void> {
    await page.mouse.move(0, 0);
    const file = path.join(ARTIFACTS_DIR, `npm-start-${name}.png`);
    await page.screenshot({ path: file, animations: 'disabled' });
    expect(statSync(file).size).toBeGreaterThan(10_000);
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'amsflow-npm-start-'));
    ({ env } = await demoEnv(dataDir));
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 900, height: 820 }, colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    // Console errors are expected while npm start is down (the event stream cannot connect).
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 60_000);

  afterAll(async () => {
    if (current) {
      current.child.kill('SIGKILL');
      await current.exited;
    }
    await browser?.close();
    writeFileSync(
      path.join(ARTIFACTS_DIR, 'npm-start-timings.json'),
      `${JSON.stringify(timings, null, 2)}\n`,
    );
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The agent workflow's poll offset, from the running npm start's Temporal server. */
  async function agentOffset(): Promise<number> {
    const connection = await openConnection({ address: `127.0.0.1:${env.AMSFLOW_DEV_SERVER_PORT}` });
    try {
      const state = await getAgentState(new Client({ connection }), 'default');
      if (!state) throw new Error('the agent workflow is not running');
      return state.offset;
    } finally {
      await connection.close();
    }
  }

  it('keeps the chat and finishes a signup begun before a restart', async () => {
    const testStarted = Date.now();
    // ---- first start: a fresh demo ----
    const first = await npmStart();
    expect(text(first)).toContain('amsflow: fresh start');
    const chatUrl = banner(first, 'web chat');
    const uiUrl = banner(first, 'Temporal UI');
    expect(chatUrl).toBe(`http://127.0.0.1:${env.AMSFLOW_SIMULATOR_PORT}/`);
    expect(uiUrl).toBe(`http://127.0.0.1:${env.AMSFLOW_DEV_SERVER_UI_PORT}`);
    expect(text(first)).toMatch(/bot commands\s+echo <text>/);
    expect(text(first)).toMatch(/^\s+signup\s+\S/m);
    expect((await fetch(uiUrl)).status).toBe(200);

    await page.goto(chatUrl);
    await page.locator('[data-testid="agent-status"][data-state="online"]').waitFor();
    await say('signup');
    expect(await botSays(/What is your name\?/)).toBe('What is your name?');
    await say(NAME);
    const askEmail = await botSays(/email/i);
    expect(askEmail).toContain(NAME);
    await screenshot('1-before-stop');

    // The agent's offset just before the stop: the saved chat must hold everything it consumed.
    const offsetBeforeStop = await agentOffset();

    // ---- Ctrl-C: everything stops, and the conversation is on disk ----
    expect(await stop(first)).toBe(0);
    expect(text(first)).toContain('amsflow: stopped');
    const saved = JSON.parse(readFileSync(path.join(dataDir, 'demo', 'simulator.json'), 'utf8')) as {
      clean: boolean;
      agents: { default: { nextSeq: number } };
    };
    expect(saved.clean).toBe(true);
    const savedNextSeq = saved.agents.default.nextSeq;
    // The page left open notices.
    await page.locator('[data-testid="agent-status"][data-state="offline"]').waitFor();

    // ---- second start: the same chat, resumed ----
    const second = await npmStart();
    expect(text(second)).toContain('amsflow: resuming: 4 messages in the chat');
    expect(banner(second, 'web chat')).toBe(chatUrl);
    expect(banner(second, 'Temporal UI')).toBe(uiUrl);
    // The page left open reconnects by itself.
    await page.locator('[data-testid="agent-status"][data-state="online"]').waitFor();

    // The saved buffer holds everything the agent had consumed (nothing can be lost), and the agent
    // resumed from its offset, not from the start. (It may have moved on since: the reopened page
    // marks messages read, which are new updates.)
    expect(offsetBeforeStop).toBeGreaterThan(1);
    expect(offsetBeforeStop).toBeLessThanOrEqual(savedNextSeq);
    expect(await agentOffset()).toBeGreaterThanOrEqual(offsetBeforeStop);

    await page.reload();
    await page.locator('[data-testid="agent-status"][data-state="online"]').waitFor();
    await botSays(/email/i);
    const shown = await page.getByTestId('message-text').allTextContents();
    expect(shown).toEqual(['signup', 'What is your name?', NAME, askEmail]);
    await screenshot('2-after-restart');

    // ---- the signup begun before the restart finishes after it ----
    await say(EMAIL);
    expect(await botSays(/registered/)).toBe(`Thanks ${NAME}, registered ${EMAIL}.`);
    await page.getByTestId('typing-indicator').waitFor({ state: 'hidden' });
    await screenshot('3-end');

    // ...and nothing was handled twice: every message once, in order.
    const conversation = (await (await fetch(`${chatUrl}_control/conversation`)).json()) as Conversation;
    expect(conversation.entries.map((e) => [e.direction, (e.payload as { body?: string }).body])).toEqual([
      ['in', 'signup'],
      ['out', 'What is your name?'],
      ['in', NAME],
      ['out', askEmail],
      ['in', EMAIL],
      ['out', `Thanks ${NAME}, registered ${EMAIL}.`],
    ]);
    // The email was numbered after everything the first run saved.
    expect(conversation.entries[4].seq).toBeGreaterThanOrEqual(savedNextSeq);

    // ---- a reminder set in the web chat arrives, once ----
    await say('remind me in 5 seconds to stretch');
    expect(await botSays(/I will remind you/)).toMatch(/^OK, I will remind you at .*\(UTC\).*: stretch$/);
    expect(await botSays(/⏰ stretch/)).toMatch(/^⏰ stretch/);
    await screenshot('4-reminder');
    const reminded = (await (await fetch(`${chatUrl}_control/conversation`)).json()) as Conversation;
    const bodies = reminded.entries.map((e) => (e.payload as { body?: string }).body ?? '');
    expect(bodies.filter((b) => b.startsWith('⏰ stretch'))).toHaveLength(1);

    expect(await stop(second)).toBe(0);
    expect(pageErrors).toEqual([]);
    timings.totalMs = Date.now() - testStarted;
  }, 240_000);
});
