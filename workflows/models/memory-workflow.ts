/**
 * An agent's model memory (`memory:<agentKey>`, type `modelMemoryWorkflow`): the one owner of the
 * turns the model is shown. Started by the first turn's write (signal-with-start from the
 * `amsflowMemoryWrite` activity), it keeps the newest whole turns within the bounds the turn asked
 * for (`memory-rules.ts`), and carries them across continue-as-new. The model call reads it with
 * its query; `amsflow conversations show memory:<agentKey>` shows it (it answers the conversation
 * query with its turns); `amsflow conversations forget` empties it (the `forget` update).
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { conversationQuery } from '../../protocol/messages';
import { memoryCommandSchema } from '../../protocol/message-schemas';
import {
  DEFAULT_MEMORY_LIMITS,
  forgetMemoryUpdate,
  memoryCommandSignal,
  memoryQuery,
  type MemoryInput,
  type MemoryView,
} from '../../protocol/models';
import { setCheckedSignal } from '../author/checked-handlers';
import { bound, clampLimits } from './memory-rules';

/** Turn ids remembered, so that a write retried after it arrived is not appended twice. */
const SEEN_KEPT = 200;
/** History events after which the workflow continues as new (the server suggests it at 4096). */
const CONTINUE_AFTER_EVENTS = 2000;

/** The memory's state, owned here: every change goes through its methods. */
class Memory {
  private view: MemoryView;
  private readonly seen: string[];
  changed = false;

  constructor(input: MemoryInput) {
    const limits = clampLimits(input.limits ?? DEFAULT_MEMORY_LIMITS);
    const { kept, bytes, dropped } = bound(input.turns ?? [], limits);
    this.view = {
      turns: kept,
      limits,
      dropped: (input.dropped ?? 0) + dropped,
      forgotten: input.forgotten ?? 0,
      bytes,
    };
    this.seen = [...(input.seen ?? [])];
  }

  append(turn: MemoryView['turns'][number], limits: MemoryView['limits']): void {
    if (this.seen.includes(turn.id)) return;
    this.seen.push(turn.id);
    while (this.seen.length > SEEN_KEPT) this.seen.shift();
    const clamped = clampLimits(limits);
    const { kept, bytes, dropped } = bound([...this.view.turns, turn], clamped);
    this.view = { ...this.view, turns: kept, limits: clamped, bytes, dropped: this.view.dropped + dropped };
    this.changed = true;
  }

  forget(): number {
    const forgotten = this.view.turns.length;
    this.view = { ...this.view, turns: [], bytes: 0, forgotten: this.view.forgotten + forgotten };
    this.changed = true;
    return forgotten;
  }

  state(): MemoryView {
    return this.view;
  }

  carried(input: MemoryInput): MemoryInput {
    const { turns, limits, dropped, forgotten } = this.view;
    return { ...input, turns, limits, dropped, forgotten, seen: this.seen };
  }
}

/** The agent's model memory (see the module comment). A bot bundle carries it (worker/bot-bundle.ts). */
export async function modelMemoryWorkflow(input: MemoryInput): Promise<void> {
  const memory = new Memory(input);
  const startedAt = new Date(workflowInfo().runStartTime).toISOString();
  setCheckedSignal(memoryCommandSignal, memoryCommandSchema, (command) =>
    memory.append(command.turn, command.limits),
  );
  setHandler(memoryQuery, () => memory.state());
  setHandler(forgetMemoryUpdate, async () => ({ forgotten: memory.forget() }));
  setHandler(conversationQuery, () => ({
    workflowId: workflowInfo().workflowId,
    agentKey: input.agentKey,
    name: 'model memory',
    waiting: false,
    startedAt,
    memory: memory.state(),
  }));
  for (;;) {
    memory.changed = false;
    await condition(() => memory.changed);
    const info = workflowInfo();
    if (
      info.continueAsNewSuggested ||
      info.historyLength > (input.continueAfterEvents ?? CONTINUE_AFTER_EVENTS)
    ) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof modelMemoryWorkflow>(memory.carried(input));
    }
  }
}
