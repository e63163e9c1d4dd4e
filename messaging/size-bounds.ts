/**
 * Inbound items measured and cut to a size. The spec caps no inbound message, but whatever hands
 * them on has a limit (a Temporal payload: 2 MiB by default), so a message too large on its own is
 * handed on cut, marked `truncated` (response-schemas.ts `TruncationSchema`), rather than not at
 * all: refused, it would be fetched again at every poll and stop its agent there.
 */
import {
  type InboundMessage,
  type Misfit,
  type NotUnderstood,
  type Status,
  type Truncation,
  UNREADABLE_TYPE,
  type UnreadableMessage,
} from './schemas';

/**
 * Default length a string of an item too large on its own is cut to, UTF-8 bytes: a text at the
 * spec's 4096 characters (at most 4 bytes each) is never cut.
 */
export const DEFAULT_CUT_STRING_BYTES = 16_384;

/**
 * Members whose strings name something (a message, a media item, a participant): one cut short
 * would name something else, so they are never cut.
 */
const IDENTIFIERS = new Set([
  'id',
  'message_id',
  'from',
  'wa_id',
  'recipient_id',
  'sha256',
  'timestamp',
  'type',
]);
/** Members listed in a marker, and the longest name quoted (a hostile name can be megabytes). */
const MAX_MEMBERS = 20;
const MAX_NAME_CHARS = 40;
/** A `type` longer than this is not kept in `unknown.type`, an id longer than this not named. */
const MAX_TYPE_CHARS = 64;
const MAX_ID_CHARS = 256;

/** JSON size of `value` in UTF-8 bytes, as Temporal's JSON payload converter encodes it. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that splits no character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // A continuation byte (10xxxxxx) right after the cut: the character it belongs to goes too.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * `item` with every string over `cutBytes` cut to that length (identifiers excepted), marked
 * `truncated`; undefined when no string is that long (cutting cannot make it smaller).
 */
export function cutItem<T extends object>(
  item: T,
  cutBytes: number,
): (T & { truncated: Truncation }) | undefined {
  const cut: string[] = [];
  const copy = cutStrings(item, cutBytes, [], cut) as T;
  if (cut.length === 0) return undefined;
  return { ...copy, truncated: { originalBytes: jsonBytes(item), members: cut.slice(0, MAX_MEMBERS) } };
}

/**
 * A message too large to hand on even cut (many long strings, huge member names), as
 * {@link UNREADABLE_TYPE}: its envelope, its type, its size, and the names of what was left out.
 */
export function tooLargeMessage(message: InboundMessage, cutBytes: number): UnreadableMessage {
  const { from, id, timestamp, type, context } = message;
  // A message cut already, or handed on as unknown already, keeps what it came with.
  const bytes = (message.truncated as Partial<Truncation> | undefined)?.originalBytes ?? jsonBytes(message);
  const given =
    type === UNREADABLE_TYPE ? (message.unknown as Partial<NotUnderstood> | undefined)?.type : type;
  const envelope = new Set(['from', 'id', 'timestamp', 'type', 'context', 'truncated']);
  const left = Object.keys(message).filter((key) => !envelope.has(key));
  return {
    from,
    id,
    timestamp,
    type: UNREADABLE_TYPE,
    ...(context !== undefined && jsonBytes(context) <= cutBytes ? { context } : {}),
    unknown: {
      ...(typeof given === 'string' && given.length <= MAX_TYPE_CHARS ? { type: given } : {}),
      problems: [`message: ${bytes} bytes, too large to hand on even with its strings cut`],
      bytes,
    },
    truncated: { originalBytes: bytes, members: left.slice(0, MAX_MEMBERS).map(nameOf) },
  };
}

/** The inbound items of one result (a poll's), to cut as a whole. */
export interface ItemsToFit {
  messages: InboundMessage[];
  statuses: Status[];
  /** Receipts before this index are cut but never left out (another list is matched to them by position). */
  keepStatusesBefore: number;
}

/** What {@link cutItemsToFit} made of the items. */
export interface FittedItems {
  messages: InboundMessage[];
  statuses: Status[];
  /** The messages it cut or handed on as `unknown` (each marked `truncated`). */
  changed: InboundMessage[];
  /** The items it left out. */
  skipped: Misfit[];
}

/**
 * The items cut until the whole they belong to (`totalBytes` now) is within `maxBytes`, as little
 * as will do: the long strings of the largest items first; then the largest messages handed on as
 * {@link UNREADABLE_TYPE} with their envelope only; then (identifiers of megabytes) the largest
 * items left out. A step that would not make an item smaller is not taken.
 */
export function cutItemsToFit(
  items: ItemsToFit,
  totalBytes: number,
  limits: { maxBytes: number; cutStringBytes: number },
): FittedItems {
  const { maxBytes, cutStringBytes: cutBytes } = limits;
  const lists = { message: [...items.messages] as object[], status: [...items.statuses] as object[] };
  const gone = { message: new Set<number>(), status: new Set<number>() };
  const skipped: Misfit[] = [];
  let total = totalBytes;
  /** Every item, or the messages only, largest first, as they are now. */
  const largestFirst = (kinds: readonly ('message' | 'status')[]) =>
    kinds
      .flatMap((kind) => lists[kind].map((item, i) => ({ kind, i, bytes: jsonBytes(item) })))
      .sort((a, b) => b.bytes - a.bytes);
  const step = (kinds: readonly ('message' | 'status')[], make: (item: object) => object | undefined) => {
    for (const { kind, i, bytes } of largestFirst(kinds)) {
      if (total <= maxBytes) return;
      const next = make(lists[kind][i]);
      if (next === undefined || jsonBytes(next) >= bytes) continue;
      total += jsonBytes(next) - bytes;
      lists[kind][i] = next;
    }
  };
  step(['message', 'status'], (item) => cutItem(item, cutBytes));
  step(['message'], (item) => tooLargeMessage(item as InboundMessage, cutBytes));
  for (const { kind, i, bytes } of largestFirst(['message', 'status'])) {
    if (total <= maxBytes) break;
    if (kind === 'status' && i < items.keepStatusesBefore) continue;
    total -= bytes + 1;
    gone[kind].add(i);
    const id = (lists[kind][i] as { id?: unknown }).id;
    const named = typeof id === 'string' && id.length <= MAX_ID_CHARS ? { id } : {};
    skipped.push({
      kind,
      action: 'skipped',
      ...named,
      problems: [`too large to hand on: ${bytes} bytes`],
      bytes,
    });
  }
  const kept = <T>(kind: 'message' | 'status') => lists[kind].filter((_, i) => !gone[kind].has(i)) as T[];
  const messages = kept<InboundMessage>('message');
  const original = new Set<object>(items.messages);
  return {
    messages,
    statuses: kept<Status>('status'),
    changed: messages.filter((m) => !original.has(m)),
    skipped,
  };
}

function nameOf(key: string): string {
  return key.length <= MAX_NAME_CHARS ? key : `${key.slice(0, MAX_NAME_CHARS)}…`;
}

/** A copy of `value` with its long strings cut; `cut` collects their paths. */
function cutStrings(value: unknown, cutBytes: number, path: string[], cut: string[]): unknown {
  if (typeof value === 'string') {
    // Quick test first: a UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair 4 for 2).
    if (value.length * 3 <= cutBytes || Buffer.byteLength(value, 'utf8') <= cutBytes) return value;
    cut.push(path.join('.'));
    return cutUtf8(value, cutBytes);
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v, i) => cutStrings(v, cutBytes, [...path, String(i)], cut));
  // fromEntries, not assignment: a member named `__proto__` stays a member.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      IDENTIFIERS.has(key) ? v : cutStrings(v, cutBytes, [...path, nameOf(key)], cut),
    ]),
  );
}
