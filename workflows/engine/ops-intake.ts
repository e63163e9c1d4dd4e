/**
 * Where a conversation's operations enter the agent (protocol/conversation-ops.ts): from its
 * `amsflow.ops` signal, or from a handler's result when it completes. Each operation is checked
 * on its own (anyone with namespace access can signal anything): one that does not fit, or that
 * names another workflow than the batch's `from`, is dropped and logged, and a send among them
 * that asked for its outcome is answered `SendInvalid`. The rest is carried out in order, each
 * by the part that owns it.
 */
import { z } from 'zod';
import { opsSignal } from '../../protocol/messages';
import { conversationOpSchema, schemaProblem } from '../../protocol/message-schemas';
import { dropSignal } from '../author/checked-handlers';
import type { ConversationOp } from '../../protocol';
import type { Dispatcher } from './dispatcher';
import type { Receipts } from './receipts';
import type { AgentRuntime } from './runtime';
import type { SendIntake } from './send-intake';
import { notifyRequester } from './requester';
import { invalidRequestOutcome } from './send-request';

const envelope = z.object({ from: z.string().min(1), ops: z.array(z.unknown()).max(1000) }).passthrough();
const result = z.object({ ops: z.array(z.unknown()).max(1000) }).passthrough();

export class OpsIntake {
  constructor(
    private readonly rt: AgentRuntime,
    private readonly dispatcher: Dispatcher,
    private readonly sends: SendIntake,
    private readonly receipts: Receipts,
  ) {}

  /** The `amsflow.ops` signal: `from` hands over by signal from now on. */
  signal(arg: unknown): Promise<void> {
    const parsed = envelope.safeParse(arg);
    if (!parsed.success) {
      this.drop(schemaProblem(parsed.error));
      return Promise.resolve();
    }
    this.rt.children.gone(parsed.data.from);
    return this.take(parsed.data.from, parsed.data.ops);
  }

  /** A handler's result, as its completion brought it (undefined: it handed over by signal). */
  result(from: string, value: unknown): Promise<void> {
    if (value === undefined || value === null) return Promise.resolve();
    const parsed = result.safeParse(value);
    if (!parsed.success) {
      this.drop(`the result of ${from}: ${schemaProblem(parsed.error)}`);
      return Promise.resolve();
    }
    return this.take(from, parsed.data.ops);
  }

  private async take(from: string, ops: unknown[]): Promise<void> {
    const routing: Promise<void>[] = [];
    for (const raw of ops) {
      const parsed = conversationOpSchema.safeParse(raw);
      if (!parsed.success) {
        this.refuse(from, raw, schemaProblem(parsed.error));
        continue;
      }
      const op = parsed.data as ConversationOp;
      const stranger = this.stranger(from, op);
      if (stranger) {
        this.refuse(from, raw, stranger);
        continue;
      }
      const routed = this.apply(from, op);
      if (routed) routing.push(routed);
    }
    // (A wait's end may route a message on: the signal's handler ends when that is done.)
    await Promise.all(routing);
  }

  /** Carries `op` out; returns the routing it started, if any. */
  private apply(from: string, op: ConversationOp): Promise<void> | undefined {
    const { rt } = this;
    switch (op.op) {
      case 'send':
        this.sends.enqueue(op.request, 'signal');
        return undefined;
      case 'wait':
        return this.dispatcher.wait(op.request);
      case 'release':
        rt.order.release(op.seq);
        return undefined;
      case 'typing':
        rt.statuses.addTyping(op.messageId);
        return undefined;
      case 'receipts':
        this.receipts.watch(op.messageId, from);
        return undefined;
    }
  }

  /** Why `op` may not come from `from`: it names another workflow as its requester or waiter. */
  private stranger(from: string, op: ConversationOp): string | undefined {
    if (op.op === 'send' && op.request.requester !== undefined && op.request.requester !== from)
      return `a send request of ${op.request.requester}`;
    if (op.op === 'wait' && op.request.workflowId !== from) return `a wait of ${op.request.workflowId}`;
    return undefined;
  }

  /** Drops one operation; a send that waits for its outcome is told `SendInvalid`. */
  private refuse(from: string, raw: unknown, problem: string): void {
    const request = (raw as { op?: unknown; request?: { requestId?: unknown; notify?: unknown } } | null)
      ?.request;
    if (typeof request?.requestId === 'string' && request.notify !== undefined) {
      notifyRequester(this.rt.signals, from, request.requestId, invalidRequestOutcome(problem));
    }
    this.rt.noteError('send', new Error(`an operation of ${from} was dropped: ${problem}`));
    this.drop(problem);
  }

  private drop(problem: string): void {
    dropSignal(opsSignal.name, problem);
  }
}
