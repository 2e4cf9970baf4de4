import { InvalidArgumentError } from 'commander';

/** Commander's parser for a repeatable option: every occurrence, in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError('expected a whole number >= 1.');
  return n;
}

export function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number of milliseconds >= 1.');
  }
  return n;
}
