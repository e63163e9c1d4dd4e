/**
 * The zod schema of the simulator's state file (simulator/state-file.ts says what it keeps and
 * why): checked whole on load, every agent's part again before it is applied.
 */
import { z } from 'zod';

export const STATE_FORMAT = 'amsflow-simulator-state';
export const STATE_VERSION = 1;

const int = z.number().int();
/** Media bytes are kept in files named by their SHA-256. */
export const SHA256_NAME = /^[0-9a-f]{64}$/;
const receiptStatus = z.enum(['sent', 'delivered', 'read']);

const InboundMessageSchema = z
  .object({
    from: z.string(),
    id: z.string().min(1),
    timestamp: z.string(),
    type: z.string().min(1),
    context: z.object({ from: z.string().optional(), id: z.string() }).passthrough().optional(),
  })
  .passthrough();

const SeqEntrySchema = z.discriminatedUnion('kind', [
  z.object({
    seq: int.positive(),
    at: z.number(),
    kind: z.literal('message'),
    message: InboundMessageSchema,
  }),
  z.object({
    seq: int.positive(),
    at: z.number(),
    kind: z.literal('status'),
    status: z.object({
      id: z.string().min(1),
      status: receiptStatus,
      timestamp: z.string(),
      recipient_id: z.string(),
    }),
  }),
]);

const SentRecordSchema = z.object({
  id: z.string().min(1),
  to: z.string(),
  type: z.string().min(1),
  body: z.record(z.unknown()),
  acceptedAt: z.number(),
  realAt: z.number(),
  receipts: z.array(receiptStatus),
  seq: int.nonnegative(),
  quoted: z.object({ id: z.string(), from: z.string().optional() }).optional(),
  media: z.object({ mime_type: z.string(), sha256: z.string(), filename: z.string().optional() }).optional(),
});

const InboundRecordSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  markedRead: z.boolean(),
  offset: int.nonnegative(),
  message: InboundMessageSchema,
  // The read check's moments (unread-grace.ts); optional: files written before it lack them.
  deliveredSimAt: z.number().optional(),
  deliveredAt: z.number().optional(),
  readSimAt: z.number().optional(),
  readAt: z.number().optional(),
});

const MediaMetaSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/),
  mimeType: z.string().min(1),
  sha256: z.string().regex(SHA256_NAME),
  size: int.nonnegative(),
  filename: z.string().optional(),
  origin: z.enum(['agent', 'human']),
  createdAt: z.number(),
  expiresAt: z.number(),
});

export const AgentSnapshotSchema = z
  .object({
    nextSeq: int.positive(),
    accepted: int.nonnegative(),
    entries: z.array(SeqEntrySchema),
    sent: z.array(SentRecordSchema),
    inbound: z.array(InboundRecordSchema),
    media: z.array(MediaMetaSchema),
  })
  .superRefine((agent, ctx) => {
    let last = 0;
    for (const entry of agent.entries) {
      if (entry.seq <= last || entry.seq >= agent.nextSeq) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['entries'],
          message: `sequence numbers must increase and stay below nextSeq (${agent.nextSeq}); found ${entry.seq} after ${last}`,
        });
        return;
      }
      last = entry.seq;
    }
    const ids = new Set<string>();
    for (const record of [...agent.sent, ...agent.inbound]) {
      if (ids.has(record.id)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['sent'],
          message: `message id ${record.id} twice`,
        });
        return;
      }
      ids.add(record.id);
    }
  });
export type AgentSnapshot = z.infer<typeof AgentSnapshotSchema>;

export const StateFileSchema = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(STATE_VERSION),
  /** Real epoch ms of the write. */
  savedAt: z.number(),
  /** Simulated epoch ms of the write; simulated time never goes back across a restart. */
  simNow: z.number(),
  /** Written by a close: nothing happened after it. */
  clean: z.boolean(),
  /** By agent id. Agents the simulator does not serve this time are kept as they are. */
  agents: z.record(z.unknown()),
});
export type StateFile = z.infer<typeof StateFileSchema>;

/** The first issues of a failed parse, for an error message. */
export const describeIssues = (error: z.ZodError): string =>
  error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`)
    .join('; ');
