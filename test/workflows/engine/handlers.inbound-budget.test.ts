import { InboundBudget } from '../../../workflows/engine/handlers';

describe('the inbound budget (a flood of new messages)', () => {
  it('takes the budget per window; past it drops, telling the human once per window', () => {
    const budget = new InboundBudget(3, 60_000);
    expect([budget.admit(0), budget.admit(1), budget.admit(2)]).toEqual(['take', 'take', 'take']);
    expect(budget.admit(3)).toBe('tell');
    expect(budget.admit(4)).toBe('drop');
    expect(budget.dropped).toBe(2);
    // A minute after the first ones, there is room again; the next flood is told again.
    expect(budget.admit(60_001)).toBe('take');
    for (let i = 0; i < 2; i++) budget.admit(60_002 + i);
    expect(budget.admit(60_010)).toBe('tell');
  });

  it('with a budget of 0 takes everything, and carries its window and counts', () => {
    const off = new InboundBudget(0, 60_000);
    for (let i = 0; i < 1000; i++) expect(off.admit(i)).toBe('take');
    expect(off.snapshot()).toEqual({});
    const budget = new InboundBudget(1, 60_000);
    budget.admit(0);
    budget.admit(1);
    const next = new InboundBudget(1, 60_000, budget.snapshot());
    expect(next.admit(2)).toBe('drop');
    expect(next.dropped).toBe(2);
  });
});
