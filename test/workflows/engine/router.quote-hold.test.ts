import { mustHold, pageWaits, quotesUnsettled, type QuoteView } from '../../../workflows/engine/router';
import type { InboundMessage } from '../../../protocol';

const message = (extra: Partial<InboundMessage>): InboundMessage => ({
  from: 'user:1',
  id: 'in-1',
  timestamp: '1',
  type: 'text',
  text: { body: 'yes' },
  ...extra,
});

const view = (known: string[], waited: string[]): QuoteView => ({
  knowsSent: (id) => known.includes(id),
  waitsFor: (id) => waited.includes(id),
  sending: true,
});

describe('quote hold', () => {
  it('flags a quote or reaction of an id the agent neither sent nor waits on', () => {
    const quote = message({ context: { from: 'agent:1', id: 'out-9' } });
    const react = message({ type: 'reaction', reaction: { message_id: 'out-9', emoji: '👍' } });
    expect(quotesUnsettled(view([], []), quote)).toBe(true);
    expect(quotesUnsettled(view([], []), react)).toBe(true);
    // Known as sent, or a wait registered for it: it routes now.
    expect(quotesUnsettled(view(['out-9'], []), quote)).toBe(false);
    expect(quotesUnsettled(view([], ['out-9']), react)).toBe(false);
  });

  it('never flags a message that quotes nothing', () => {
    expect(quotesUnsettled(view([], []), message({}))).toBe(false);
  });
});

describe('quote hold: page and message decisions', () => {
  const quoting = message({ id: 'in-2', context: { from: 'agent:1', id: 'out-9' } });
  const bare = message({ id: 'in-3' });
  const inFlight = (extra: Partial<QuoteView>): QuoteView => ({ ...view([], []), ...extra });

  it('makes a page wait when one of its messages may answer the send in flight', () => {
    expect(pageWaits(inFlight({}), [bare, quoting])).toBe(true);
    expect(pageWaits(inFlight({ questionInFlight: true }), [bare])).toBe(true);
    expect(pageWaits(inFlight({ questionInFlight: false }), [bare])).toBe(false);
    // Nothing in flight: nothing to wait for, whatever the page quotes.
    expect(pageWaits(inFlight({ sending: false, questionInFlight: true }), [bare, quoting])).toBe(false);
  });

  it('holds such a message alone only while that send is being reconciled', () => {
    expect(mustHold(inFlight({}), quoting)).toBe(false);
    expect(mustHold(inFlight({ reconciling: true }), quoting)).toBe(true);
    expect(mustHold(inFlight({ reconciling: true }), bare)).toBe(false);
    expect(mustHold(inFlight({ reconciling: true, questionInFlight: true }), bare)).toBe(true);
  });
});
