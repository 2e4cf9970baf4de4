import { createPainter, type CliIo } from '../../io.ts';
import type { ToolKind, ToolLang } from './plan-tool.ts';
import { showPath } from './show-path.ts';

const LANG_NAMES: Record<ToolLang, string> = {
  ps1: 'PowerShell',
  sh: 'bash',
  py: 'Python',
  js: 'JavaScript',
  ts: 'TypeScript',
};

/** "PowerShell script", "tool folder": how `mcp new` names what it wrote. */
export function kindLabel(kind: ToolKind, lang: ToolLang | undefined): string {
  const label: Record<ToolKind, string> = {
    folder: 'tool folder',
    script: 'script',
    module: 'module',
    basic: 'BASIC script',
  };
  return lang === undefined ? label[kind] : `${LANG_NAMES[lang]} ${label[kind]}`;
}

/** What `mcp new` prints once the files are written: JSON with --json, else a short list. */
export function reportCreated(
  io: CliIo,
  report: {
    json: object | undefined;
    heading: (paint: ReturnType<typeof createPainter>) => string;
    files: readonly string[];
    /** What else it changed (toolpack.yaml, .gitignore), one line each. */
    changes?: readonly string[];
    next: readonly string[];
    notes: readonly string[];
  },
): void {
  if (report.json !== undefined) {
    io.stdout.write(`${JSON.stringify(report.json, null, 2)}\n`);
    return;
  }
  const paint = createPainter(io.stdout, io.env);
  const lines = [
    report.heading(paint),
    ...report.files.map((file) => `  ${paint('green', showPath(file))}`),
    ...(report.changes === undefined || report.changes.length === 0 ? [] : ['', ...report.changes]),
    '',
    'Next:',
    ...report.next.map((line) => `  ${line}`),
    ...(report.notes.length === 0
      ? []
      : ['', ...report.notes.map((note) => paint('yellow', note))]),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
}
