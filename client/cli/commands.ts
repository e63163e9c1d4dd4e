/**
 * The commands of `amsflow`, in the order `--help` lists them. A new command is one entry here
 * (a {@link CommandSpec} made with `command()`, or a {@link GroupSpec} of subcommands).
 */
import { ensureCommand, sendCommand, stateCommand } from './agent-commands';
import { approvalGroup } from './approval-commands';
import { codecServerCommand } from './codec-server-command';
import { conversationsGroup } from './conversation-commands';
import { deployGroup } from './deploy-commands';
import { replayCommand } from './replay-command';
import { agentGroup } from './resume-command';
import { initCommand, setupCommand, startCommand } from './project-commands';
import type { Entry } from './spec';

export const COMMANDS: readonly Entry[] = [
  ensureCommand,
  sendCommand,
  stateCommand,
  agentGroup,
  conversationsGroup,
  approvalGroup,
  deployGroup,
  replayCommand,
  codecServerCommand,
  initCommand,
  setupCommand,
  startCommand,
];
