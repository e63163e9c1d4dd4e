/**
 * The argument schemas of the signals and updates in `messages.ts`, one beside each name. Anyone
 * with access to the namespace can send any payload to any of them (the CLI, the UI, an SDK), so
 * every handler parses its argument first and drops what does not fit (see
 * `workflows/author/checked-handlers.ts`). Queries take no argument.
 *
 * Every member a workflow reads is typed down to its leaf (a message's `text.body`, a caption, a
 * reaction's emoji, a quoted message's id, sequence numbers, ids): a handler never meets a number
 * where it calls a string's method. What amsflow's own workflows send each other is typed exactly
 * (whole numbers, non-empty ids, the values a field can take); what comes from the service's wire
 * (the messages routed on) is typed where read and open elsewhere, as the wire may grow. Objects
 * pass unknown members through: a newer sender (another build, during a rollout) may add a field,
 * and nothing a handler passes on may lose one.
 */
import { z } from 'zod';

/**
 * Each schema is built on first use. The worker preloads this module once per worker thread
 * (`WORKFLOW_PRELOAD_MODULES`, worker/bundling.ts) and the SDK then freezes what it exports,
 * deeply; zod caches an object schema's shape on the schema at its first parse, which a frozen
 * schema refuses. A schema built after the freeze is not frozen (test/worker/preload.test.ts).
 */
function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

/** A schema built on its first parse; it parses as the one `make` builds. */
const lazily = <T extends z.ZodTypeAny>(make: () => T): z.ZodLazy<T> => z.lazy(once(make));

const id = once(() => z.string().min(1));
const count = once(() => z.number().int().nonnegative());

/**
 * A media object of an inbound message (image, video, audio, document, sticker): what a handler
 * reads of it (its caption and file name shown to a model, its id downloaded).
 */
const inboundMedia = once(() =>
  z
    .object({
      id: z.string(),
      mime_type: z.string().optional(),
      sha256: z.string().optional(),
      caption: z.string().optional(),
      filename: z.string().optional(),
      voice: z.boolean().optional(),
      animated: z.boolean().optional(),
    })
    .passthrough(),
);

/**
 * An inbound message as the agent routes it (the service's, spec 2.2, as messaging/ parses it):
 * every member a workflow reads, to its leaf; a message of a type nobody knows (and a message the
 * client handed on as `unknown`) passes with its own members untouched.
 */
const inboundMessage = once(() =>
  z
    .object({
      id: id(),
      from: z.string(),
      type: z.string(),
      timestamp: z.string().optional(),
      context: z.object({ from: z.string().optional(), id: z.string().optional() }).passthrough().optional(),
      text: z.object({ body: z.string() }).passthrough().optional(),
      image: inboundMedia().optional(),
      video: inboundMedia().optional(),
      audio: inboundMedia().optional(),
      document: inboundMedia().optional(),
      sticker: inboundMedia().optional(),
      reaction: z.object({ message_id: z.string(), emoji: z.string().optional() }).passthrough().optional(),
    })
    .passthrough(),
);

/**
 * A message to send (`OutgoingMessage` without `to`, as the workflow API builds it): its payload
 * object typed where the service reads it; a type the client does not know passes as given.
 */
const outboundMessage = once(() => {
  const media = z
    .object({ id: z.string().optional(), caption: z.string().optional(), filename: z.string().optional() })
    .passthrough();
  return z
    .object({
      type: z.string(),
      context: z.object({ message_id: z.string() }).passthrough().optional(),
      text: z.object({ body: z.string(), preview_url: z.boolean().optional() }).passthrough().optional(),
      image: media.optional(),
      video: media.optional(),
      audio: media.optional(),
      document: media.optional(),
      sticker: media.optional(),
    })
    .passthrough();
});

/** The fields of every send purpose (see `conversations.ts`); which may go together is checked below. */
const sendRequestFields = once(() =>
  z
    .object({
      requestId: id(),
      message: outboundMessage(),
      requester: id().optional(),
      handlerSeq: count().optional(),
      retryAmbiguous: z.boolean().optional(),
      reconcileAmbiguous: z.boolean().optional(),
      expectReply: z.literal(true).optional(),
      waitId: count().optional(),
      waitNextToo: z.boolean().optional(),
      answerWords: z.array(z.string()).optional(),
      answerLabel: z.string().optional(),
      onlyWhileWaiting: count().optional(),
      quoteQuestion: z.literal(true).optional(),
      notify: z.enum(['outcome', 'failure']).optional(),
      lane: z.enum(['reply', 'background']).optional(),
    })
    .passthrough(),
);

const QUESTION_FIELDS = ['waitId', 'waitNextToo', 'answerWords', 'answerLabel'] as const;

/**
 * Why a request mixes purposes (an out-of-band send, a workflow's send, a question, a nudge), or
 * undefined: a question's fields need `expectReply`, a question or a nudge needs a requester (the
 * answer and the outcome go there), and a request is not both a question and a nudge.
 */
function purposeProblem(
  req: z.infer<ReturnType<typeof sendRequestFields>>,
): { path: string; message: string } | undefined {
  const field = QUESTION_FIELDS.find((f) => req[f] !== undefined);
  if (field && !req.expectReply)
    return { path: field, message: 'only a question (expectReply: true) has it' };
  if (req.expectReply && req.onlyWhileWaiting !== undefined)
    return { path: 'onlyWhileWaiting', message: 'a question is not a nudge' };
  if (req.quoteQuestion && req.onlyWhileWaiting === undefined)
    return { path: 'quoteQuestion', message: 'only a nudge (onlyWhileWaiting) has it' };
  const needs = req.expectReply
    ? 'expectReply'
    : req.onlyWhileWaiting !== undefined
      ? 'onlyWhileWaiting'
      : undefined;
  if (needs && req.requester === undefined) return { path: 'requester', message: `required with ${needs}` };
  if (req.handlerSeq !== undefined && req.requester === undefined)
    return { path: 'requester', message: 'required with handlerSeq' };
  return undefined;
}

/** `amsflow.send` (update) and `amsflow.sendRequest` (signal): a request to the outbox, of one purpose. */
export const sendRequestSchema = lazily(() =>
  sendRequestFields().superRefine((req, ctx) => {
    const problem = purposeProblem(req);
    if (problem)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [problem.path], message: problem.message });
  }),
);

/** A wait request: registers (`wait: true`) or ends (`wait: false`) a workflow's wait. */
export const waitRequestSchema = lazily(() =>
  z.discriminatedUnion('wait', [
    z
      .object({
        workflowId: id(),
        wait: z.literal(true),
        waitId: count().optional(),
        questionId: z.string().optional(),
        nextToo: z.boolean().optional(),
        answerWords: z.array(z.string()).optional(),
        label: z.string().optional(),
      })
      .passthrough(),
    z
      .object({
        workflowId: id(),
        wait: z.literal(false),
        waitId: count().optional(),
        lateText: z.string().optional(),
      })
      .passthrough(),
  ]),
);

/** One operation of a conversation (see `conversations.ts`). */
export const conversationOpSchema = lazily(() =>
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('send'), request: sendRequestSchema }).passthrough(),
    z.object({ op: z.literal('wait'), request: waitRequestSchema }).passthrough(),
    z.object({ op: z.literal('release'), seq: count() }).passthrough(),
    z.object({ op: z.literal('typing'), messageId: id() }).passthrough(),
    z.object({ op: z.literal('receipts'), messageId: id() }).passthrough(),
  ]),
);

/**
 * `amsflow.ops` and a handler's result: a conversation's operations. Every request and wait in it
 * belongs to `from` (the agent checks it op by op and drops what does not).
 */
export const conversationOpsSchema = lazily(() =>
  z.object({ from: id(), ops: z.array(conversationOpSchema).max(1000) }).passthrough(),
);

/** A handler workflow's result: `undefined` (it handed everything over by signal) or its ops. */
export const handlerResultSchema = lazily(() =>
  z
    .object({ ops: z.array(conversationOpSchema).max(1000) })
    .passthrough()
    .nullish(),
);

/** `amsflow.resume`: resume an agent stopped by a refusal (see `resumeSignal`); any reason. */
export const resumeSchema = lazily(() =>
  z
    .object({ reason: z.string().optional() })
    .passthrough()
    .nullish()
    .transform((v) => v ?? {}),
);

const sendOutcomeSchema = once(() =>
  z.union([
    z.object({ ok: z.literal(true), messageId: id(), attempts: count() }).passthrough(),
    z
      .object({ ok: z.literal(false), type: z.string(), message: z.string(), attempts: count() })
      .passthrough(),
  ]),
);

/** `amsflow.sendResult`: the outcome of a `sendRequest` signal. */
export const sendResultSchema = lazily(() =>
  z.object({ requestId: id(), outcome: sendOutcomeSchema() }).passthrough(),
);

/** `amsflow.inbound`: a message routed to a waiting workflow. */
export const routedMessageSchema = lazily(() =>
  z
    .object({
      message: inboundMessage(),
      seq: count(),
      waitId: count().optional(),
      questionId: z.string().optional(),
    })
    .passthrough(),
);

/** `amsflow.late`: an answer to a question whose wait had timed out. */
export const lateMessageSchema = lazily(() =>
  z.object({ message: inboundMessage(), seq: count(), questionId: z.string() }).passthrough(),
);

/** `amsflow.receipt`: a receipt of a message the workflow sent. */
export const receiptSchema = lazily(() =>
  z.object({ messageId: id(), status: z.string(), timestamp: z.string().optional() }).passthrough(),
);

/** `amsflow.cancel`: cancel a conversation from outside; the reason is optional (null is no reason). */
export const cancelSchema = lazily(() =>
  z
    .object({ reason: z.string().optional() })
    .passthrough()
    .nullish()
    .transform((v) => v ?? {}),
);

/** `amsflow.reminders.command`: a change to an agent's reminders (the reminder itself is checked deeply by the workflow). */
export const remindersCommandSchema = lazily(() =>
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), reminder: z.object({ id: id() }).passthrough() }).passthrough(),
    z.object({ op: z.literal('cancel'), id: id() }).passthrough(),
    z
      .object({
        op: z.literal('shown'),
        list: z.array(z.object({ id: id(), text: z.string() }).passthrough()),
      })
      .passthrough(),
    z.object({ op: z.literal('zone'), timeZone: z.string().min(1) }).passthrough(),
  ]),
);

const chatToolCall = once(() => z.object({ id: id(), name: id(), input: z.unknown() }).passthrough());
const chatMessage = once(() =>
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('user'), text: z.string() }).passthrough(),
    z
      .object({
        role: z.literal('assistant'),
        text: z.string(),
        toolCalls: z.array(chatToolCall()).optional(),
      })
      .passthrough(),
    z
      .object({
        role: z.literal('tool'),
        results: z.array(
          z
            .object({ id: id(), name: id(), output: z.unknown(), isError: z.boolean().optional() })
            .passthrough(),
        ),
      })
      .passthrough(),
  ]),
);

/** `amsflow.memory.command`: a turn appended to an agent's model memory, with the bounds to keep. */
export const memoryCommandSchema = lazily(() =>
  z
    .object({
      op: z.literal('append'),
      turn: z.object({ id: id(), at: z.number().finite(), messages: z.array(chatMessage()) }).passthrough(),
      limits: z.object({ turns: count().min(1), bytes: count().min(1) }).passthrough(),
    })
    .passthrough(),
);

/** A short, payload-free account of why an argument does not fit (paths and codes only). */
export function schemaProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'argument'}: ${issue.message}`)
    .join('; ');
}
