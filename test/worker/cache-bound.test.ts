import { cacheBound } from '../../worker/cache-bound';

describe("the workflow cache's bound", () => {
  it('follows the heap limit: 40 % of it at 1 MB a workflow, at least 10', () => {
    const MB = 1024 * 1024;
    expect(cacheBound(1024 * MB)).toBe(409);
    expect(cacheBound(4096 * MB)).toBe(1638);
    expect(cacheBound(8 * MB)).toBe(10);
    expect(cacheBound(1024 * MB, 0.1)).toBe(102);
  });
});
