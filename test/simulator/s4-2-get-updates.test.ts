/** Spec 4.2 GET /updates: parameters, responses (200/204/409), rules 1-4; page shape 2.4. */
import {
  CREATOR,
  codeOf,
  isPending,
  pageOf,
  pollIsWaiting,
  startHarness,
  timed,
  type Harness,
} from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ limits: { updates: 100_000, messages: 100_000 } });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

/** The offset just after everything currently in the sequence. */
async function tail(): Promise<number> {
  const marker = await h.sim.control.humanText('marker');
  return marker.offset + 1;
}

describe('update page (2.4)', () => {
  it('has object, entry[].id, changes[] with field messages, and value with contacts, messages, statuses', async () => {
    const { id } = await h.sim.control.humanText('hi');
    const reply = await h.agent.poll({ offset: 0, timeout: 0 });
    expect(reply.status).toBe(200);
    expect(typeof reply.json.object).toBe('string');
    expect(reply.json.entry).toHaveLength(1);
    expect(typeof reply.json.entry[0].id).toBe('string');
    const change = reply.json.entry[0].changes[0];
    expect(change.field).toBe('messages');
    expect(typeof change.value.messaging_product).toBe('string');
    expect(change.value.contacts).toEqual([{ wa_id: CREATOR, profile: { name: 'Ada' } }]);
    expect(change.value.messages).toEqual([
      { from: CREATOR, id, timestamp: expect.stringMatching(/^\d+$/), type: 'text', text: { body: 'hi' } },
    ]);
    expect(change.value.statuses).toEqual([]);
    expect(Number.isInteger(reply.json.next_offset)).toBe(true);
  });

  it('gives a timestamp of decimal epoch seconds close to the simulated now', async () => {
    await h.sim.control.humanText('when?');
    const { now } = await h.sim.control.clock();
    const message = pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).messages[0];
    expect(Math.abs(Number(message.timestamp) - now / 1000)).toBeLessThan(5);
  });

  it('puts messages and receipts in one numbered sequence, in arrival order', async () => {
    const first = await h.sim.control.humanText('one');
    await h.agent.sendTextId('reply');
    const third = await h.sim.control.humanText('two');
    expect(third.offset).toBeGreaterThan(first.offset + 1);
    const page = pageOf(await h.agent.poll({ offset: first.offset + 1, timeout: 0 }));
    expect(page.messages.map((m) => m.text.body)).toEqual(['two']);
    expect(page.statuses.map((s) => s.status)).toContain('sent');
  });

  it('sets next_offset to the sequence number after the last entry returned', async () => {
    await h.sim.control.humanText('a');
    const b = await h.sim.control.humanText('b');
    expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).nextOffset).toBe(b.offset + 1);
  });
});

describe('parameters', () => {
  it('returns entries from offset on', async () => {
    await h.sim.control.humanText('a');
    const b = await h.sim.control.humanText('b');
    const page = pageOf(await h.agent.poll({ offset: b.offset, timeout: 0 }));
    expect(page.messages.map((m) => m.text.body)).toEqual(['b']);
  });

  it('defaults limit to 50', async () => {
    for (let i = 0; i < 55; i++) await h.sim.control.humanText(`m${i}`);
    const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
    expect(page.messages).toHaveLength(50);
    expect(page.messages[49].text.body).toBe('m49');
  });

  it('honours a smaller limit and continues at next_offset', async () => {
    for (let i = 0; i < 5; i++) await h.sim.control.humanText(`m${i}`);
    const first = pageOf(await h.agent.poll({ offset: 0, timeout: 0, limit: 2 }));
    expect(first.messages.map((m) => m.text.body)).toEqual(['m0', 'm1']);
    const second = pageOf(await h.agent.poll({ offset: first.nextOffset, timeout: 0, limit: 2 }));
    expect(second.messages.map((m) => m.text.body)).toEqual(['m2', 'm3']);
  });

  it('clamps limit to its upper bound of 100', async () => {
    for (let i = 0; i < 105; i++) await h.sim.control.humanText(`m${i}`);
    expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0, limit: 1000 })).messages).toHaveLength(100);
  });

  it.each([
    ['offset', '-1'],
    ['offset', 'abc'],
    ['offset', '1.5'],
    ['limit', '0'],
    ['limit', '-3'],
    ['limit', 'ten'],
    ['timeout', '26'],
    ['timeout', '-1'],
    ['timeout', '2.5'],
    ['timeout', ''],
  ])('rejects %s=%j with 400 and an error object', async (name, value) => {
    const reply = await h.agent.request('GET', `/updates?${name}=${encodeURIComponent(value)}`);
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it('accepts timeout=25, the maximum', async () => {
    const { sim, agent } = await startHarness({ clock: { speed: 1000 } });
    try {
      expect((await agent.poll({ offset: 0, timeout: 25 })).status).toBe(204);
    } finally {
      await sim.close();
    }
  });

  it('waits simulated seconds: at speed 50 the default 15 s take 300 real ms and timeout=25 takes 500', async () => {
    // Exact boundaries are checked on a frozen clock in s8-constants; this checks the speed factor.
    const { sim, agent } = await startHarness({ clock: { speed: 50 } });
    try {
      const byDefault = await timed(agent.poll({ offset: 0 }));
      expect(byDefault.value.status).toBe(204);
      expect(byDefault.ms).toBeGreaterThanOrEqual(290);
      expect(byDefault.ms).toBeLessThan(5000);
      const longest = await timed(agent.poll({ offset: 0, timeout: 25 }));
      expect(longest.value.status).toBe(204);
      expect(longest.ms).toBeGreaterThanOrEqual(490);
      expect(longest.ms).toBeLessThan(5000);
    } finally {
      await sim.close();
    }
  });

  it('answers at once with timeout=0', async () => {
    const offset = await tail();
    const { value, ms } = await timed(h.agent.poll({ offset, timeout: 0 }));
    expect(value.status).toBe(204);
    expect(ms).toBeLessThan(1000);
  });
});

describe('responses', () => {
  it('answers 204 with no body and no next_offset when the timeout passes without traffic', async () => {
    const offset = await tail();
    const poll = h.agent.poll({ offset, timeout: 10 });
    await pollIsWaiting(h.sim);
    await h.sim.control.advanceClock(10_000);
    const reply = await poll;
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
  });

  it('wakes a long poll as soon as a new entry arrives', async () => {
    const offset = await tail();
    const poll = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    expect(await isPending(poll)).toBe(true);
    const started = performance.now();
    const { id } = await h.sim.control.humanText('wake up');
    const reply = await poll;
    // Far below the 25 s the poll would otherwise wait.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(pageOf(reply).messages.map((m) => m.id)).toEqual([id]);
  });

  it('wakes a long poll for a receipt too', async () => {
    const offset = await tail();
    const poll = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    const sent = await h.agent.sendTextId('hi');
    expect(pageOf(await poll).statuses[0]).toMatchObject({ id: sent, status: 'sent' });
  });

  it('answers 409 to the older of two concurrent polls (rule 1) and serves the newer', async () => {
    const offset = await tail();
    const older = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    const newer = h.agent.poll({ offset, timeout: 25 });
    const replaced = await older;
    expect(replaced.status).toBe(409);
    expect(typeof codeOf(replaced)).toBe('number');
    expect(await isPending(newer)).toBe(true);
    await h.sim.control.humanText('for the newer poll');
    expect(pageOf(await newer).messages).toHaveLength(1);
  });

  it('answers 409 to a long poll replaced by an immediate poll', async () => {
    const offset = await tail();
    const older = h.agent.poll({ offset, timeout: 25 });
    await pollIsWaiting(h.sim);
    expect((await h.agent.poll({ offset, timeout: 0 })).status).toBe(204);
    expect((await older).status).toBe(409);
  });

  it('waits on an offset beyond the end of the sequence until traffic reaches it', async () => {
    const offset = await tail();
    const poll = h.agent.poll({ offset: offset + 1, timeout: 25 });
    await pollIsWaiting(h.sim);
    await h.sim.control.humanText('at offset');
    expect(await isPending(poll)).toBe(true);
    const { id } = await h.sim.control.humanText('after offset');
    expect(pageOf(await poll).messages.map((m) => m.id)).toEqual([id]);
  });
});

describe('rules', () => {
  it('rule 2: the service does not track what was handled; the same offset returns the same entries', async () => {
    await h.sim.control.humanText('a');
    const first = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
    const again = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
    expect(again.messages).toEqual(first.messages);
    expect(again.nextOffset).toBe(first.nextOffset);
  });

  it('rule 2: after a 204 the same offset returns the traffic that arrived since', async () => {
    const offset = await tail();
    expect((await h.agent.poll({ offset, timeout: 0 })).status).toBe(204);
    const { id } = await h.sim.control.humanText('later');
    expect(pageOf(await h.agent.poll({ offset, timeout: 0 })).messages[0].id).toBe(id);
  });

  it('rule 3: polling does not consume entries', async () => {
    const { id } = await h.sim.control.humanText('still here');
    for (let i = 0; i < 3; i++) {
      expect(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })).messages.map((m) => m.id)).toContain(id);
    }
  });

  it('rule 4: offset=0&timeout=0 reveals the creator to a client that has never polled, with no traffic', async () => {
    const { sim, agent } = await startHarness({
      agents: [{ id: 'fresh', token: 't-fresh', creator: 'user:77', creatorName: 'Grace' }],
    });
    try {
      const reply = await agent.poll({ offset: 0, timeout: 0 });
      expect(reply.status).toBe(200);
      const page = pageOf(reply);
      expect(page.contacts).toEqual([{ wa_id: 'user:77', profile: { name: 'Grace' } }]);
      expect([page.messages, page.statuses, page.nextOffset]).toEqual([[], [], 0]);
    } finally {
      await sim.close();
    }
  });
});
