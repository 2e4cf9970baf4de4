// Benchmark: what the linear-time pattern engine (issue 30, attack 6) costs the argument check.
// The examples' tools, as `mcp list --json` gives them, are checked with Ajv set up as core
// sets it up — once with core's linear-time engine (re2js) for `pattern`, once with V8's
// backtracking engine as before — on each tool's declared examples, or one call built from
// its schema. Also: the ReDoS pattern on 34 `a`s and a `b` with the linear engine, beside the
// backtracking one on fewer letters (each more doubles it).
//
//   pnpm build && pnpm --filter @toolpack/bench bench:argument-check [--rounds 7]
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compileLinearPattern } from '@toolpack/core';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { rounds: { type: 'string', default: '7' } },
});
const rounds = Number(values.rounds);
const repo = path.join(import.meta.dirname, '..');

interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
  inputExamples?: { arguments: Record<string, unknown> }[];
}

const listed = spawnSync(
  process.execPath,
  [
    path.join(repo, 'packages', 'cli', 'bin', 'mcp.js'),
    '-C',
    'examples',
    'list',
    '--json',
    '--no-cache',
  ],
  { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
);
const tools = (JSON.parse(listed.stdout) as { tools: ListedTool[] }).tools;

/** A plain call for a schema without examples: the first enum value, a word, a 1, a true. */
function buildArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, property] of Object.entries(properties)) {
    if (Array.isArray(property.enum)) args[name] = property.enum[0];
    else if (property.type === 'integer' || property.type === 'number') args[name] = 1;
    else if (property.type === 'boolean') args[name] = true;
    else if (property.type === 'array') args[name] = [];
    else args[name] = 'example';
  }
  return args;
}

/** The part of Ajv used here (Ajv is core's dependency, not the benchmarks'). */
interface Ajv2020 {
  compile(schema: object): (data: unknown) => unknown;
}

// Ajv and its formats as @toolpack/core loads them (core's own dependencies).
const requireFromCore = createRequire(import.meta.resolve('@toolpack/core'));
const { Ajv2020: Ajv } = requireFromCore('ajv/dist/2020.js') as {
  Ajv2020: new (options: object) => Ajv2020;
};
const addFormats = requireFromCore('ajv-formats') as { default: (ajv: Ajv2020) => void };

function createAjv(linear: boolean): Ajv2020 {
  const regExp = Object.assign((pattern: string) => compileLinearPattern(pattern), {
    code: 'linear',
  });
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    validateFormats: true,
    logger: false,
    ...(linear ? { code: { regExp } } : {}),
  });
  addFormats.default(ajv);
  return ajv;
}

type Check = { validate: (args: unknown) => boolean; args: Record<string, unknown> };

function buildChecks(ajv: Ajv2020, only?: (tool: ListedTool) => boolean): Check[] {
  const checks: Check[] = [];
  for (const tool of tools) {
    if (only !== undefined && !only(tool)) continue;
    const validate = ajv.compile(tool.inputSchema);
    const calls = tool.inputExamples?.map((example) => example.arguments) ?? [];
    if (calls.length === 0) calls.push(buildArguments(tool.inputSchema));
    for (const args of calls) checks.push({ validate: (value) => validate(value) === true, args });
  }
  return checks;
}

function runChecks(checks: Check[], times: number): void {
  for (let i = 0; i < times; i++) for (const check of checks) check.validate(check.args);
}

/**
 * Nanoseconds per check for each list, the median of `rounds` rounds of about 200 ms each;
 * the two lists take turns within a round, so drift in the machine's load hits both alike.
 */
function measurePair(a: Check[], b: Check[]): [number, number] {
  let perRound = 1;
  for (;;) {
    const started = performance.now();
    runChecks(a, perRound);
    runChecks(b, perRound);
    if (performance.now() - started >= 200) break;
    perRound *= 2;
  }
  const samples: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round++) {
    for (const [index, checks] of (round % 2 === 0 ? [a, b] : [b, a]).entries()) {
      const which = (round % 2 === 0 ? index : 1 - index) as 0 | 1;
      const started = performance.now();
      runChecks(checks, perRound);
      samples[which].push(((performance.now() - started) * 1e6) / (perRound * checks.length));
    }
  }
  const median = (list: number[]) =>
    list.sort((x, y) => x - y)[Math.floor(list.length / 2)] as number;
  return [median(samples[0]), median(samples[1])];
}

const hasPattern = (tool: ListedTool) => JSON.stringify(tool.inputSchema).includes('"pattern"');
const linearAjv = createAjv(true);
const backtrackingAjv = createAjv(false);
const scenarios = [
  { scenario: 'all', only: undefined },
  { scenario: 'with a pattern', only: hasPattern },
].map(({ scenario, only }) => {
  const linear = buildChecks(linearAjv, only);
  const backtracking = buildChecks(backtrackingAjv, only);
  const [linearNs, backtrackingNs] = measurePair(linear, backtracking);
  return {
    scenario,
    tools: tools.filter((tool) => only === undefined || only(tool)).length,
    calls: linear.length,
    linearNs,
    backtrackingNs,
  };
});

const attack = `${'a'.repeat(34)}b`;
const linearStarted = performance.now();
compileLinearPattern('^(a|a)*$').test(attack);
const linearRedosMs = performance.now() - linearStarted;
const backtrackingLetters = 20;
const backtrackingStarted = performance.now();
new RegExp('^(a|a)*$', 'u').test(`${'a'.repeat(backtrackingLetters)}b`);
const backtrackingRedosMs = performance.now() - backtrackingStarted;

const result = {
  rounds,
  scenarios,
  redos: { linearMs34: linearRedosMs, backtrackingLetters, backtrackingMs: backtrackingRedosMs },
};
const out = path.join(import.meta.dirname, 'out');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'argument-check.json'), `${JSON.stringify(result, null, 2)}\n`);
for (const s of scenarios) {
  console.log(
    `${s.scenario}: ${s.tools} tools, ${s.calls} calls: linear ${s.linearNs.toFixed(0)} ns, backtracking ${s.backtrackingNs.toFixed(0)} ns a check (x${(s.linearNs / s.backtrackingNs).toFixed(2)})`,
  );
}
console.log(
  `^(a|a)*$: 34 letters and a b ${linearRedosMs.toFixed(2)} ms linear; ${backtrackingLetters} letters ${backtrackingRedosMs.toFixed(0)} ms backtracking`,
);
