/**
 * The modules every workflow run shares (`WORKFLOW_PRELOAD_MODULES`, worker/bundling.ts): the SDK
 * evaluates them once per worker thread and freezes, deeply, what they export. They must work
 * frozen: a zod object schema built at import would not (zod caches its shape on the schema at
 * its first parse), so protocol/message-schemas.ts builds each schema on first use. Frozen here
 * as the SDK freezes them; and the bundle the worker runs preloads them.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { bundleBot } from '../../worker/bot-bundle';
import { WORKFLOW_PRELOAD_MODULES } from '../../worker/bundling';

jest.setTimeout(120_000);

/** As the SDK's reusable V8 context freezes a preloaded module's exports (functions shallowly). */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.has(value) || Object.isFrozen(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // Some objects cannot be frozen (typed arrays); the SDK skips them too.
      }
    }
  }
  Object.freeze(value);
}

/** A module loaded afresh (its own zod too) and frozen as a preloaded one is. */
function frozenFresh<T>(path: string): T {
  let loaded: T | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy, as the SDK's preload evaluates it
    loaded = require(path) as T;
  });
  deepFreeze(loaded);
  return loaded!;
}

const message = { id: 'm1', from: 'user:1', type: 'text' };
/** A value each exported schema accepts. */
const ACCEPTED: Record<string, unknown> = {
  sendRequestSchema: { requestId: 'r1', message: { type: 'text' } },
  waitRequestSchema: { workflowId: 'w1', wait: true },
  conversationOpSchema: { op: 'release', seq: 1 },
  conversationOpsSchema: {
    from: 'w1',
    ops: [{ op: 'send', request: { requestId: 'r1', message: { type: 'text' } } }],
  },
  handlerResultSchema: { ops: [{ op: 'wait', request: { workflowId: 'w1', wait: false } }] },
  resumeSchema: null,
  sendResultSchema: { requestId: 'r1', outcome: { ok: true, messageId: 'm2', attempts: 1 } },
  routedMessageSchema: { message, seq: 1 },
  lateMessageSchema: { message, seq: 1, questionId: 'q1' },
  receiptSchema: { messageId: 'm2', status: 'read' },
  cancelSchema: undefined,
  remindersCommandSchema: { op: 'cancel', id: 'rem1' },
  memoryCommandSchema: {
    op: 'append',
    turn: { id: 't1', at: 1, messages: [{ role: 'user', text: 'hi' }] },
    limits: { turns: 1, bytes: 1 },
  },
};

describe('preloaded modules work frozen', () => {
  it('a zod object schema built at import fails once frozen: why the schemas are built on first use', () => {
    const eager = z.object({ a: z.string() });
    deepFreeze(eager);
    expect(() => eager.parse({ a: 'x' })).toThrow(TypeError);
  });

  it('zod, frozen, still builds and parses schemas', () => {
    const frozen = frozenFresh<typeof import('zod')>('zod');
    const schema = frozen.z.object({ a: frozen.z.string() }).passthrough();
    expect(schema.parse({ a: 'x', b: 1 })).toEqual({ a: 'x', b: 1 });
    expect(schema.safeParse({ a: 1 }).success).toBe(false);
  });

  it('every signal argument schema, frozen, parses what it accepts (twice) and refuses what it does not', () => {
    const schemas = frozenFresh<Record<string, unknown>>(WORKFLOW_PRELOAD_MODULES[0]);
    // Their own zod (loaded afresh), so not `instanceof` this file's.
    const names = Object.keys(schemas).filter(
      (name) => typeof (schemas[name] as { safeParse?: unknown }).safeParse === 'function',
    );
    // A new schema needs an accepted value here.
    expect(names.sort()).toEqual(Object.keys(ACCEPTED).sort());
    for (const name of names) {
      const schema = schemas[name] as z.ZodTypeAny;
      for (const _ of [1, 2])
        expect({ name, ok: schema.safeParse(ACCEPTED[name]).success }).toEqual({ name, ok: true });
      expect({ name, ok: schema.safeParse(42).success }).toEqual({ name, ok: false });
    }
    // The purpose rule (a refinement over the built schema) still holds.
    const send = schemas.sendRequestSchema as z.ZodTypeAny;
    expect(send.safeParse({ requestId: 'r1', message: { type: 'text' }, waitId: 1 }).success).toBe(false);
  });

  it('the bundle the worker runs preloads them', async () => {
    const { code } = await bundleBot({
      workflowsPath: resolve(__dirname, '../../examples/reference/bot.ts'),
    });
    const preload = code.slice(code.indexOf('exports.preloadModules = function preloadModules()'));
    const body = preload.slice(0, preload.indexOf('exports.importWorkflows'));
    expect(body).toMatch(/__webpack_require__\([^)]*"\.\/protocol\/message-schemas\.ts"\)/);
  });
});
