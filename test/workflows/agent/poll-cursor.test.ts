import { PollCursor } from '../../../workflows/agent/poll-cursor';
import type { InboundMessage } from '../../../workflows/types';

const msg = (id: string, from = 'user:1') =>
  ({ id, from, timestamp: '1', type: 'text', text: { body: id } }) as InboundMessage;

describe('poll cursor', () => {
  it('starts at offset 0 with timeout 0 (the creator is revealed), then long-polls', () => {
    const cursor = new PollCursor(10);
    expect([cursor.offset, cursor.timeoutSeconds(25)]).toEqual([0, 0]);
    cursor.completed(100);
    expect(cursor.timeoutSeconds(25)).toBe(25);
    expect(cursor.lastPollStartedAt).toBe(100);
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
