/** The memory bound: the newest whole turns within the turn and byte bounds (pure). */
import { bound, clampLimits, turnBytes, utf8Bytes } from '../../../workflows/models/memory-rules';
import type { MemoryTurn } from '../../../protocol/models';

const turn = (n: number, text = `Q${n}`): MemoryTurn => ({
  id: `t${n}`,
  at: n,
  messages: [
    { role: 'user', text },
    { role: 'assistant', text: `A${n}` },
  ],
});

describe('memory bound', () => {
  it('counts UTF-8 bytes', () => {
    expect([utf8Bytes('a'), utf8Bytes('é'), utf8Bytes('€'), utf8Bytes('😀')]).toEqual([1, 2, 3, 4]);
    expect(turnBytes(turn(1))).toBe(utf8Bytes(JSON.stringify(turn(1))));
  });

  it('keeps the newest turns up to the turn bound, in order, and counts the dropped', () => {
    const turns = [1, 2, 3, 4, 5].map((n) => turn(n));
    const { kept, dropped, bytes } = bound(turns, { turns: 3, bytes: 1 << 20 });
    expect(kept.map((t) => t.id)).toEqual(['t3', 't4', 't5']);
    expect(dropped).toBe(2);
    expect(bytes).toBe(kept.reduce((sum, t) => sum + turnBytes(t), 0));
  });

  it('keeps whole turns within the byte bound; a turn larger than the bound is not kept', () => {
    const size = turnBytes(turn(1));
    const turns = [1, 2, 3].map((n) => turn(n));
    expect(bound(turns, { turns: 10, bytes: size * 2 }).kept.map((t) => t.id)).toEqual(['t2', 't3']);
    const huge = turn(4, 'x'.repeat(5000));
    expect(bound([...turns, huge], { turns: 10, bytes: 2048 })).toMatchObject({
      kept: [],
      dropped: 4,
      bytes: 0,
    });
  });

  it('clamps limits to whole numbers within 1 turn, 1 KiB and 256 KiB', () => {
    expect(clampLimits({ turns: 0, bytes: 10 })).toEqual({ turns: 1, bytes: 1024 });
    expect(clampLimits({ turns: 2.7, bytes: 1e9 })).toEqual({ turns: 2, bytes: 256 * 1024 });
  });
});
