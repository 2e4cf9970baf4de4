// Records the machine's load average just before a benchmark starts, so the report can say
// how busy the shared machine was while each figure was taken.
//
//   node record-load.ts <benchmark-name>     (bench/package.json `all` calls it before each)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const name = process.argv[2];
if (name === undefined || name === '') {
  console.error('usage: node record-load.ts <benchmark-name>');
  process.exit(2);
}
const out = path.join(import.meta.dirname, 'out');
const file = path.join(out, 'load-average.json');
mkdirSync(out, { recursive: true });
let recorded: Record<string, unknown> = {};
if (existsSync(file)) {
  try {
    recorded = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    recorded = {}; // a torn file from an interrupted run: start again
  }
}
recorded[name] = { at: new Date().toISOString(), loadAverage: os.loadavg() };
writeFileSync(file, `${JSON.stringify(recorded, null, 2)}\n`);
