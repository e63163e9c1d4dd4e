/**
 * **Memory bound** (pure): what an agent's model memory keeps. The newest whole turns, as many as
 * fit both bounds (`turns`, and `bytes` of the turns as UTF-8 JSON); older turns are dropped, and
 * counted. Whole turns, so that a tool call is never kept without its result (providers refuse a
 * chat with a dangling call) and a human's message never without the answer it got. A single
 * turn larger than `bytes` is not kept at all. Dropping rather than summarising: a summary needs a
 * model call, which the memory's owner cannot make (it has no model, and its state must not wait
 * on a provider); a bot that wants summaries can write one into its system prompt.
 */
import { MAX_MEMORY_BYTES, type MemoryLimits, type MemoryTurn } from '../../protocol/models';

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A turn's size as the memory counts it. */
export function turnBytes(turn: MemoryTurn): number {
  return utf8Bytes(JSON.stringify(turn));
}

/** Limits as the memory applies them: whole numbers, at least one turn and 1 KiB, at most 256 KiB. */
export function clampLimits(limits: MemoryLimits): MemoryLimits {
  const whole = (n: number, min: number, max: number) => Math.min(max, Math.max(min, Math.floor(n)));
  return { turns: whole(limits.turns, 1, 1000), bytes: whole(limits.bytes, 1024, MAX_MEMORY_BYTES) };
}

/** The turns kept within `limits` (newest kept, order kept), how many were dropped, and their size. */
export function bound(
  turns: readonly MemoryTurn[],
  limits: MemoryLimits,
): { kept: MemoryTurn[]; dropped: number; bytes: number } {
  const kept: MemoryTurn[] = [];
  let bytes = 0;
  for (let i = turns.length - 1; i >= 0 && kept.length < limits.turns; i--) {
    const size = turnBytes(turns[i]);
    if (bytes + size > limits.bytes) break;
    kept.unshift(turns[i]);
    bytes += size;
  }
  return { kept, dropped: turns.length - kept.length, bytes };
}
