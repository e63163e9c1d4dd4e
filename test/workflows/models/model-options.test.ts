/** A model turn's options and tools, checked at the call with their defaults (pure). */
import { z } from 'zod';
import { turnSettings } from '../../../workflows/models/model-options';
import { tool } from '../../../workflows/models/tool';
import { DEFAULT_MEMORY_LIMITS } from '../../../protocol/models';

const weather = tool({
  description: 'Weather',
  inputSchema: z.object({ city: z.string() }),
  execute: 'weather',
});

describe('turn settings', () => {
  it('applies the defaults', () => {
    expect(turnSettings(undefined)).toMatchObject({
      doubleTexting: 'interrupt',
      memory: DEFAULT_MEMORY_LIMITS,
      maxSteps: 8,
      approvalTimeoutMs: 600_000,
      timeoutMs: 120_000,
      attempts: 5,
      backoffMs: 1000,
      maxMessageChars: 4096,
      specs: [],
    });
    expect(turnSettings({ maxMessageChars: 500 }).maxMessageChars).toBe(500);
    expect(() => turnSettings({ maxMessageChars: 0 })).toThrow(/maxMessageChars/);
  });

  it('shows the tools to the model by name, description and JSON Schema', () => {
    expect(turnSettings({ tools: { weather } }).specs).toEqual([
      {
        name: 'weather',
        description: 'Weather',
        inputSchema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
          additionalProperties: false,
        },
      },
    ]);
  });

  it.each([
    [{ doubleTexting: 'later' }, /doubleTexting "later" is not one of interrupt, queue, apart/],
    [{ timout: '1 minute' }, /options\.timout .* is not an option/],
    [{ timeout: '1 dya' }, /timeout "1 dya" is not a duration/],
    [{ memory: { turns: 0 } }, /memory\.turns 0 is not a whole number from 1 to 1000/],
    [{ memory: 'yes' }, /memory "yes" is not true or false/],
    [{ temperature: 3 }, /temperature 3 is not a number from 0 to 2/],
    [{ tools: { 'bad name': weather } }, /tools "bad name" is not a tool name/],
    [
      { tools: { weather: { ...weather, inputSchema: {} } } },
      /tools\.weather\.inputSchema .* is not a zod schema/,
    ],
    [{ tools: { weather: { ...weather, execute: 3 } } }, /tools\.weather\.execute 3 is not a function/],
    [
      { tools: { weather: { ...weather, needsApproval: 'yes' } } },
      /needsApproval "yes" is not true, false or a function/,
    ],
    [
      { tools: { when: { ...weather, inputSchema: z.object({ at: z.date() }) } } },
      /tools\.when\.inputSchema\.at "date"/,
    ],
  ])('refuses %j with InvalidOption', (options, message) => {
    expect(() => turnSettings(options as never)).toThrow(message);
  });
});
