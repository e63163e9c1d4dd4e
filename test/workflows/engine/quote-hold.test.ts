import { quotesUnsettled, type QuoteView } from '../../../workflows/engine/quote-hold';
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
