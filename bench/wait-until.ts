/** Waiting on a condition with a deadline, as every part of the bench does (never a bare sleep-and-hope). */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with `check`'s first truthy value (checked every 100 ms); throws after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`bench: gave up waiting for ${what}`);
    await sleep(100);
  }
}
