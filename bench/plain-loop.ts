/**
 * The plain loop: what a bot without durability does with the same `MessagingClient`. It
 * long-polls getUpdates and answers each `echo <text>` with `<text>`, one message after another,
 * its offset in memory. The bench runs it beside amsflow where the comparison means something
 * (added latency, throughput): the difference is the cost of durability.
 */
import { MessagingClient } from '../messaging/client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PlainLoop {
  stop(): Promise<void>;
}

/** The echo text of a message of a page, if it is `echo <text>`. */
function echoOf(message: { type: string; text?: unknown }): string | undefined {
  const body = message.type === 'text' ? (message.text as { body?: string } | undefined)?.body : undefined;
  return body ? /^echo ([\s\S]+)$/.exec(body)?.[1] : undefined;
}

/** Starts the loop on `client`; `stop()` aborts its poll and waits for it to end. */
export function startPlainLoop(client: MessagingClient): PlainLoop {
  const abort = new AbortController();
  const loop = (async () => {
    let offset = 0;
    while (!abort.signal.aborted) {
      let page;
      try {
        page = await client.getUpdates({ offset, timeout: 10 }, { signal: abort.signal });
      } catch (err) {
        if (abort.signal.aborted) return;
        console.error('bench: plain loop poll failed:', (err as Error).message);
        await sleep(200);
        continue;
      }
      if (!page) continue;
      offset = page.next_offset;
      for (const entry of page.entry) {
        for (const change of entry.changes) {
          for (const message of change.value.messages ?? []) {
            const echo = echoOf(message);
            if (echo)
              await client
                .sendText(echo)
                .catch((err: Error) => console.error('bench: plain send failed:', err.message));
          }
        }
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}

/** Plain loops for many agents of one simulator, each on its own client; `stop()` ends them all. */
export function startPlainLoops(
  baseUrl: string,
  agents: { token: string }[],
  limits: Record<string, number>,
): PlainLoop {
  const clients = agents.map((a) => new MessagingClient({ token: a.token, baseUrl, limits }));
  const loops = clients.map(startPlainLoop);
  return {
    async stop() {
      await Promise.all(loops.map((l) => l.stop()));
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}
