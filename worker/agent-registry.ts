/**
 * The engine's messaging clients, one per agent served, by agent key: the one owner of them. The
 * poll, send and status activities look an agent's client up here (the token never enters a
 * workflow), and a fleet reload (worker/fleet-reload.ts) adds, replaces and removes them while the
 * workers run. The clients neither pace nor retry (the agent workflow paces durably and decides
 * retries) and share one HTTP dispatcher: a worker serving thousands of agents keeps one
 * connection pool per service origin, not one per agent.
 */
import { Agent, type Dispatcher } from 'undici';
import { MessagingClient } from '../messaging/client';
import type { Limits } from '../messaging/limits';

/** One agent as the registry keeps it. */
export interface RegisteredAgent {
  agentKey: string;
  token: string;
  baseUrl?: string;
}

/** What a change did: a new agent, a new token or service for a known one, or nothing. */
export type RegistryChange = 'added' | 'replaced' | 'unchanged';

export class AgentRegistry {
  private readonly clients = new Map<string, { agent: RegisteredAgent; client: MessagingClient }>();
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly limits: Limits,
    private readonly mediaOrigins: readonly string[] | undefined,
    agents: readonly RegisteredAgent[] = [],
  ) {
    // Long polls hold a connection each: no cap per origin, and idle sockets kept a while.
    this.dispatcher = new Agent({ keepAliveTimeout: 30_000 });
    for (const agent of agents) this.set(agent);
  }

  /** The client of `agentKey`, if this worker serves it. */
  get(agentKey: string): MessagingClient | undefined {
    return this.clients.get(agentKey)?.client;
  }

  keys(): string[] {
    return [...this.clients.keys()];
  }

  get size(): number {
    return this.clients.size;
  }

  /** Serves `agent`; a known one with another token or service gets a new client. */
  set(agent: RegisteredAgent): RegistryChange {
    const known = this.clients.get(agent.agentKey);
    if (known && known.agent.token === agent.token && known.agent.baseUrl === agent.baseUrl)
      return 'unchanged';
    const client = new MessagingClient({
      token: agent.token,
      baseUrl: agent.baseUrl,
      rateLimit: false,
      maxRetries: 0,
      autoDiscover: false,
      limits: this.limits,
      mediaOrigins: this.mediaOrigins,
      dispatcher: this.dispatcher,
    });
    this.clients.set(agent.agentKey, { agent: { ...agent }, client });
    // (The old client's requests in flight finish on the shared dispatcher.)
    if (known) void known.client.close();
    return known ? 'replaced' : 'added';
  }

  /** Stops serving `agentKey`: its activities fail with UnknownAgent from now on. */
  remove(agentKey: string): boolean {
    const known = this.clients.get(agentKey);
    if (!known) return false;
    this.clients.delete(agentKey);
    void known.client.close();
    return true;
  }

  /** Closes every client and the dispatcher (after the workers have stopped). */
  async close(): Promise<void> {
    for (const { client } of this.clients.values()) await client.close();
    this.clients.clear();
    await this.dispatcher.close();
  }
}
