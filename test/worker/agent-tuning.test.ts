import { agentTuningOf, MODEL_AGENT_INBOUND_BUDGET } from '../../worker/ensure-agents';

describe('the tuning an agent is started with', () => {
  it("takes a model agent's new messages up to the inbound budget by default: each would start a model call", () => {
    expect(agentTuningOf({ pollLimit: 10 }, { model: true })).toEqual({
      pollLimit: 10,
      inboundBudget: MODEL_AGENT_INBOUND_BUDGET,
    });
    expect(MODEL_AGENT_INBOUND_BUDGET).toBe(12);
  });

  it("keeps the operator's inbound budget (0: none), and sets none for an agent without a model", () => {
    expect(agentTuningOf({ inboundBudget: 0 }, { model: true })).toEqual({ inboundBudget: 0 });
    expect(agentTuningOf({ inboundBudget: 40 }, { model: true })).toEqual({ inboundBudget: 40 });
    expect(agentTuningOf({ pollLimit: 10 }, { model: false })).toEqual({ pollLimit: 10 });
  });
});
