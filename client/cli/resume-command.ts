/** `amsflow agent resume [<key>]`: an agent stopped by a final refusal polls again (client/agent-resume.ts). */
import { agentKeyProblem } from '../../protocol/agent';
import { resume } from '../agent-resume';
import { agentOption } from './options';
import { command, type GroupSpec } from './spec';
import { queryTimeoutMs } from './temporal';

const resumeCommand = command({
  name: 'resume',
  summary: 'resume an agent stopped by a refused token or request (see `amsflow state`)',
  description: [
    'Sends the agent workflow amsflow.resume: it polls again. Exit 0 once the agent took it and was',
    'not refused again within 3 s, 1 when it does not run, was refused again (the fix is printed) or',
    'did not take it within AMSFLOW_QUERY_TIMEOUT (10 s). A worker that starts resumes each of its',
    'agents the same way.',
  ].join('\n'),
  positionals: [
    { name: 'key', what: 'the agent key', description: 'the agent (default: --agent)', optional: true },
  ],
  options: { agent: agentOption },
  check: ({ args }) => (args[0] === undefined ? undefined : agentKeyProblem(args[0])),
  // --agent has its variable or default applied: it is always set.
  run: async (ctx) => resume(await ctx.temporal(), ctx.args[0] ?? ctx.values.agent!, queryTimeoutMs(ctx.env)),
});

export const agentGroup: GroupSpec = {
  name: 'agent',
  summary: 'the agent itself: resume it after a final refusal',
  commands: [resumeCommand],
};
