/** Tool schemas: zod 3 and zod 4 input schemas as the JSON Schema a model is shown (pure). */
import { z } from 'zod';
import { z as z4 } from 'zod/v4';
import { toJsonSchema, UnsupportedSchema } from '../../../workflows/models/tool-schema';

describe('toJsonSchema', () => {
  it('shows a zod 3 object with its checks, descriptions, optional and default members', () => {
    const schema = z
      .object({
        to: z.string().min(2).max(40).describe('who gets it'),
        amount: z.number().int().min(1).max(500),
        currency: z.enum(['EUR', 'USD']),
        note: z.string().optional(),
        urgent: z.boolean().default(false),
        kind: z.literal('transfer'),
        ref: z.union([z.string(), z.number()]).nullable(),
        tags: z.array(z.string()).max(3),
        checked: z.string().refine((s) => s.length > 0),
      })
      .describe('a transfer');
    expect(toJsonSchema(schema)).toEqual({
      type: 'object',
      description: 'a transfer',
      additionalProperties: false,
      required: ['to', 'amount', 'currency', 'kind', 'ref', 'tags', 'checked'],
      properties: {
        to: { type: 'string', minLength: 2, maxLength: 40, description: 'who gets it' },
        amount: { type: 'integer', minimum: 1, maximum: 500 },
        currency: { enum: ['EUR', 'USD'] },
        note: { type: 'string' },
        urgent: { type: 'boolean', default: false },
        kind: { enum: ['transfer'] },
        ref: { anyOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { type: 'null' }] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        checked: { type: 'string' },
      },
    });
  });

  it('shows the same schema written with zod 4', () => {
    const schema = z4.object({
      to: z4.string().min(2).describe('who gets it'),
      amount: z4.number().int().min(1),
      currency: z4.enum(['EUR', 'USD']),
      note: z4.string().optional(),
      tags: z4.array(z4.string()).max(3),
      kind: z4.literal('transfer'),
    });
    expect(toJsonSchema(schema)).toMatchObject({
      type: 'object',
      required: ['to', 'amount', 'currency', 'tags', 'kind'],
      properties: {
        to: { type: 'string', minLength: 2, description: 'who gets it' },
        amount: { type: 'integer', minimum: 1 },
        currency: { enum: ['EUR', 'USD'] },
        note: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        kind: { enum: ['transfer'] },
      },
    });
  });

  it('refuses a type a model cannot be shown, naming where it is', () => {
    const attempt = () => toJsonSchema(z.object({ when: z.date() }), 'tools.book.inputSchema');
    expect(attempt).toThrow(UnsupportedSchema);
    expect(attempt).toThrow(/^tools\.book\.inputSchema\.when: a zod date cannot be shown/);
    expect(() => toJsonSchema({ not: 'a schema' })).toThrow(/a zod unknown value/);
  });
});
