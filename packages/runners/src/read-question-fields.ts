import type { ToolQuestionField } from '@toolpack/core';

const readText = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The fields of a question a tool's process sent (the PowerShell host, a JS module's child),
 * each kept only with a name; anything else in them is dropped.
 */
export function readQuestionFields(value: unknown): ToolQuestionField[] {
  if (!Array.isArray(value)) return [];
  const fields: ToolQuestionField[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const raw = item as Record<string, unknown>;
    const name = readText(raw.name);
    if (name === undefined) continue;
    const title = readText(raw.title);
    const description = readText(raw.description);
    const fallback = readText(raw.default);
    const field: ToolQuestionField = {
      name,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
    };
    if (Array.isArray(raw.choices)) {
      field.choices = (raw.choices as unknown[]).flatMap((choice) => {
        if (typeof choice !== 'object' || choice === null) return [];
        const option = choice as Record<string, unknown>;
        if (typeof option.value !== 'string') return [];
        const help = readText(option.description);
        return [{ value: option.value, ...(help === undefined ? {} : { description: help }) }];
      });
    }
    fields.push(field);
  }
  return fields;
}
