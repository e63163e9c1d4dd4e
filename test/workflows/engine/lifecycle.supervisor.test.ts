import { Supervisor } from '../../../workflows/engine/lifecycle';

describe('supervisor', () => {
  it('fails a watched step with the first failure of owned work', async () => {
    const s = new Supervisor();
    let reject: (err: Error) => void = () => undefined;
    void s.own(new Promise<void>((_, r) => (reject = r)));
    const step = s.watch(new Promise<void>(() => undefined));
    reject(new Error('loop failed'));
    await expect(step).rejects.toThrow('loop failed');
  });

  it('lets a step end normally while owned work runs, and fails on fail()', async () => {
    const s = new Supervisor();
    void s.own(new Promise<void>(() => undefined));
    await expect(s.watch(Promise.resolve(7))).resolves.toBe(7);
    const step = s.watch(new Promise<void>(() => undefined));
    s.fail(new Error('detached work failed'));
    await expect(step).rejects.toThrow('detached work failed');
  });
});
