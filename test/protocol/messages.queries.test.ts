import type { WorkflowQueryInput } from '@temporalio/client';
import { ASK_AGAIN_INTERCEPTORS, askAgainOnRebuild, isGuardRefusal } from '../../protocol/messages';

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

  it("asks again inside a client's own query (the interceptor every amsflow client carries)", async () => {
    type Next = (input: WorkflowQueryInput) => Promise<unknown>;
    const [interceptor] = ASK_AGAIN_INTERCEPTORS.workflow as {
      query: (input: WorkflowQueryInput, next: Next) => Promise<unknown>;
    }[];
    const input: WorkflowQueryInput = {
      queryType: 'state',
      args: [],
      headers: {},
      workflowExecution: { workflowId: 'agent-x' },
    };
    const seen: WorkflowQueryInput[] = [];
    const answer = await interceptor.query(input, async (given) => {
      seen.push(given);
      if (seen.length === 1) throw refusal('query on a rebuilt run:');
      return 'state';
    });
    expect(answer).toBe('state');
    expect(seen).toEqual([input, input]);
    await expect(
      interceptor.query(input, async () => {
        throw new Error('workflow not found');
      }),
    ).rejects.toThrow('workflow not found');
  });
});
