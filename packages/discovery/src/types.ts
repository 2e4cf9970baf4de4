import type { Diagnostic, DiscoveredTool } from '@toolpack/core';

/** What one adapter returns for one source. */
export interface SourceResult {
  tools: DiscoveredTool[];
  diagnostics: Diagnostic[];
}

/**
 * Per-file memo of parse results, keyed by the files' path, size, mtime and content hash.
 * `parse` runs only when one of `files` changed since the stored result; its result must
 * be plain JSON. `kind` names the parser and its version (`ps-script@1`): bump the
 * version when a parser's output changes so old entries are never served.
 */
export interface ParseCache {
  read<T>(
    kind: string,
    files: readonly string[],
    parse: (contents: string[]) => T | Promise<T>,
  ): Promise<T>;
}
