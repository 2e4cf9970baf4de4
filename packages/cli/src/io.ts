import { styleText } from 'node:util';

/** Where a command writes; tests pass buffers, the binary passes the process streams. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * What a command's plain function reads of where it runs: the project folder (after `-C`) and
 * the environment. It never writes; its `command.ts` prints what it returns.
 */
export type CommandContext = Pick<CliIo, 'cwd' | 'env'>;

export type Style = 'bold' | 'dim' | 'red' | 'yellow' | 'green' | 'cyan';

/** Colours only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function createPainter(
  stream: CliIo['stdout'],
  env: NodeJS.ProcessEnv,
): (style: Style, text: string) => string {
  const enabled =
    stream.isTTY === true &&
    (env.NO_COLOR === undefined || env.NO_COLOR === '') &&
    env.TERM !== 'dumb';
  return (style, text) => (enabled ? styleText(style, text, { validateStream: false }) : text);
}
