import { OpenPoll } from '../../../workflows/engine/poll-rules';
import { ReceiptLedger, Receipts } from '../../../workflows/engine/receipts';
import { SignalTracker } from '../../../workflows/engine/lifecycle';
import { Tally } from '../../../workflows/engine/agent-status';

const sent = (id: string) => ({ id, status: 'sent', timestamp: '1', recipient_id: 'user:1' });

describe('receipts a poll brings', () => {
  const parts = (now: number) => {
    const ledger = new ReceiptLedger(100);
    const tally = new Tally();
    return {
      ledger,
      tally,
      receipts: new Receipts({
        tally,
        ledger,
        poll: new OpenPoll(),
        signals: new SignalTracker(),
        now: () => now,
      }),
    };
  };

  it('a receipt a quiet poll read past before an ambiguous attempt is no evidence for it, however late it is booked', () => {
    // An earlier send's unexplained 'sent' receipt, read past at 1000 and booked at 9000 (the quiet
    // poll ended then); an ambiguous attempt made at 5000 cannot claim it as its own.
    const { ledger, receipts, tally } = parts(9000);
    receipts.receive(sent('wamid.earlier'), 1000);
    expect(ledger.claimable(5000)).toBeUndefined();
    expect(ledger.claimable(1000)).toBe('wamid.earlier');
    expect(tally.snapshot().receipts).toBe(1);
  });

  it('dates a receipt read now, or one whose read time is later than now (a clock ahead), at now', () => {
    const { ledger, receipts } = parts(9000);
    receipts.receive(sent('wamid.now'));
    receipts.receive(sent('wamid.ahead'), 9500);
    expect(ledger.claimable(9000)).toBe('wamid.now');
    ledger.claim('wamid.now');
    expect(ledger.claimable(9000)).toBe('wamid.ahead');
    expect(ledger.claimable(9001)).toBeUndefined();
  });
});
