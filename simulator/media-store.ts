/**
 * Media items (spec 2.7, 4.4): ids, SHA-256, expiry, and lookup per agent (or any agent, for the
 * web chat). Each agent's items live in its AgentState; used by platform.ts.
 */
import { createHash, randomInt } from 'node:crypto';
import type { SimClock } from './clock';
import type { AgentState, MediaRecord } from './state';

export class MediaStore {
  constructor(
    private readonly agents: readonly AgentState[],
    private readonly clock: SimClock,
    private readonly ttlMs: number,
  ) {}

  store(
    agent: AgentState,
    bytes: Buffer,
    mimeType: string,
    filename: string | undefined,
    origin: MediaRecord['origin'],
  ): MediaRecord {
    let id: string;
    do id = String(randomInt(1, 2 ** 47)) + String(randomInt(10 ** 5, 10 ** 6));
    while (this.agents.some((a) => a.media.has(id)));
    const now = this.clock.now();
    const record: MediaRecord = {
      id,
      bytes,
      mimeType,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      filename,
      origin,
      createdAt: now,
      expiresAt: now + this.ttlMs,
    };
    agent.media.set(id, record);
    return record;
  }

  /** The media item if it exists for this agent and has not expired. */
  live(agent: AgentState, id: string): MediaRecord | undefined {
    const record = agent.media.get(id);
    if (!record) return undefined;
    if (this.clock.now() >= record.expiresAt) {
      agent.media.delete(id);
      return undefined;
    }
    return record;
  }

  /** Any agent's media, for the web chat (no auth, loopback only). */
  ofAnyAgent(id: string): MediaRecord | undefined {
    for (const agent of this.agents) {
      const record = this.live(agent, id);
      if (record) return record;
    }
    return undefined;
  }

  delete(agent: AgentState, id: string): boolean {
    if (!this.live(agent, id)) return false;
    agent.media.delete(id);
    return true;
  }
}
