/**
 * What `npm start` prints once everything runs (`formatBanner`), and the bot's commands it lists
 * (`botCommands`, read from the bot's module).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { displayPath } from './bot-bundle';
import type { RunningAmsflow } from './run-types';

/** amsflow's own folder: the clone, or the installed package (`node_modules/amsflow`). */
const PACKAGE_ROOT = [join(__dirname, '..'), join(__dirname, '..', '..')].find((dir) =>
  existsSync(join(dir, 'package.json')),
);

/**
 * A guide of amsflow's as the user can open it from here: `docs/OPERATIONS.md` in a clone,
 * `node_modules/amsflow/docs/OPERATIONS.md` in a bot project (the package ships its guides).
 */
export function guidePath(path: string): string {
  return PACKAGE_ROOT ? displayPath(join(PACKAGE_ROOT, path)) : path;
}

/** One command of a bot, as the banner lists it. */
export interface BotCommand {
  command: string;
  description: string;
}

/**
 * The commands a bot module announces: its `COMMANDS` export (`{ command, description }[]`), else
 * the lines of its `HELP_TEXT`; none when it has neither or cannot be loaded outside a workflow.
 */
export async function botCommands(workflowsPath: string): Promise<BotCommand[]> {
  let bot: Record<string, unknown>;
  try {
    bot = (await import(workflowsPath)) as Record<string, unknown>;
  } catch {
    return [];
  }
  const listed = bot.COMMANDS;
  if (
    Array.isArray(listed) &&
    listed.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as BotCommand).command === 'string' &&
        typeof (c as BotCommand).description === 'string',
    )
  ) {
    return (listed as BotCommand[]).map(({ command, description }) => ({ command, description }));
  }
  if (typeof bot.HELP_TEXT === 'string') {
    return bot.HELP_TEXT.split('\n')
      .map((line) => line.replace(/^\s*[•*-]\s*/, '').trim())
      .filter((line) => line && !line.endsWith(':'))
      .map((line) => {
        const [command, ...rest] = line.split(/\s+[—-]\s+/);
        return { command, description: rest.join(' - ') };
      });
  }
  return [];
}

/** What `npm start` prints once everything runs: where to go, what to write, what was resumed. */
export function formatBanner(running: RunningAmsflow, commands: BotCommand[] = []): string {
  const { resume } = running;
  const lines: string[] = [''];
  if (resume.chat) {
    const chat = resume.chat;
    lines.push(
      chat.resumed
        ? `amsflow: resuming: ${chat.messages} message${chat.messages === 1 ? '' : 's'} in the chat`
        : 'amsflow: fresh start: a new chat',
    );
    if (chat.unclean) {
      lines.push('  (the last run did not stop cleanly: its last moments before the end may be missing)');
    }
    if (chat.resumed && resume.temporalDb && !resume.temporalResumed) {
      lines.push(`  (${resume.temporalDb} was missing: conversations in progress were not resumed)`);
    }
  } else {
    const where = running.agents.map((a) => `"${a.agentKey}" at ${a.baseUrl ?? 'the default service URL'}`);
    lines.push(`amsflow: serving the real service: agent ${where.join(', ')}`);
  }
  const pad = (label: string) => `  ${label.padEnd(14)}`;
  if (running.chatUrl) lines.push(`${pad('web chat')}${running.chatUrl}`);
  if (running.temporalUiUrl) lines.push(`${pad('Temporal UI')}${running.temporalUiUrl}`);
  if (commands.length > 0) {
    const width = Math.max(...commands.map((c) => c.command.length));
    lines.push(
      `${pad('bot commands')}${commands.map((c) => `${c.command.padEnd(width)}  ${c.description}`.trimEnd()).join(`\n${pad('')}`)}`,
    );
  }
  lines.push(
    `${pad('model')}${running.model ?? `none (AMSFLOW_MODEL=openai:<model> with OPENAI_API_KEY adds one; see ${guidePath('docs/OPERATIONS.md')})`}`,
  );
  if (resume.demoDir) {
    lines.push(
      `${pad('data')}${resume.demoDir}: the next npm start resumes from it; delete it to start afresh`,
    );
  } else if (resume.temporalDb) {
    const kept = resume.temporalResumed ? 'resumed' : 'new';
    lines.push(`${pad('data')}${resume.temporalDb} (Temporal, ${kept}): the next start resumes from it`);
  }
  lines.push('amsflow: running; Ctrl-C stops everything');
  return lines.join('\n');
}
