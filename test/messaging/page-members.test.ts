/**
 * An update page's members read one by one (messaging/page-members.ts), and items cut to a size
 * (messaging/size-bounds.ts): the members the simulator cannot produce (it fills ids, senders and
 * receipts itself) are tried here on parsed wire pages. What is said of a member that does not
 * fit names paths and kinds, never a value.
 */
import {
  cutItem,
  cutItemsToFit,
  DEFAULT_UNREADABLE_RAW_BYTES,
  flattenPage,
  type InboundMessage,
  InboundMessageSchema,
  jsonBytes,
  readUpdatePage,
  StatusSchema,
  UnreadableMessageSchema,
  UpdatePageSchema,
} from '../../messaging';
import { UpdatePageWireSchema } from '../../messaging/schemas';
import { cutUtf8 } from '../../messaging/size-bounds';

const reading = { unreadableRawBytes: DEFAULT_UNREADABLE_RAW_BYTES };
const good = {
  from: 'user:1001',
  id: 'wamid.ok',
  timestamp: '1700000000',
  type: 'text',
  text: { body: 'hi' },
};
const SECRET = 'BODY-CANARY';

function pageOf(value: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const wire = UpdatePageWireSchema.parse({
    entry: [{ id: 'demo', changes: [{ field: 'messages', value }] }],
    next_offset: 9,
    ...extra,
  });
  return readUpdatePage(wire, reading);
}

describe('page members read one by one', () => {
  it.each([
    ['a number for image', { ...good, image: 5 }, ['image: expected object, got number']],
    ['a number for text.body', { ...good, text: { body: 5 } }, ['text.body: expected string, got number']],
    [
      'a known type without its object',
      { ...good, type: 'image', text: undefined },
      ['member: message of type image has no image object'],
    ],
    ['a context that is a string', { ...good, context: SECRET }, ['context: expected object, got string']],
  ])('hands a message with %s on as `unknown`, its envelope kept', (_name, member, problems) => {
    const flat = flattenPage(pageOf({ messages: [good, member, { ...good, id: 'wamid.after' }] }));
    expect(flat.messages.map((m) => [m.id, m.type])).toEqual([
      ['wamid.ok', 'text'],
      ['wamid.ok', 'unknown'],
      ['wamid.after', 'text'],
    ]);
    const unknown = UnreadableMessageSchema.parse(flat.messages[1]);
    expect(unknown).toMatchObject({
      from: 'user:1001',
      timestamp: '1700000000',
      unknown: { problems, raw: member },
    });
    expect(InboundMessageSchema.safeParse(unknown).success).toBe(true);
    expect(flat.misfits).toEqual([
      { kind: 'message', action: 'unknown', id: 'wamid.ok', problems, bytes: jsonBytes(member) },
    ]);
    expect(JSON.stringify(flat.misfits)).not.toContain(SECRET);
  });

  it('keeps a usable context, the type as given when short, and the raw message only when small', () => {
    const quoting = { ...good, context: { id: 'wamid.q', from: 'agent:demo' }, image: 'x' };
    const long = { ...good, type: 'x'.repeat(65), image: 'y', pad: 'z'.repeat(DEFAULT_UNREADABLE_RAW_BYTES) };
    const [a, b] = flattenPage(pageOf({ messages: [quoting, long] })).messages;
    expect(a).toMatchObject({ context: { id: 'wamid.q' }, unknown: { type: 'text', raw: quoting } });
    expect(b.unknown).toEqual({ problems: ['image: expected object, got string'], bytes: jsonBytes(long) });
  });

  it('wraps a message the service sent as `unknown` the same way, so that every `unknown` has its object', () => {
    const sent = { ...good, type: 'unknown', text: undefined, errors: [{ code: 131051 }] };
    const flat = flattenPage(pageOf({ messages: [sent] }));
    expect(UnreadableMessageSchema.parse(flat.messages[0]).unknown).toEqual({
      type: 'unknown',
      problems: ['type: sent as unknown'],
      bytes: jsonBytes(sent),
      raw: JSON.parse(JSON.stringify(sent)) as unknown,
    });
    expect(flat.misfits).toEqual([]);
  });

  it.each([
    ['no id', { ...good, id: undefined }],
    ['an empty id', { ...good, id: '' }],
    ['a numeric sender', { ...good, from: 7 }],
    ['no timestamp', { ...good, timestamp: undefined, text: { body: SECRET } }],
    ['a string', SECRET],
  ])('leaves a message with %s out, listed without its content', (_name, member) => {
    const flat = flattenPage(pageOf({ messages: [member, good] }));
    expect(flat.messages.map((m) => m.id)).toEqual(['wamid.ok']);
    expect(flat.misfits).toEqual([expect.objectContaining({ kind: 'message', action: 'skipped' })]);
    expect(JSON.stringify(flat.misfits)).not.toContain(SECRET);
    expect(flat.nextOffset).toBe(9);
  });

  it.each([
    ['a numeric timestamp', { id: 'wamid.s', status: 'read', timestamp: 5 }, 'trimmed', ['wamid.s']],
    ['errors that are not a list', { id: 'wamid.s', status: 'read', errors: SECRET }, 'trimmed', ['wamid.s']],
    ['a numeric status', { id: 'wamid.s', status: 5 }, 'skipped', []],
    ['no id', { status: 'read' }, 'skipped', []],
  ])('hands a receipt with %s on without it, or leaves it out', (_name, member, action, kept) => {
    const flat = flattenPage(pageOf({ statuses: [member, { id: 'wamid.t', status: 'sent' }] }));
    expect(flat.statuses.map((s) => s.id)).toEqual([...kept, 'wamid.t']);
    flat.statuses.forEach((s) => expect(StatusSchema.safeParse(s).success).toBe(true));
    expect(flat.misfits).toEqual([expect.objectContaining({ kind: 'status', action })]);
    expect(JSON.stringify(flat)).not.toContain(SECRET);
  });

  it('hands a contact with a bad profile on without it, and leaves one without wa_id out', () => {
    const flat = flattenPage(
      pageOf({ contacts: [{ wa_id: 'user:1001', profile: 5 }, { profile: { name: 'x' } }] }),
    );
    expect(flat.contacts).toEqual([{ wa_id: 'user:1001' }]);
    expect(flat.misfits.map((m) => [m.kind, m.action])).toEqual([
      ['contact', 'trimmed'],
      ['contact', 'skipped'],
    ]);
  });

  it("never passes a wire `misfits` member on as the client's, and a clean page has none", () => {
    const page = pageOf({ messages: [good] }, { misfits: [{ kind: 'message', action: 'skipped' }] });
    expect(page.misfits).toBeUndefined();
    expect(UpdatePageSchema.safeParse(page).success).toBe(true);
  });
});

describe('items cut to a size', () => {
  it.each([
    ['ASCII', 'abcdef', 4, 'abcd'],
    ['a two-byte character', 'aéé', 4, 'aé'],
    ['a four-byte character', 'a𝄞b', 4, 'a'],
    ['nothing to cut', 'abc', 10, 'abc'],
  ])('cuts %s on a character boundary', (_name, text, bytes, cut) => {
    expect(cutUtf8(text, bytes)).toBe(cut);
  });

  it('cuts long strings but no identifier, and marks the message', () => {
    const id = `wamid.${'i'.repeat(100)}`;
    const message = {
      ...good,
      id,
      text: { body: 'b'.repeat(100) },
      image: { id: 'm'.repeat(100), caption: 'c'.repeat(100) },
    };
    const cut = cutItem(message, 10)!;
    expect(cut).toMatchObject({
      id,
      text: { body: 'b'.repeat(10) },
      image: { id: 'm'.repeat(100), caption: 'c'.repeat(10) },
      truncated: { originalBytes: jsonBytes(message), members: ['text.body', 'image.caption'] },
    });
    expect(cutItem(good, 10)).toBeUndefined();
  });

  it('cuts the largest items first, hands one on as `unknown` when cutting is not enough, and leaves out what still does not fit', () => {
    const small = { ...good, id: 'wamid.small' };
    const wide = {
      ...good,
      id: 'wamid.wide',
      text: { body: 'x' },
      many: Array.from({ length: 500 }, () => 'y'.repeat(20)),
    };
    const huge = { ...good, id: `wamid.${'h'.repeat(5000)}` };
    const messages: InboundMessage[] = [small, wide, huge];
    const total = jsonBytes({ messages });
    const fitted = cutItemsToFit({ messages, statuses: [], keepStatusesBefore: 0 }, total, {
      maxBytes: 2000,
      cutStringBytes: 10,
    });
    expect(fitted.messages.map((m) => [m.id, m.type])).toEqual([
      ['wamid.small', 'text'],
      ['wamid.wide', 'unknown'],
    ]);
    expect(fitted.messages[1]).toMatchObject({
      unknown: { type: 'text' },
      truncated: { originalBytes: jsonBytes(wide), members: ['text', 'many'] },
    });
    expect(fitted.skipped).toEqual([expect.objectContaining({ kind: 'message', action: 'skipped' })]);
    expect(jsonBytes({ messages: fitted.messages })).toBeLessThanOrEqual(2000);
  });
});
