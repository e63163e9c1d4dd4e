// An assistant on the worker's model: a harmless tool, a tool that needs the human's yes, reminders.
import { z } from 'zod';
import { answerWithModel, handleMessages, reminderTools, tool, type DoubleTexting } from 'amsflow/workflows';

const weather = tool({
  description: 'The weather now in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: 'weather', // an activity of ./activities.ts
});

const bookTable = tool({
  description: 'Book a table at a restaurant',
  inputSchema: z.object({ restaurant: z.string(), day: z.string(), people: z.number().int().min(1) }),
  execute: 'bookTable',
  needsApproval: ({ restaurant, day, people }) => `Book ${restaurant} for ${people} on ${day}?`,
});

export const onMessage = handleMessages<{ doubleTexting?: DoubleTexting } | undefined>(async (msg, ctx) => {
  await answerWithModel(msg, {
    system: 'You are a helpful assistant. Be brief.',
    tools: { weather, bookTable, ...reminderTools },
    doubleTexting: ctx.config?.doubleTexting, // default 'interrupt'
  });
});
