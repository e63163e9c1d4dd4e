import { BoundedMap } from '../../../workflows/engine/bounds';

describe('BoundedMap', () => {
  it('forgets the oldest entries beyond its limit', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('trims entries carried over continue-as-new to its limit', () => {
    const carried: [string, number][] = Array.from({ length: 10 }, (_, i) => [`k${i}`, i]);
    const map = new BoundedMap<string, number>(3, carried);
    expect([...map.keys()]).toEqual(['k7', 'k8', 'k9']);
  });

  it('makes a key set again the newest', () => {
    const map = new BoundedMap<string, number>(2, [
      ['a', 1],
      ['b', 2],
    ]);
    map.set('a', 10).set('c', 3);
    expect([...map.entries()]).toEqual([
      ['a', 10],
      ['c', 3],
    ]);
  });
});
