import { askAgainOnRebuild, isGuardRefusal } from '../../protocol/queries';

describe('asking a query again after the activation guard refused it', () => {
  const refusal = (words: string) => new Error(`Query failed: ${words} details`);

  it('knows the refusals of both rules, also wrapped as a cause', () => {
    expect(isGuardRefusal(refusal('stale workflow clock:'))).toBe(true);
    expect(isGuardRefusal(refusal('query on a rebuilt run:'))).toBe(true);
    expect(isGuardRefusal(new Error('outer', { cause: refusal('query on a rebuilt run:') }))).toBe(true);
    expect(isGuardRefusal(new Error('workflow not found'))).toBe(false);
    expect(isGuardRefusal('query on a rebuilt run:')).toBe(false);
  });

  it('asks once more after a refusal, and only then', async () => {
    let asked = 0;
    const answer = await askAgainOnRebuild(async () => {
      asked++;
      if (asked === 1) throw refusal('query on a rebuilt run:');
      return 'state';
    });
    expect([answer, asked]).toEqual(['state', 2]);

    let failed = 0;
    const other = askAgainOnRebuild(async () => {
      failed++;
      throw new Error('workflow not found');
    });
    await expect(other).rejects.toThrow('workflow not found');
    expect(failed).toBe(1);
  });

  it('gives up after the second refusal (the run keeps being rebuilt)', async () => {
    let asked = 0;
    const twice = askAgainOnRebuild(async () => {
      asked++;
      throw refusal('stale workflow clock:');
    });
    await expect(twice).rejects.toThrow('stale workflow clock:');
    expect(asked).toBe(2);
  });
});
