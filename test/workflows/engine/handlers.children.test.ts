import { HandlerChildren } from '../../../workflows/engine/handlers';

describe('handler children that may complete into this run', () => {
  it('a started handler is young until it completes, hands over by signal, or is told to move', () => {
    const children = new HandlerChildren();
    children.starting('h1');
    children.starting('h2');
    // A start not yet answered is not told to move (continue-as-new waits for the start).
    expect(children.youngIds()).toEqual([]);
    expect(children.size).toBe(2);
    children.started('h1');
    children.started('h2');
    expect(children.youngIds()).toEqual(['h1', 'h2']);
    children.gone('h1');
    expect(children.youngIds()).toEqual(['h2']);
    expect(children.has('h1')).toBe(false);
    expect(children.has('h2')).toBe(true);
    // A duplicate start (handled before) leaves at once.
    children.starting('h3');
    children.gone('h3');
    expect(children.size).toBe(1);
  });
});
