/**
 * Every signal and update argument schema (protocol/message-schemas.ts) takes what amsflow's
 * own senders send and refuses `null`, `1`, `{}` and a wrong-typed field, without throwing.
 */
import * as s from '../../protocol/message-schemas';

const message = { id: 'm1', from: 'user:1', type: 'text', timestamp: '1', text: { body: 'hi' } };
const table: [string, { safeParse(v: unknown): { success: boolean } }, unknown, unknown[]][] = [
  [
    'sendRequest',
    s.sendRequestSchema,
    { requestId: 'r1', message: { type: 'text', text: { body: 'x' } } },
    [null, 1, {}, { requestId: 5, message: { type: 'text' } }],
  ],
  [
    'wait',
    s.waitRequestSchema,
    { workflowId: 'w', wait: true, waitId: 1, questionId: 'q' },
    [null, 1, {}, { workflowId: 'w', wait: 'yes' }],
  ],
  [
    'ops',
    s.conversationOpsSchema,
    {
      from: 'w',
      ops: [
        { op: 'send', request: { requestId: 'r1', message: { type: 'text' }, requester: 'w' } },
        { op: 'wait', request: { workflowId: 'w', wait: false, waitId: 2 } },
        { op: 'release', seq: 3 },
        { op: 'typing', messageId: 'm1' },
        { op: 'receipts', messageId: 'm1' },
      ],
    },
    [null, 1, {}, { from: 'w', ops: 'x' }, { from: 'w', ops: [{ op: 'release', seq: 'x' }] }],
  ],
  [
    'op (release)',
    s.conversationOpSchema,
    { op: 'release', seq: 3 },
    [null, 1, {}, { op: 'release', seq: 'x' }],
  ],
  [
    'op (typing)',
    s.conversationOpSchema,
    { op: 'typing', messageId: 'm1' },
    [null, 1, {}, { op: 'typing', messageId: 7 }, { op: 'shout', messageId: 'm1' }],
  ],
  [
    'handler result',
    s.handlerResultSchema,
    { ops: [{ op: 'release', seq: 1 }] },
    [1, 'x', { ops: 3 }, { ops: [{ op: 'nope' }] }],
  ],
  ['resume', s.resumeSchema, null, [1, 'x', { reason: 5 }]],
  [
    'sendResult',
    s.sendResultSchema,
    { requestId: 'r', outcome: { ok: true, messageId: 'm', attempts: 1 } },
    [null, 1, {}, { requestId: 'r', outcome: { ok: 'yes' } }],
  ],
  ['inbound', s.routedMessageSchema, { message, seq: 1, waitId: 2 }, [null, 1, {}, { message, seq: 'one' }]],
  [
    'late',
    s.lateMessageSchema,
    { message, seq: 1, questionId: 'q' },
    [null, 1, {}, { message: 1, seq: 1, questionId: 'q' }],
  ],
  [
    'receipt',
    s.receiptSchema,
    { messageId: 'm', status: 'read' },
    [null, 1, {}, { messageId: 'm', status: 3 }],
  ],
  ['cancel', s.cancelSchema, { reason: 'ops' }, [1, 'x', { reason: 5 }]],
  [
    'reminders.command',
    s.remindersCommandSchema,
    { op: 'cancel', id: 'r1' },
    [null, 1, {}, { op: 'cancel', id: 5 }, { op: 'drop' }],
  ],
  [
    'reminders.command (zone)',
    s.remindersCommandSchema,
    { op: 'zone', timeZone: 'Europe/Berlin' },
    [{ op: 'zone' }, { op: 'zone', timeZone: 7 }, { op: 'zone', timeZone: '' }],
  ],
];

describe('argument schemas of signals and updates', () => {
  it.each(table)('%s takes a real argument and refuses bad ones', (_name, schema, good, bad) => {
    expect(schema.safeParse(good).success).toBe(true);
    for (const value of bad) expect(schema.safeParse(value).success).toBe(false);
  });

  it('keeps members it does not know (a newer sender), and a cancel or resume without argument is one', () => {
    const parsed = s.routedMessageSchema.parse({ message: { ...message, extra: 1 }, seq: 1, later: true });
    expect(parsed).toMatchObject({ later: true, message: { extra: 1, text: { body: 'hi' } } });
    expect(s.cancelSchema.parse(null)).toEqual({});
    expect(s.resumeSchema.parse(undefined)).toEqual({});
  });

  it('takes every inbound message the messaging client accepts: a reaction, a quote without an id', () => {
    const reaction = {
      id: 'm2',
      from: 'user:1',
      type: 'reaction',
      timestamp: '2',
      reaction: { message_id: 'm1' },
    };
    const quoting = { ...message, context: { from: 'agent:x' } };
    for (const m of [reaction, quoting])
      expect(s.routedMessageSchema.safeParse({ message: m, seq: 1 }).success).toBe(true);
  });

  /** `message` with `patch` over it. */
  const withPatch = (patch: Record<string, unknown>) => ({ ...message, ...patch });

  it.each([
    ['a numeric text body', { text: { body: 5 } }, 'message.text.body'],
    ['a text without a body', { text: {} }, 'message.text.body'],
    [
      'a numeric reaction emoji',
      { type: 'reaction', reaction: { message_id: 'm1', emoji: 7 } },
      'message.reaction.emoji',
    ],
    [
      'a reaction to no message',
      { type: 'reaction', reaction: { emoji: '👍' } },
      'message.reaction.message_id',
    ],
    ['a numeric quoted id', { context: { id: 9 } }, 'message.context.id'],
    [
      'a caption that is no text',
      { type: 'image', image: { id: 'x', caption: ['a'] } },
      'message.image.caption',
    ],
    ['a media object that is a number', { type: 'image', image: 5 }, 'message.image'],
    [
      'a file name that is no text',
      { type: 'document', document: { id: 'x', filename: 1 } },
      'message.document.filename',
    ],
    ['an empty message id', { id: '' }, 'message.id'],
  ])('refuses a routed message with %s, naming the field', (_what, patch, path) => {
    for (const schema of [s.routedMessageSchema, s.lateMessageSchema]) {
      const result = schema.safeParse({ message: withPatch(patch), seq: 1, questionId: 'q' });
      expect(result.success).toBe(false);
      expect(s.schemaProblem((result as { error: import('zod').ZodError }).error)).toMatch(
        new RegExp(`^${path}: `),
      );
    }
  });

  it('takes a message of a type it does not know, and one handed on as unknown, with their members', () => {
    const odd = { id: 'm3', from: 'user:1', type: 'poll', timestamp: '3', poll: { question: 5 } };
    const unknown = {
      id: 'm4',
      from: 'user:1',
      type: 'unknown',
      timestamp: '4',
      unknown: { type: 'image', problems: ['image: expected object, got number'], bytes: 80 },
    };
    for (const m of [odd, unknown])
      expect(s.routedMessageSchema.parse({ message: m, seq: 1 })).toEqual({ message: m, seq: 1 });
  });

  it.each([
    ['a numeric text body', { type: 'text', text: { body: 5 } }, 'message.text.body'],
    [
      'a quote of no message',
      { type: 'text', text: { body: 'x' }, context: { message_id: 3 } },
      'message.context.message_id',
    ],
    ['a numeric caption', { type: 'image', image: { id: 'm', caption: 2 } }, 'message.image.caption'],
  ])('refuses a send request with %s in its message', (_what, msg, path) => {
    const result = s.sendRequestSchema.safeParse({ requestId: 'r1', message: msg });
    expect(result.success).toBe(false);
    expect(s.schemaProblem((result as { error: import('zod').ZodError }).error)).toMatch(
      new RegExp(`^${path}: `),
    );
    expect(
      s.sendRequestSchema.safeParse({ requestId: 'r1', message: { type: 'sticker', sticker: { id: 'm' } } })
        .success,
    ).toBe(true);
  });

  it('says what is wrong by path, without the payload', () => {
    const result = s.conversationOpSchema.safeParse({ op: 'release', seq: 'secret-text' });
    expect(result.success).toBe(false);
    const problem = s.schemaProblem((result as { error: import('zod').ZodError }).error);
    expect(problem).toMatch(/^seq: /);
    expect(problem).not.toContain('secret-text');
  });
});
