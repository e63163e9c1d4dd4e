import { SlidingWindow } from '../core/sliding-window';
import type { SimClock } from './clock';
import type { SimulatorLimits } from './options';
import type { Endpoint } from './wire';

/** Which limit of section 8 each endpoint counts against; media downloads are not limited. */
const LIMIT_OF: Partial<Record<Endpoint, keyof Omit<SimulatorLimits, 'windowMs'>>> = {
  messages: 'messages',
  statuses: 'statuses',
  typing: 'typing',
  updates: 'updates',
  'media.upload': 'mediaUpload',
  'media.get': 'mediaGet',
  'media.delete': 'mediaDelete',
};

export type Admission = { admitted: true } | { admitted: false; retryAfterSimMs: number };

/**
 * Per-agent rolling-window counters, one per endpoint (the sliding window the agent workflow
 * paces itself with: core/sliding-window.ts). Only admitted requests are recorded: a request
 * answered 429 does not push the window further out (the common reading of "N per minute"; see
 * README).
 */
export class RateLimiter {
  private readonly windows = new Map<string, SlidingWindow>();

  constructor(
    private readonly clock: SimClock,
    private readonly limits: SimulatorLimits,
  ) {}

  admit(agentId: string, endpoint: Endpoint): Admission {
    const limitName = LIMIT_OF[endpoint];
    if (!limitName) return { admitted: true };
    const key = `${agentId}\u0000${endpoint}`;
    let window = this.windows.get(key);
    if (!window) {
      window = new SlidingWindow(this.limits[limitName], this.limits.windowMs);
      this.windows.set(key, window);
    }
    const now = this.clock.now();
    const wait = window.delay(now);
    if (wait > 0) return { admitted: false, retryAfterSimMs: wait };
    window.record(now);
    return { admitted: true };
  }

  resetAgent(agentId: string): void {
    for (const key of [...this.windows.keys()]) {
      if (key.startsWith(`${agentId}\u0000`)) this.windows.delete(key);
    }
  }
}
