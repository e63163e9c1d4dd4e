/**
 * Watchdog of the embedded Temporal dev server: `node dev-server-watchdog.js <cli> [args...]`.
 * Started by `startDevServer` in its own process group; it runs `<cli> [args...]` in that same
 * group and ties the server's life to its parent's:
 *
 * - stdin is a pipe from the parent that is never written to. It reaches end-of-file when the
 *   parent closes it or dies for whatever reason, SIGKILL included; the watchdog then stops the
 *   server (SIGTERM, SIGKILL after a grace period).
 * - SIGTERM, SIGINT or SIGHUP to the watchdog stop the server the same way.
 * - On fd 3, when the parent opened one, it reports one line, `pid <server pid>` or
 *   `error <why the server could not be started>`, then closes it.
 * - The watchdog exits when the server has exited, with the server's exit code.
 *
 * Its stdout and stderr are handed to the server, and its umask (077): what the server creates,
 * its SQLite database and the write-ahead log and shared-memory files beside it, is readable by
 * its user only, whatever the umask of the shell that ran `npm start`. The data are every chat.
 */
import { spawn } from 'node:child_process';
import { closeSync, writeSync } from 'node:fs';
import { constants } from 'node:os';

/** How long the server has to stop after SIGTERM before it is killed. */
const GRACE_MS = 10_000;
const REPORT_FD = 3;

function report(line: string): void {
  try {
    writeSync(REPORT_FD, `${line}\n`);
    closeSync(REPORT_FD);
  } catch {
    // No report pipe: started by hand.
  }
}

function main(): void {
  const [cli, ...args] = process.argv.slice(2);
  if (!cli) {
    console.error('usage: dev-server-watchdog <temporal-cli> [args...]');
    process.exit(64);
  }
  // Node's spawn has no umask of its own; the watchdog's process runs nothing but the server.
  process.umask(0o077);
  const server = spawn(cli, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    if (why) console.error(`amsflow dev-server watchdog: ${why}; stopping the Temporal dev server`);
    server.kill('SIGTERM');
    setTimeout(() => server.kill('SIGKILL'), GRACE_MS).unref();
  };

  server.once('spawn', () => report(`pid ${server.pid}`));
  server.once('error', (err) => {
    report(`error cannot run ${cli}: ${err.message}`);
    process.exit(127);
  });
  server.once('exit', (code, signal) => {
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
  });

  const parentGone = () => stop('its parent process is gone');
  process.stdin.on('end', parentGone);
  process.stdin.on('close', parentGone);
  process.stdin.on('error', parentGone);
  process.stdin.resume();
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stop(''));
}

main();
