import { randomUUID } from 'node:crypto';
import type { AgentState, PendingFault } from './state';
import type { Endpoint, Fault } from './wire';

/**
 * Fault injection: each fault applies to the next `count` requests to one endpoint of one
 * agent, checked after authentication and before the rate limiter.
 */
export class FaultBook {
  add(agent: AgentState, endpoint: Endpoint, count: number, fault: Fault): PendingFault {
    const pending: PendingFault = {
      id: randomUUID(),
      agent: agent.config.id,
      endpoint,
      remaining: count,
      fault,
    };
    agent.faults.push(pending);
    return pending;
  }

  /** Consumes one use of the oldest fault pending for this endpoint. */
  take(agent: AgentState, endpoint: Endpoint): Fault | undefined {
    const pending = agent.faults.find((f) => f.endpoint === endpoint);
    if (!pending) return undefined;
    pending.remaining -= 1;
    if (pending.remaining <= 0) agent.faults = agent.faults.filter((f) => f !== pending);
    return pending.fault;
  }

  list(agents: AgentState[]): PendingFault[] {
    return agents.flatMap((a) => a.faults.map((f) => ({ ...f })));
  }

  clear(agents: AgentState[]): void {
    for (const agent of agents) agent.faults = [];
  }
}
