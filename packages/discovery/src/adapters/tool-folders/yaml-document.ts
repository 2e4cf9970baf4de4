import { createDiagnostic, parseLocatedYaml } from '@toolpack/core';
import type { Diagnostic, LocatedYaml, YamlProblem } from '@toolpack/core';

/** A parsed YAML (or JSON) file with its problems as diagnostics about that file. */
export interface LocatedDocument {
  /** The plain value; undefined when the file could not be read as YAML. */
  value: unknown;
  /** Syntax errors, each with its line. */
  diagnostics: Diagnostic[];
  lineOf: LocatedYaml['lineOf'];
}

/** Reads metadata or a workflow with core's YAML reader; JSON files are read the same way. */
export function parseLocatedDocument(content: string, path: string): LocatedDocument {
  const located = parseLocatedYaml(content);
  return {
    value: located.value,
    diagnostics: located.problems.map((problem) => toDiagnostic(problem, path)),
    lineOf: located.lineOf,
  };
}

function toDiagnostic(problem: YamlProblem, path: string): Diagnostic {
  const message =
    problem.kind === 'unreadable'
      ? `cannot be read as YAML: ${problem.message}`
      : problem.kind === 'syntax'
        ? `is not valid YAML: ${problem.message}.`
        : `cannot be read: ${problem.message}.`;
  return createDiagnostic(
    'error',
    'E_YAML_SYNTAX',
    `${path.split(/[\\/]/).pop() ?? path} ${message}`,
    problem.line === undefined ? { path } : { path, line: problem.line },
    'Fix the syntax at that line; YAML indents with spaces, never tabs.',
  );
}
