import { PollCursor, readToEnd } from '../../../workflows/engine/poll-rules';
import type { InboundMessage } from '../../../protocol';

const msg = (id: string, from = 'user:1') =>
  ({ id, from, timestamp: '1', type: 'text', text: { body: id } }) as InboundMessage;

/** A page of `items` messages read at offset 0 (`extra`: misfits, a reread). */
const page = (items: number, extra: object = {}) => ({
  status: 'page' as const,
  nextOffset: items,
  messages: Array.from({ length: items }, (_, i) => msg(`m${i}`)),
  statuses: [],
  contacts: [],
  startedAt: 0,
  ...extra,
});
describe('poll cursor', () => {
  it('starts at offset 0 with timeout 0 (the creator is revealed), then long-polls', () => {
    const cursor = new PollCursor(10);
    expect([cursor.offset, cursor.timeoutSeconds(25)]).toEqual([0, 0]);
    cursor.completed(100);
    expect(cursor.timeoutSeconds(25)).toBe(25);
    expect(cursor.lastPollStartedAt).toBe(100);
  });

  it('moves the reconciliation fence only with a poll that read to the end of the stream', () => {
    const cursor = new PollCursor(10);
    cursor.completed(100);
    // A full page (the receipt may be on the next) or a 409 (nothing read) proves nothing.
    cursor.completed(200, false);
    expect(cursor.lastPollStartedAt).toBe(100);
    expect(cursor.firstPollDone).toBe(true);
    cursor.completed(300, true);
    expect(cursor.lastPollStartedAt).toBe(300);
  });

  it('tells a poll that read to the end of the stream: empty, or a page shorter than the limit', () => {
    expect(readToEnd({ status: 'empty', startedAt: 0 }, 3)).toBe(true);
    expect(readToEnd(page(2), 3)).toBe(true);
    expect(readToEnd(page(3), 3)).toBe(false);
    expect(readToEnd({ status: 'replaced', startedAt: 0 }, 3)).toBe(false);
  });

  it('counts a member left out as one that took its place, and a page read again smaller by its own limit', () => {
    const skipped = (kind: 'message' | 'status' | 'contact') => ({
      kind,
      action: 'skipped' as const,
      problems: ['id'],
      bytes: 9,
    });
    // Two messages and one left out fill a page of 3: there may be more.
    expect(readToEnd(page(2, { misfits: [skipped('message')] }), 3)).toBe(false);
    // A contact is no item of the stream: it takes no place.
    expect(readToEnd(page(2, { misfits: [skipped('contact')] }), 3)).toBe(true);
    // Read again with limit 1 (the page was too large): one message is a full page.
    expect(readToEnd(page(1, { reread: { limit: 1, polls: 2 } }), 100)).toBe(false);
  });

  it('dispatches a message once even when its page is read again', () => {
    const cursor = new PollCursor(10);
    expect(cursor.fresh([msg('a'), msg('b')]).map((m) => m.id)).toEqual(['a', 'b']);
    cursor.dispatched('a');
    expect(cursor.fresh([msg('a'), msg('b')]).map((m) => m.id)).toEqual(['b']);
  });

  it('keeps the offset until a page is handled, then moves to next_offset', () => {
    const cursor = new PollCursor(10);
    cursor.advance(7);
    expect(cursor.offset).toBe(7);
  });

  it('takes the recipient from the page’s contacts, else its last sender', () => {
    const cursor = new PollCursor(10, undefined, 'user:configured');
    cursor.seePage({ contacts: [], messages: [msg('a', 'user:2')] });
    expect(cursor.recipient).toBe('user:2');
    cursor.seePage({
      contacts: [{ wa_id: 'user:3', profile: { name: 'x' } }],
      messages: [msg('b', 'user:2')],
    });
    expect(cursor.recipient).toBe('user:3');
  });

  it('carries a poll retry time to the next run, and nothing once a poll succeeded', () => {
    const cursor = new PollCursor(2);
    cursor.retryAt = 1234;
    const next = new PollCursor(2, cursor.snapshot());
    expect(next.retryAt).toBe(1234);
    next.retryAt = undefined;
    expect(next.snapshot()).not.toHaveProperty('retryAt');
  });

  it('carries its state, the recent ids trimmed to their bound', () => {
    const cursor = new PollCursor(2, {
      offset: 5,
      firstPollDone: true,
      recentInbound: ['a', 'b', 'c'],
      lastPollStartedAt: 9,
    });
    expect(cursor.snapshot()).toEqual({
      offset: 5,
      firstPollDone: true,
      recipient: undefined,
      recentInbound: ['b', 'c'],
      lastPollStartedAt: 9,
    });
  });
});
