import { MockActivityEnvironment } from '@temporalio/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { withHeartbeats } from '../../activities/heartbeats';

describe('withHeartbeats', () => {
  it('heartbeats at once and every second while the work is pending, and stops when it settles', async () => {
    const env = new MockActivityEnvironment();
    const beats: number[] = [];
    env.on('heartbeat', () => beats.push(Date.now()));
    const started = Date.now();
    const value = await env.run(() => withHeartbeats(delay(2300).then(() => 'done')));
    expect(value).toBe('done');
    expect(beats).toHaveLength(3);
    expect(beats[0] - started).toBeLessThan(200);
    const after = beats.length;
    await delay(1200);
    expect(beats).toHaveLength(after);
  });

  it('only awaits the work outside an activity', async () => {
    await expect(withHeartbeats(Promise.resolve(7))).resolves.toBe(7);
    await expect(withHeartbeats(Promise.reject(new Error('no')))).rejects.toThrow('no');
  });
});
