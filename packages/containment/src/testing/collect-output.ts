import { once } from 'node:events';
import type { ContainedProcess } from '../spawn-contained.ts';

/** Feeds `stdin` to a contained child and waits for it to close: its output, code and signal. */
export async function collectOutput(contained: ContainedProcess, stdin = '') {
  let stdout = '';
  let stderr = '';
  contained.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  contained.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A child may exit before it reads its stdin (a refused spawn, a script that ignores it):
  // the write then fails with EPIPE, which is not the test's failure; its exit code is.
  contained.child.stdin?.on('error', () => {});
  contained.child.stdin?.end(stdin);
  const [code, signal] = (await once(contained.child, 'close')) as [number | null, string | null];
  return { stdout, stderr, code, signal };
}
