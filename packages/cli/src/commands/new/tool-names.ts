import { ToolpackError, splitWords, toInvokeFunctionName, validateToolName } from '@toolpack/core';

/** Every spelling one tool needs, each after its convention's rule. */
export interface ToolNames {
  /** The words as typed, lower-cased: `['send', 'notification']`. */
  words: string[];
  /** The MCP tool name and BASIC/header script stem: `send_notification`. */
  snake: string;
  /** dotbot's folder and JS module file stem: `send-notification`. */
  kebab: string;
  /** `SendNotification`: a PowerShell module file stem. */
  pascal: string;
  /** `sendNotification`: the JS export. */
  camel: string;
  /** dotbot's tool-folder function: `Invoke-SendNotification`. */
  invokeFunction: string;
  /** A PowerShell script or module function, Verb-Noun: `Send-Notification`. */
  verbNoun: string;
  /** The tool name discovery gives `verbNoun` (`-` becomes `_`): `Send_Notification`. */
  verbNounTool: string;
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * Reads NAME in any case (`send-notification`, `SendNotification`, `send_notification`,
 * `Send Notification`) into the spelling each convention wants. Throws `E_USAGE` for a
 * name with no letters, one that starts with a digit (no JS export or PowerShell noun can),
 * or one longer than MCP allows.
 */
export function deriveToolNames(raw: string): ToolNames {
  const words = splitWords(raw);
  const first = words[0];
  if (first === undefined) {
    throw new ToolpackError(
      'E_USAGE',
      `The name ${JSON.stringify(raw)} has no letters or digits.`,
      {
        hint: 'Name the tool after what it does, such as send-notification.',
      },
    );
  }
  if (!/^[a-z]/.test(first)) {
    throw new ToolpackError('E_USAGE', `The name ${JSON.stringify(raw)} starts with a digit.`, {
      hint: 'Start with a verb, such as get-2fa-code instead of 2fa-code.',
    });
  }
  const snake = words.join('_');
  const problems = validateToolName(snake);
  if (problems.length > 0) {
    throw new ToolpackError(
      'E_USAGE',
      `The tool name ${snake} is not valid: ${problems.join('; ')}.`,
      {
        hint: 'Use a shorter name (MCP allows 64 characters).',
      },
    );
  }
  const pascal = words.map(capitalize).join('');
  const rest = words.slice(1).map(capitalize).join('');
  const verbNoun = rest === '' ? capitalize(first) : `${capitalize(first)}-${rest}`;
  return {
    words,
    snake,
    kebab: words.join('-'),
    pascal,
    camel: first + rest,
    invokeFunction: toInvokeFunctionName(snake),
    verbNoun,
    verbNounTool: verbNoun.replace(/-/g, '_'),
  };
}
