/**
 * How a worker asks Temporal to acknowledge a poll activity attempt (the poll lease:
 * protocol/agent.ts, activities/poll-lease.ts): a heartbeat recorded through the worker's
 * own connection, the way its SDK's heartbeats go, with a deadline. Recorded: the attempt is
 * still Temporal's (a cancellation it carries reaches the activity through the SDK as usual).
 * NOT_FOUND: Temporal gave the attempt up, or its workflow moved on. Anything else, the deadline
 * included: unknown (asked again). The heartbeat carries no details (amsflow's polls keep none).
 */
import type { NativeConnection } from '@temporalio/worker';
import type { LeaseAsker } from '../activities';

/** gRPC's NOT_FOUND status code. */
const NOT_FOUND = 5;

export function askLeaseVia(connection: NativeConnection): LeaseAsker {
  return ({ namespace, taskToken }) =>
    async (deadlineMs) => {
      try {
        await connection.withDeadline(Date.now() + deadlineMs, () =>
          connection.workflowService.recordActivityTaskHeartbeat({ namespace, taskToken }),
        );
        return 'held';
      } catch (err) {
        return (err as { code?: unknown }).code === NOT_FOUND ? 'lost' : 'unknown';
      }
    };
}
