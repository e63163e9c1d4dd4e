/** Tool texts: the approval question shows the tool and its arguments; why a call did not run (pure). */
import { z } from 'zod';
import { tool } from '../../../workflows/models/tool';
import {
  approvalQuestion,
  formatArguments,
  invalidArguments,
  notRunText,
} from '../../../workflows/models/tool-texts';

const transfer = tool({
  description: 'Send money',
  inputSchema: z.object({ to: z.string(), amount: z.number() }),
  execute: 'transfer',
  needsApproval: ({ to, amount }) => `Send ${amount} EUR to ${to}?`,
});

describe('tool texts', () => {
  it('asks with the author’s line, then what runs with which arguments', () => {
    expect(approvalQuestion('transfer', transfer, { to: 'Bob', amount: 50 })).toBe(
      'Send 50 EUR to Bob?\nRun transfer with to: "Bob", amount: 50?',
    );
    expect(
      approvalQuestion('transfer', { ...transfer, needsApproval: true }, { to: 'Bob', amount: 50 }),
    ).toBe('Run transfer with to: "Bob", amount: 50?');
  });

  it('refuses to ask a question too long to show', () => {
    expect(approvalQuestion('transfer', transfer, { to: 'B'.repeat(5000), amount: 1 })).toBeUndefined();
  });

  it('formats arguments of any shape', () => {
    expect(formatArguments({})).toBe('no arguments');
    expect(formatArguments({ a: [1, 2], b: undefined })).toBe('a: [1,2]');
    expect(formatArguments('x')).toBe('"x"');
  });

  it('tells the model why nothing ran', () => {
    expect(notRunText('rejected')).toMatch(/^The human said no: nothing ran/);
    expect(notRunText('expired', '10 minutes')).toBe('The human did not answer within 10m: nothing ran.');
    expect(notRunText('interrupted')).toMatch(/wrote again/);
    expect(invalidArguments([{ message: 'Required', path: ['to'] }, { message: 'Expected number' }])).toBe(
      'Invalid arguments (to: Required; input: Expected number). Nothing ran.',
    );
  });
});
