import { FirstReplyOrder } from '../../../workflows/engine/handlers';

describe('first-reply order', () => {
  it('holds a later handler’s first reply until every earlier handler sent or released', () => {
    const order = new FirstReplyOrder(30_000);
    order.hold(1, 0);
    order.hold(2, 0);
    expect(order.blocks(3)).toBe(true);
    expect(order.blocks(1)).toBe(false);
    order.release(1);
    expect(order.blocks(3)).toBe(true);
    expect(order.blocks(2)).toBe(false);
    order.release(2);
    expect(order.blocks(3)).toBe(false);
  });

  it('never holds requests that are not a handler’s first reply', () => {
    const order = new FirstReplyOrder(30_000);
    order.hold(1, 0);
    expect(order.blocks(undefined)).toBe(false);
  });

  it('lets the grace expire: a slow handler delays the others by at most graceMs', () => {
    const order = new FirstReplyOrder(30_000);
    order.hold(1, 1000);
    expect(order.nextExpiry(11_000)).toBe(20_000);
    order.expire(30_999);
    expect(order.blocks(2)).toBe(true);
    order.expire(31_000);
    expect(order.blocks(2)).toBe(false);
    expect(order.nextExpiry(31_000)).toBeUndefined();
  });

  it('carries its turns across continue-as-new', () => {
    const order = new FirstReplyOrder(30_000);
    order.hold(4, 100);
    const next = new FirstReplyOrder(30_000, order.snapshot());
    expect(next.blocks(5)).toBe(true);
    expect(next.snapshot()).toEqual([[4, 100]]);
  });
});
