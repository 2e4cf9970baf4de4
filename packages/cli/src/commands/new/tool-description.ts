import { ToolpackError } from '@toolpack/core';
import type { ToolLang } from './plan-tool.ts';
import { toOneLine } from './templates.ts';
import type { ToolNames } from './tool-names.ts';

/** The description a new tool gets until its author writes one. */
export function defaultToolDescription(names: ToolNames, lang: ToolLang | undefined): string {
  // The bash template cannot count without jq or python: it echoes its arguments instead.
  const does =
    lang === 'sh'
      ? 'Echoes the arguments it is given'
      : 'Returns the text it is given and its length';
  return `${does}; say here in one sentence what ${names.snake} does.`;
}

/** `--description` as one line; an empty one is refused. */
export function readDescription(value: string | undefined, fallback: string): string {
  const description = toOneLine(value ?? fallback);
  if (description === '') {
    throw new ToolpackError('E_USAGE', '--description is empty.', {
      hint: 'Say in one sentence what the tool does: the model chooses tools by their descriptions.',
    });
  }
  return description;
}
