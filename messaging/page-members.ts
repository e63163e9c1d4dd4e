/**
 * Reading an update page's members one by one (spec 9: a payload the client does not know is
 * passed through as given). A member that does not fit its schema does not fail its page: were it
 * to, every poll would fail at the same offset, and the agent would answer nothing until someone
 * marked the message read by hand. Instead:
 * - a message is handed on as {@link UNREADABLE_TYPE}, with its usable envelope (`id`, `from`,
 *   `timestamp`, `context`), so that the engine routes it like any other, marks it read and moves
 *   past it; its payload object `unknown` says what did not fit and keeps the message as received
 *   when it is small (one the service itself sent as `unknown` gets the same object). One without
 *   a usable id, sender or time can be neither routed nor marked read: it is left out;
 * - a receipt or a contact is handed on without the members that did not fit, or left out when its
 *   id (a contact's `wa_id`) or a receipt's `status` is unusable;
 * and each is listed in the page's `misfits`, by id, problem and size, never by content, so that
 * the poll activity can log and count it without a body.
 */
import { describeIssue } from './response-parsing';
import {
  type ChangeValue,
  ContactSchema,
  InboundContextSchema,
  InboundEnvelopeSchema,
  type InboundMessage,
  InboundMessageSchema,
  type Misfit,
  StatusSchema,
  UNREADABLE_TYPE,
  type UnreadableMessage,
  UnreadableMessageSchema,
  type UpdatePage,
  type UpdatePageWire,
} from './schemas';
import { jsonBytes } from './size-bounds';
import type { z } from 'zod';

/** How members that do not fit are handed on. */
export interface MemberReading {
  /** Largest message (JSON bytes) whose content an `unknown` message keeps as `unknown.raw`. */
  unreadableRawBytes: number;
}

/** Default {@link MemberReading.unreadableRawBytes}: a text at the spec's 4096 characters, with room. */
export const DEFAULT_UNREADABLE_RAW_BYTES = 16_384;

/** Longest `type` kept in `unknown.type`, and longest id named in a misfit. */
const MAX_TYPE_CHARS = 64;
const MAX_ID_CHARS = 256;
/** Problems listed per member: a schema has few members, but one report need not list them all. */
const MAX_PROBLEMS = 10;

type Member = Record<string, unknown>;
type Envelope = z.infer<typeof InboundEnvelopeSchema>;
type Kind = Misfit['kind'];

/** The typed update page of a parsed wire page: each member read on its own; see the module comment. */
export function readUpdatePage(wire: UpdatePageWire, reading: MemberReading): UpdatePage {
  const misfits: Misfit[] = [];
  const entry = wire.entry.map((e) => ({
    ...e,
    changes: e.changes.map((change) => {
      const { contacts, messages, statuses, ...others } = change.value;
      const value: ChangeValue = { ...others };
      // Absent arrays stay absent, as the wire had them.
      if (contacts) value.contacts = readAll(contacts, (m) => readTrimmed('contact', m, ContactSchema));
      if (messages) value.messages = readAll(messages, (m) => readMessage(m, reading));
      if (statuses) value.statuses = readAll(statuses, (m) => readTrimmed('status', m, StatusSchema));
      return { ...change, value };
    }),
  }));
  // `misfits` is always the client's own: one on the wire is not passed on as if it were.
  const { misfits: _fromWire, ...rest } = wire;
  return { ...rest, entry, ...(misfits.length > 0 ? { misfits } : {}) };

  function readAll<T>(members: unknown[], read: (member: unknown) => { item?: T; misfit?: Misfit }): T[] {
    const items: T[] = [];
    for (const member of members) {
      const { item, misfit } = read(member);
      if (item !== undefined) items.push(item);
      if (misfit) misfits.push(misfit);
    }
    return items;
  }
}

/** One message: as received when it fits, else as {@link UNREADABLE_TYPE}, else left out. */
function readMessage(member: unknown, reading: MemberReading): { item?: InboundMessage; misfit?: Misfit } {
  const parsed = InboundMessageSchema.safeParse(member);
  if (parsed.success) {
    // Every `unknown` message handed on carries the client's `unknown` object, so that whoever
    // handles one can rely on it: one the service sent as `unknown` (it could not read it either)
    // is wrapped the same way, though it is no misfit of this client's.
    if (parsed.data.type !== UNREADABLE_TYPE || UnreadableMessageSchema.safeParse(member).success) {
      return { item: parsed.data };
    }
    return { item: unreadable(member as Envelope, ['type: sent as unknown'], jsonBytes(member), reading) };
  }
  const problems = problemsOf(parsed.error);
  const bytes = jsonBytes(member);
  const envelope = InboundEnvelopeSchema.safeParse(member);
  // The envelope's members are the full schema's too: `problems` names what is wrong with them.
  if (!envelope.success) return { misfit: misfitOf('message', 'skipped', member, problems, bytes) };
  // The member itself, not the parsed copy: `unknown.raw` is the message as received.
  const item = unreadable(member as Envelope, problems, bytes, reading);
  return { item, misfit: misfitOf('message', 'unknown', member, problems, bytes) };
}

/** `message` (its envelope checked) as {@link UNREADABLE_TYPE}: see the module comment. */
function unreadable(
  message: Envelope,
  problems: string[],
  bytes: number,
  reading: MemberReading,
): UnreadableMessage {
  const raw = message as Member;
  const context = raw.context === undefined ? undefined : InboundContextSchema.safeParse(raw.context);
  const type = typeof raw.type === 'string' && raw.type.length <= MAX_TYPE_CHARS ? raw.type : undefined;
  return {
    from: message.from,
    id: message.id,
    timestamp: message.timestamp,
    type: UNREADABLE_TYPE,
    ...(context?.success ? { context: context.data } : {}),
    unknown: {
      ...(type === undefined ? {} : { type }),
      problems,
      bytes,
      ...(bytes <= reading.unreadableRawBytes ? { raw } : {}),
    },
  };
}

/**
 * One receipt or contact: as received when it fits; else without the members that did not fit,
 * when what is left fits (its id and, for a receipt, its status); else left out.
 */
function readTrimmed<S extends z.ZodTypeAny>(
  kind: Kind,
  member: unknown,
  schema: S,
): { item?: z.infer<S>; misfit?: Misfit } {
  const parsed = schema.safeParse(member);
  if (parsed.success) return { item: parsed.data as z.infer<S> };
  const problems = problemsOf(parsed.error);
  const bytes = jsonBytes(member);
  if (member !== null && typeof member === 'object' && !Array.isArray(member)) {
    const misfitting = new Set(parsed.error.issues.map((issue) => issue.path[0]));
    const kept = Object.fromEntries(Object.entries(member).filter(([key]) => !misfitting.has(key)));
    const trimmed = schema.safeParse(kept);
    if (trimmed.success) {
      return { item: trimmed.data as z.infer<S>, misfit: misfitOf(kind, 'trimmed', member, problems, bytes) };
    }
  }
  return { misfit: misfitOf(kind, 'skipped', member, problems, bytes) };
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.slice(0, MAX_PROBLEMS).map((issue) => describeIssue(issue, 'member'));
}

/** A misfit, named by the member's id when that is a short string (never by its content). */
function misfitOf(
  kind: Kind,
  action: Misfit['action'],
  member: unknown,
  problems: string[],
  bytes: number,
): Misfit {
  const raw = member !== null && typeof member === 'object' ? (member as Member) : {};
  const id = kind === 'contact' ? raw.wa_id : raw.id;
  const named = typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_CHARS ? { id } : {};
  return { kind, action, ...named, problems, bytes };
}
