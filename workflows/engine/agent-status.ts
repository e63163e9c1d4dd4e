/**
 * What the agent shows of its health, one owner: the last error (for `amsflow state`), the last
 * send requests given up, and the final refusal that stopped it, if any (refusal.ts). Carried across continue-as-new. Pure: the
 * runtime logs and counts a new refusal.
 */
import type { AgentError, AgentRefusal, FailedSend } from '../../protocol';

/** Failed sends kept for operators. */
export const FAILED_SENDS_KEPT = 10;
import type { FailureInfo } from './failure';

export class AgentStatus {
  private error: AgentError | undefined;
  private stop: AgentRefusal | undefined;
  private failed: FailedSend[];

  constructor(carried?: { lastError?: AgentError; refusal?: AgentRefusal; failedSends?: FailedSend[] }) {
    this.error = carried?.lastError;
    this.stop = carried?.refusal;
    this.failed = (carried?.failedSends ?? []).slice(-FAILED_SENDS_KEPT);
  }

  /** The last send requests given up, oldest first. */
  get failedSends(): FailedSend[] {
    return [...this.failed];
  }

  /** Books a send request given up. */
  sendFailed(failed: FailedSend): void {
    this.failed = [...this.failed, failed].slice(-FAILED_SENDS_KEPT);
  }

  get lastError(): AgentError | undefined {
    return this.error;
  }

  /** Set while a final refusal has stopped the agent (polling waits, sends fail). */
  get refusal(): AgentRefusal | undefined {
    return this.stop;
  }

  /** Books `info` as the last error, seen at `at` (ISO time). */
  noteError(where: AgentError['where'], info: Pick<FailureInfo, 'type' | 'message'>, at: string): void {
    this.error = { at, where, type: info.type ?? 'Error', message: info.message };
  }

  /** Stops the agent for `refusal`; false when it was stopped already (the first refusal stays). */
  halt(refusal: AgentRefusal): boolean {
    if (this.stop) return false;
    this.stop = refusal;
    return true;
  }

  /** Ends a refusal; returns the one it ended, if any. */
  resume(): AgentRefusal | undefined {
    const ended = this.stop;
    this.stop = undefined;
    return ended;
  }
}
