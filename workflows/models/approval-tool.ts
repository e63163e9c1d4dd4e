/**
 * amsflow's approvals as a ready tool: `askApproval` lets the model put a yes/no question to the
 * human as an amsflow approval (answered by yes/no, a quote or 👍/👎, reminded, expired after
 * `timeout`), and tells it the decision. For a tool that must not run unapproved, mark the tool
 * `needsApproval` instead: then the turn asks, whatever the model does.
 */
import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import { askApproval } from '../approvals/ask-approval';
import { tool, type ToolDefinition } from './tool';

/** The approval tool, asking with this timeout (default '10 minutes'): `tools: { askApproval: approvalTool() }`. */
export function approvalTool(timeout: Duration = '10 minutes'): ToolDefinition<{ question: string }> {
  return tool({
    description:
      "Ask the human a yes/no question in the chat and wait for the answer ('approved', 'rejected', 'expired' " +
      "or 'cancelled'). Use it before doing something the human has not clearly asked for.",
    inputSchema: z.object({ question: z.string().min(1).max(1000).describe('the yes/no question') }),
    execute: async ({ question }, call) => {
      const pending = await askApproval({ id: `ask-${call.callId}`, question, timeout });
      const { decision } = await pending.decision;
      return { decision };
    },
  });
}
