import { ReceiptLedger } from '../../../workflows/engine/receipts';

const receipt = (id: string, status: string) => ({ id, status, timestamp: '1', recipient_id: 'user:1' });

describe('receipt ledger', () => {
  it('forwards receipts of a watched message to its watcher until read or failed', () => {
    const ledger = new ReceiptLedger(100);
    ledger.sent('w1');
    expect(ledger.watch('w1', 'handler-1')).toBeUndefined();
    expect(ledger.watched()).toEqual(['w1']);
    expect(ledger.receive(receipt('w1', 'sent'), 1)).toBe('handler-1');
    expect(ledger.receive(receipt('w1', 'delivered'), 2)).toBe('handler-1');
    expect(ledger.receive(receipt('w1', 'read'), 3)).toBe('handler-1');
    expect(ledger.receive(receipt('w1', 'read'), 4)).toBeUndefined();
    expect(ledger.watched()).toEqual([]);
    expect(ledger.dropped).toBe(1);
  });

  it('wakes nobody for receipts nobody watches: dropped and counted', () => {
    const ledger = new ReceiptLedger(100);
    ledger.sent('w1');
    expect(ledger.receive(receipt('w1', 'delivered'), 1)).toBeUndefined();
    expect(ledger.receive(receipt('unknown', 'read'), 1)).toBeUndefined();
    expect(ledger.dropped).toBe(2);
  });

  it('gives a watch that comes after the receipt the furthest status reached, at once', () => {
    const ledger = new ReceiptLedger(100);
    ledger.sent('w1');
    ledger.receive(receipt('w1', 'delivered'), 1);
    ledger.receive(receipt('w1', 'sent'), 2);
    expect(ledger.watch('w1', 'handler-1')).toEqual({ id: 'w1', status: 'delivered' });
    // Still watched: 'read' is to come.
    expect(ledger.receive(receipt('w1', 'read'), 3)).toBe('handler-1');
    // After 'read', nothing more comes: a late watch gets 'read' and is not kept.
    ledger.sent('w2');
    ledger.receive(receipt('w2', 'read'), 4);
    expect(ledger.watch('w2', 'handler-2')).toEqual({ id: 'w2', status: 'read' });
    expect(ledger.watched()).toEqual([]);
  });

  it('stays bounded: the oldest watches and sent ids are forgotten', () => {
    const ledger = new ReceiptLedger(3);
    for (let i = 0; i < 10; i++) {
      ledger.sent(`w${i}`);
      ledger.watch(`w${i}`, `h${i}`);
    }
    expect(ledger.snapshot().receiptRoutes.map(([id]) => id)).toEqual(['w7', 'w8', 'w9']);
    expect(ledger.snapshot().sentIds).toHaveLength(3);
  });

  it('offers an unexplained sent receipt seen after an ambiguous attempt, never one of our own sends', () => {
    const ledger = new ReceiptLedger(100);
    ledger.sent('ours');
    ledger.receive(receipt('ours', 'sent'), 50);
    ledger.receive(receipt('before', 'sent'), 90);
    expect(ledger.claimable(100)).toBeUndefined();
    ledger.receive(receipt('theirs', 'sent'), 120);
    expect(ledger.claimable(100)).toBe('theirs');
    ledger.claim('theirs');
    expect(ledger.claimable(100)).toBeUndefined();
  });
});
