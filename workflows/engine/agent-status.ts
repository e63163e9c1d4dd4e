/**
 * What the agent shows of its health, one owner: the last error (for `amsflow state`) and the
 * final refusal that stopped it, if any (refusal.ts). Carried across continue-as-new. Pure: the
 * runtime logs and counts a new refusal.
 */
import type { AgentError, AgentRefusal } from '../../protocol';
import type { FailureInfo } from './failure';

export class AgentStatus {
  private error: AgentError | undefined;
  private stop: AgentRefusal | undefined;

  constructor(carried?: { lastError?: AgentError; refusal?: AgentRefusal }) {
    this.error = carried?.lastError;
    this.stop = carried?.refusal;
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
