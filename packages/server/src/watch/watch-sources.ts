import type { DiscoveredTool, SourceSpec } from '@toolpack/core';
import { createSourceWatcher, findWatchRoots, type SourceWatcher } from './source-watcher.ts';

/** The module files the served tools were loaded from: their folders are watched too. */
export function findModuleFiles(tools: readonly DiscoveredTool[]): string[] {
  const files = new Set<string>();
  for (const { invocation } of tools) {
    if (invocation.runner === 'node-worker') files.add(invocation.modulePath);
    else if (invocation.runner === 'pwsh' && invocation.mode === 'module')
      files.add(invocation.modulePath);
  }
  return [...files];
}

export interface WatchSourcesOptions {
  sources: readonly SourceSpec[];
  cwd: string;
  tools: readonly DiscoveredTool[];
  debounceMs?: number;
  onChange(paths: string[]): void;
  log(line: string): void;
}

/** Watches the folders of the sources and of the loaded modules; undefined when none exists. */
export function watchSources(options: WatchSourcesOptions): SourceWatcher | undefined {
  const roots = findWatchRoots({
    sources: options.sources,
    cwd: options.cwd,
    moduleFiles: findModuleFiles(options.tools),
  });
  if (roots.length === 0) return undefined;
  return createSourceWatcher({
    roots,
    ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
    onChange: options.onChange,
    onError: (error) => options.log(`watching the sources failed: ${error.message}`),
  });
}
