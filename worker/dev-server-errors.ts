/**
 * What goes wrong when the embedded Temporal dev server starts (worker/dev-server.ts): a port
 * that is taken, or a server that did not come up, with its own output.
 */
import { quoted } from './output-tail';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';

/**
 * A port amsflow should listen on is taken: thrown by {@link startDevServer} (its gRPC and web UI
 * ports) and by `npm start` for the embedded simulator's port.
 */
export class PortInUseError extends AmsflowError {
  readonly code = AmsflowErrorCodes.portInUse;
  constructor(
    readonly port: number,
    readonly role: 'gRPC' | 'web UI' | 'simulator',
  ) {
    const find = `find it with \`ss -ltnp 'sport = :${port}'\` or \`lsof -iTCP:${port} -sTCP:LISTEN\``;
    super(
      role === 'simulator'
        ? `Cannot start the embedded simulator: 127.0.0.1:${port}, its port (web chat and service API), ` +
            'is already in use, most likely by an `npm start` still running, or by another program. ' +
            `Stop that process (${find}), or pick another port (AMSFLOW_SIMULATOR_PORT).`
        : `Cannot start the embedded Temporal dev server: 127.0.0.1:${port}, its ${role} port, is already ` +
            'in use, most likely by a dev server left over from an earlier run that was killed, or by ' +
            `another program. Stop that process (${find}), or pick another port (amsflow worker: ` +
            'AMSFLOW_DEV_SERVER_PORT / AMSFLOW_DEV_SERVER_UI_PORT), or, to use a server that is already ' +
            `running on purpose, set TEMPORAL_ADDRESS=127.0.0.1:${port} instead of starting one.`,
    );
  }
}

/** A start that failed: what went wrong, with the server's own output and its exit, if it ended. */
export class DevServerStartError extends AmsflowError {
  readonly code = AmsflowErrorCodes.devServerStart;
  constructor(
    readonly reason: string,
    /** The server's last output (empty when it went elsewhere, see `logFile`). */
    readonly output: string,
    /** How it ended on its own (`exit code 1`, `SIGSEGV`), or undefined if it was still running. */
    readonly exit: string | undefined,
  ) {
    super(`${reason}\nThe server's output (${exit ?? 'it was still running'}):\n${quoted(output)}`);
  }
}
