/**
 * The server's own counters as the bench reads them (bench/server-cost.ts): writes are every
 * persistence operation of the namespace but reads, actions the `action` counter of the
 * namespace; a stretch between two scrapes per agent-minute, and at Cloud's list price a month.
 */
import { CLOUD_USD_PER_MILLION_ACTIONS, serverCounters, stretchCost } from '../../bench/server-cost';

const scrape = (writes: number, reads: number, heartbeats: number, other = 0) =>
  [
    '# HELP persistence_requests persistence_requests counter',
    '# TYPE persistence_requests counter',
    `persistence_requests{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} ${writes}`,
    `persistence_requests{namespace="default",operation="GetWorkflowExecution",service_name="history"} ${reads}`,
    `persistence_requests{namespace="default",operation="ReadHistoryBranch",service_name="history"} ${reads}`,
    `persistence_requests{namespace="temporal_system",operation="UpdateWorkflowExecution",service_name="history"} ${other}`,
    `persistence_requests{namespace="_unknown_",operation="UpdateShard",service_name="history"} ${other}`,
    '# TYPE action counter',
    `action{action_type="grpc_RecordActivityTaskHeartbeat",namespace="default",operation="RecordActivityTaskHeartbeat",service_name="frontend"} ${heartbeats}`,
    `action{action_type="grpc_StartWorkflowExecution",namespace="temporal_system",service_name="frontend"} ${other}`,
    `service_requests{operation="PollActivityTaskQueue"} 12`,
    '',
  ].join('\n');

describe('serverCounters', () => {
  it("counts the namespace's writes by operation and its actions by type, not its reads nor other namespaces", () => {
    expect(serverCounters(scrape(7, 100, 3, 50), 'default')).toEqual({
      writes: { UpdateWorkflowExecution: 7 },
      actions: { grpc_RecordActivityTaskHeartbeat: 3 },
    });
  });

  it('refuses a line that is not a sample, and a counter that is not a count', () => {
    expect(() => serverCounters('persistence_requests{namespace="default" 5', 'default')).toThrow(
      /not a Prometheus sample/,
    );
    expect(() => serverCounters('action{namespace="default",action_type="x"} -1', 'default')).toThrow(
      /action is not a count: "-1"/,
    );
  });
});

describe('stretchCost', () => {
  it('divides the stretch by agents and minutes, and prices the actions a month', () => {
    const before = serverCounters(scrape(1000, 5, 200), 'default');
    // 10 agents over 30 s: 300 writes and 75 heartbeats more.
    const after = serverCounters(scrape(1300, 9000, 275), 'default');
    const cost = stretchCost(before, after, 10, 30_000);
    expect(cost.writesPerAgentMinute).toBe(60);
    expect(cost.actionsPerAgentMinute).toBe(15);
    expect(cost.actionsPerAgentHour).toBe(900);
    // 900 an hour, 730.5 hours a month, at the list price.
    expect(cost.cloudUsdPerAgentMonth).toBe(
      +((900 * 730.5 * CLOUD_USD_PER_MILLION_ACTIONS) / 1e6).toFixed(2),
    );
    expect(cost.writesByOperation).toEqual({ UpdateWorkflowExecution: 60 });
    expect(cost.actionsByType).toEqual({ grpc_RecordActivityTaskHeartbeat: 15 });
  });

  it('refuses an empty fleet or stretch', () => {
    const none = { writes: {}, actions: {} };
    expect(() => stretchCost(none, none, 0, 1000)).toThrow(/must be positive/);
    expect(() => stretchCost(none, none, 1, 0)).toThrow(/must be positive/);
  });
});
