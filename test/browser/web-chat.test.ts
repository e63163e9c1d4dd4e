/**
 * The web chat for the human side, driven in real headless Chromium (Debian's `chromium`,
 * through playwright-core; no browser download). The test plays the agent over real HTTP
 * against the simulator's agent API, and the human through the page.
 * Over 300 lines: one end-to-end scenario in one browser, with the agent-side client it drives.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { MESSAGING_PRODUCT, startSimulator, type RunningSimulator } from '../../simulator';
import { launchChromium } from '../support/chromium';

const ARTIFACTS_DIR = path.resolve(__dirname, '..', '..', 'test-artifacts');
const SCREENSHOT = path.join(ARTIFACTS_DIR, 'web-chat.png');
const PHONE_SCREENSHOT = path.join(ARTIFACTS_DIR, 'web-chat-phone.png');
/** Deadline for any one condition the page or the agent API should reach. */
const WAIT_MS = 10_000;

interface UpdateMessage {
  from: string;
  id: string;
  type: string;
  text?: { body: string };
  image?: { id: string; mime_type: string; caption?: string };
  reaction?: { message_id: string; emoji: string };
  context?: { from?: string; id: string };
}
interface UpdateStatus {
  id: string;
  status: string;
}
interface UpdatePage {
  entry: {
    changes: {
      value: { contacts?: { wa_id: string }[]; messages?: UpdateMessage[]; statuses?: UpdateStatus[] };
    }[];
  }[];
  next_offset: number;
}

/** The agent's side: a minimal client of the agent API, over real HTTP. */
class Agent {
  private offset = 0;
  readonly messages: UpdateMessage[] = [];
  readonly statuses: UpdateStatus[] = [];
  creator: string | undefined;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private async request(method: string, route: string, body?: unknown): Promise<Response> {
    return fetch(`${this.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** One GET /updates from the current offset; remembers what it saw. */
  async poll(timeoutSeconds: number): Promise<void> {
    const res = await this.request('GET', `/updates?offset=${this.offset}&timeout=${timeoutSeconds}`);
    if (res.status === 204) return;
    if (res.status !== 200) throw new Error(`GET /updates: HTTP ${res.status} ${await res.text()}`);
    const page = (await res.json()) as UpdatePage;
    for (const entry of page.entry) {
      for (const change of entry.changes) {
        const value = change.value;
        if (value.contacts?.[0]) this.creator = value.contacts[0].wa_id;
        this.messages.push(...(value.messages ?? []));
        this.statuses.push(...(value.statuses ?? []));
      }
    }
    this.offset = page.next_offset;
  }

  /** Long-polls until `found` returns something, within a deadline. */
  async waitFor<T>(what: string, found: () => T | undefined): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const hit = found();
      if (hit !== undefined) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`agent: timed out waiting for ${what}`);
      await this.poll(Math.max(1, Math.min(5, Math.floor(left / 1000))));
    }
  }

  async statusesCall(body: Record<string, unknown>): Promise<void> {
    const res = await this.request('POST', '/statuses', { messaging_product: MESSAGING_PRODUCT, ...body });
    if (res.status !== 200) throw new Error(`POST /statuses: HTTP ${res.status} ${await res.text()}`);
  }

  async send(body: Record<string, unknown>): Promise<string> {
    const res = await this.request('POST', '/messages', {
      messaging_product: MESSAGING_PRODUCT,
      to: this.creator,
      ...body,
    });
    if (res.status !== 200) throw new Error(`POST /messages: HTTP ${res.status} ${await res.text()}`);
    const result = (await res.json()) as { messages: { id: string }[] };
    return result.messages[0].id;
  }
}

/** Page-side helpers (chat-page-helpers.js), reached through `globalThis.chatTest` in the page. */
interface ChatTestHelpers {
  drawPicture(): Promise<number[]>;
  watchTicks(): void;
  ticksShown(id: string): string[];
  pictureLoaded(id: string, width: number): boolean;
}
type PageGlobal = { chatTest: ChatTestHelpers };
const HELPERS = path.join(__dirname, 'chat-page-helpers.js');

const bubble = (page: Page, id: string): Locator => page.locator(`[data-testid="message"][data-id="${id}"]`);

/** Which side of the conversation a message is drawn on: the edge its bubble hugs. */
async function sideOf(page: Page, message: Locator): Promise<'left' | 'right'> {
  const list = await page.getByTestId('message-list').boundingBox();
  const box = await message.locator('.bubble').boundingBox();
  if (!list || !box) throw new Error('message not laid out');
  const gapLeft = box.x - list.x;
  const gapRight = list.x + list.width - (box.x + box.width);
  if (Math.min(gapLeft, gapRight) > 40 || Math.abs(gapLeft - gapRight) < 40) {
    throw new Error(`message hugs neither edge (gaps ${gapLeft}px, ${gapRight}px)`);
  }
  return gapLeft < gapRight ? 'left' : 'right';
}

describe('web chat for the human side (headless Chromium)', () => {
  let sim: RunningSimulator;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, receipts: { deliveredAfterMs: 50 } });
    // chromium.launch runs the browser on a fresh temporary --user-data-dir of its own and
    // removes it on close (it refuses an explicit --user-data-dir argument).
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1000, height: 880 }, colorScheme: 'light' });
    await context.addInitScript({ path: HELPERS });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await sim?.close();
  });

  it('shows a live conversation: sending, typing, a quoted reply with ticks, reactions, media', async () => {
    const agent = new Agent(sim.url, sim.token);
    await page.goto(sim.chat);
    await page.locator('[data-testid="agent-status"][data-state="online"]').waitFor();
    expect(await page.getByTestId('agent-name').textContent()).toBe('Demo');
    expect(await page.getByTestId('human-name').textContent()).toBe('Ada');

    // The human sends a message; it shows on the right once the simulator has it.
    const question = 'Hi! Could you send me the numbers for the third quarter?';
    await page.getByTestId('composer-input').fill(question);
    await page.getByTestId('send-button').click();
    const mine = page.locator('[data-testid="message"][data-author="human"]:not(.pending)', {
      hasText: question,
    });
    await mine.locator('[data-testid="ticks"][data-status="sent"]').waitFor();
    expect(await sideOf(page, mine)).toBe('right');
    const questionId = await mine.getAttribute('data-id');

    // The agent finds it (and the creator's id) with the discovery poll.
    const inbound = await agent.waitFor('the human message', () =>
      agent.messages.find((m) => m.type === 'text' && m.text?.body === question),
    );
    expect(inbound.id).toBe(questionId);
    expect(agent.creator).toBe(inbound.from);

    // Typing indicator (WIRE-CONVENTIONS: the mark-read body plus typing_indicator): dots show,
    // the header says so, and the human's message turns read (blue ticks).
    await agent.statusesCall({ status: 'read', message_id: inbound.id, typing_indicator: { type: 'text' } });
    await page.getByTestId('typing-indicator').waitFor({ state: 'visible' });
    expect(await page.getByTestId('typing-indicator').locator('.dot').count()).toBe(3);
    await page.locator('[data-testid="agent-status"][data-state="typing"]').waitFor();
    await mine.locator('[data-testid="ticks"][data-status="read"]').waitFor();

    // Record every tick state the page shows for the agent's messages from now on.
    await page.evaluate(() => (globalThis as unknown as PageGlobal).chatTest.watchTicks());

    // The agent replies, quoting the question.
    const answer = 'Sure, Ada! Revenue was up 12% and costs down 3%. The full report follows by mail.';
    const replyId = await agent.send({
      type: 'text',
      text: { body: answer },
      context: { message_id: inbound.id },
    });
    const reply = bubble(page, replyId);
    await reply.waitFor();
    expect(await sideOf(page, reply)).toBe('left');
    expect(await reply.getByTestId('message-text').textContent()).toBe(answer);
    expect(await reply.getByTestId('quote').getAttribute('data-quoted-id')).toBe(inbound.id);
    expect(await reply.getByTestId('quote-text').textContent()).toBe(question);
    await page.getByTestId('typing-indicator').waitFor({ state: 'hidden' });

    // The page is visible, so the human reads it: delivered, then read (blue ticks).
    await reply.locator('[data-testid="ticks"][data-status="read"]').waitFor();
    expect(await reply.getByTestId('ticks').getAttribute('aria-label')).toBe('Read');
    const shown = await page.evaluate(
      (id) => (globalThis as unknown as PageGlobal).chatTest.ticksShown(id),
      replyId,
    );
    expect(shown).toContain('delivered');
    expect(shown.indexOf('delivered')).toBeLessThan(shown.lastIndexOf('read'));
    const receipts = await agent.waitFor('the read receipt', () => {
      const mineOnly = agent.statuses.filter((s) => s.id === replyId).map((s) => s.status);
      return mineOnly.includes('read') ? mineOnly : undefined;
    });
    expect(receipts).toEqual(['sent', 'delivered', 'read']);

    // The human reacts to the reply with the emoji picker; the agent gets the reaction.
    await reply.hover();
    await reply.getByTestId('react-button').click();
    await page.getByTestId('emoji-picker').locator('button[data-emoji="❤️"]').click();
    await reply.locator('[data-testid="reaction"][data-emoji="❤️"]').waitFor();
    const reaction = await agent.waitFor('the reaction', () =>
      agent.messages.find((m) => m.type === 'reaction'),
    );
    expect(reaction.reaction).toEqual({ message_id: replyId, emoji: '❤️' });

    // The human sends a picture with a caption; it shows inline, loaded from the simulator.
    const caption = 'And this is the view from the office today';
    await page.getByTestId('file-input-media').setInputFiles({
      name: 'view.png',
      mimeType: 'image/png',
      buffer: Buffer.from(
        await page.evaluate(() => (globalThis as unknown as PageGlobal).chatTest.drawPicture()),
      ),
    });
    await page.getByTestId('attachment-bar').waitFor();
    await page.getByTestId('composer-input').fill(caption);
    await page.getByTestId('composer-input').press('Enter');
    const picture = await agent.waitFor('the picture', () => agent.messages.find((m) => m.type === 'image'));
    expect(picture.image).toMatchObject({ mime_type: 'image/png', caption });
    const pictureBubble = bubble(page, picture.id);
    await pictureBubble.locator('img.media-img[src*="_control/media/"]').waitFor();
    await page.waitForFunction(
      (id) => (globalThis as unknown as PageGlobal).chatTest.pictureLoaded(id, 480),
      picture.id,
      { timeout: WAIT_MS },
    );
    expect(await sideOf(page, pictureBubble)).toBe('right');

    // The human replies to the agent's message through the quote bar.
    await reply.hover();
    await reply.getByTestId('reply-button').click();
    await page.getByTestId('quote-bar').waitFor();
    await page.getByTestId('composer-input').fill('Brilliant, thank you!');
    await page.getByTestId('send-button').click();
    await page.getByTestId('quote-bar').waitFor({ state: 'hidden' });
    const thanks = await agent.waitFor('the quoting message', () =>
      agent.messages.find((m) => m.type === 'text' && m.text?.body === 'Brilliant, thank you!'),
    );
    expect(thanks.context).toMatchObject({ id: replyId });
    await bubble(page, thanks.id).getByTestId('quote').waitFor();

    // Show the agent typing again for the picture of the finished conversation.
    await agent.statusesCall({ status: 'read', message_id: thanks.id, typing_indicator: { type: 'text' } });
    await page.getByTestId('typing-indicator').waitFor({ state: 'visible' });
    await bubble(page, thanks.id).locator('[data-testid="ticks"][data-status="read"]').waitFor();
    await page.mouse.move(0, 0);

    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, animations: 'disabled' });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);

    // The same conversation on a phone-sized screen, opened fresh: it loads everything at once.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: 'light',
    });
    try {
      await phone.addInitScript({ path: HELPERS });
      const phonePage = await phone.newPage();
      phonePage.setDefaultTimeout(WAIT_MS);
      phonePage.on('pageerror', (err) => pageErrors.push(`phone pageerror: ${err.message}`));
      await phonePage.goto(sim.chat);
      await bubble(phonePage, thanks.id).getByTestId('quote').waitFor();
      await phonePage.getByTestId('typing-indicator').waitFor({ state: 'visible' });
      await phonePage.waitForFunction(
        (id) => (globalThis as unknown as PageGlobal).chatTest.pictureLoaded(id, 480),
        picture.id,
        { timeout: WAIT_MS },
      );
      expect(await sideOf(phonePage, bubble(phonePage, thanks.id))).toBe('right');
      expect(await sideOf(phonePage, bubble(phonePage, replyId))).toBe('left');
      await phonePage.screenshot({ path: PHONE_SCREENSHOT, animations: 'disabled' });
      expect(statSync(PHONE_SCREENSHOT).size).toBeGreaterThan(20_000);
    } finally {
      await phone.close();
    }

    expect(pageErrors).toEqual([]);
  });

  it('names the bot in the header, never "You are You"', async () => {
    const named = await startSimulator({
      port: 0,
      agents: [
        {
          id: 'default',
          token: 'named-token',
          creator: 'user:1001',
          creatorName: 'You',
          name: 'reference bot',
        },
      ],
    });
    const other = await context.newPage();
    try {
      other.setDefaultTimeout(WAIT_MS);
      await other.goto(named.chat);
      await other.locator('[data-testid="agent-status"][data-state="online"]').waitFor();
      expect(await other.getByTestId('agent-name').textContent()).toBe('Reference bot');
      expect(await other.getByTestId('human-identity').isHidden()).toBe(true);
      expect(await other.getByTestId('chat-header').innerText()).not.toMatch(/You are/);
    } finally {
      await other.close();
      await named.close();
    }
  });
});
