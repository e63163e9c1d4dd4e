/**
 * The engine's kind of messaging client on a test simulator: it neither paces nor retries (the
 * workflow decides both), and asks nobody for the recipient.
 */
import { MessagingClient, type MessagingClientOptions } from '../../messaging';
import type { RunningSimulator } from '../../simulator';

export function engineClient(
  sim: RunningSimulator,
  options: Omit<Partial<MessagingClientOptions>, 'token' | 'baseUrl'> = {},
): MessagingClient {
  return new MessagingClient({
    token: sim.token,
    baseUrl: sim.url,
    rateLimit: false,
    maxRetries: 0,
    autoDiscover: false,
    ...options,
  });
}
