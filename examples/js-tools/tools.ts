import { defineTool } from '@toolpack/core';
import { z } from 'zod';

// Every exported defineTool(...) value is a tool. All tools of this module share one child
// process, so this counter is shared between calls (and reset when the server restarts).
let calls = 0;

export const addNumbers = defineTool({
  name: 'add_numbers',
  description: 'Adds a list of numbers and returns their sum.',
  input: z.object({
    numbers: z.array(z.number()).min(1).describe('The numbers to add.'),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  run: ({ numbers }) => ({ sum: numbers.reduce((a, b) => a + b, 0) }),
});

export const countCalls = defineTool({
  name: 'count_calls',
  description:
    'Counts how many times the tools of this module have been called since the server started.',
  input: z.object({}),
  annotations: { readOnlyHint: true },
  run: () => ({ calls: ++calls }),
});

export const wait = defineTool({
  name: 'wait',
  description: 'Waits a number of milliseconds, reporting progress, and can be cancelled.',
  input: z.object({
    ms: z.number().int().min(0).max(60_000).describe('How long to wait, in milliseconds.'),
  }),
  annotations: { readOnlyHint: true },
  run: async ({ ms }, { signal, progress }) => {
    const steps = 10;
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, ms / steps));
      if (signal.aborted) throw new Error('cancelled');
      progress(i, steps);
    }
    return `waited ${ms} ms`;
  },
});
