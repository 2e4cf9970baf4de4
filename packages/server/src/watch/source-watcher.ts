import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import picomatch from 'picomatch';
import type { SourceSpec } from '@toolpack/core';

// Folders whose churn is never a tool edit: the discovery cache is written under
// .toolpack/ on every reload, so watching it would reload forever.
const IGNORED_SEGMENTS = new Set(['node_modules', '.git', '.toolpack', '.hg', '.svn']);

export interface WatchRootsOptions {
  sources: readonly SourceSpec[];
  cwd: string;
  /** Module files discovery actually loaded (a PowerShell module named on PSModulePath has no spec path). */
  moduleFiles?: readonly string[];
}

/**
 * The folders to watch for a set of sources: a tools/scripts/workflows folder itself (the
 * static part of a glob such as `.bot/workflows/*\/tools`), and a module's folder, since a
 * module imports its neighbours.
 */
export function findWatchRoots(options: WatchRootsOptions): string[] {
  const roots = new Set<string>();
  for (const spec of options.sources) {
    const location =
      'tools' in spec
        ? spec.tools
        : 'scripts' in spec
          ? spec.scripts
          : 'workflows' in spec
            ? spec.workflows
            : spec.module;
    const absolute = path.resolve(options.cwd, location);
    if ('module' in spec) {
      if (existsSync(absolute)) roots.add(path.dirname(absolute));
      continue;
    }
    const scan = picomatch.scan(location);
    roots.add(scan.isGlob ? path.resolve(options.cwd, scan.base || '.') : absolute);
  }
  for (const file of options.moduleFiles ?? [])
    roots.add(path.dirname(path.resolve(options.cwd, file)));
  return [...roots].filter((root) => existsSync(root)).sort();
}

export function isIgnoredPath(file: string): boolean {
  return file.split(/[\\/]/).some((segment) => IGNORED_SEGMENTS.has(segment));
}

/**
 * Quiet time after the last change before a batch is reported: an editor's save (often a
 * temporary file, a rename and a touch) becomes one reload instead of three.
 */
export const DEFAULT_WATCH_DEBOUNCE_MS = 150;

export interface SourceWatcherOptions {
  roots: readonly string[];
  /** Quiet time before a batch of changes is reported. Default DEFAULT_WATCH_DEBOUNCE_MS. */
  debounceMs?: number;
  /** Called once per settled batch with every path that changed in it. */
  onChange(paths: string[]): void;
  onError?(error: Error): void;
}

export interface SourceWatcher {
  /** Resolves once the initial scan is done and changes are being reported. */
  ready: Promise<void>;
  /** Watches more folders (after a reload found a new module). */
  add(roots: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * Watches the source folders and reports debounced batches of changed paths. chokidar is
 * loaded here, so a server started with watching off never loads it.
 */
export function createSourceWatcher(options: SourceWatcherOptions): SourceWatcher {
  const debounceMs = options.debounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS;
  const watched = new Set(options.roots);
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    timer = undefined;
    if (closed || pending.size === 0) return;
    const batch = [...pending].sort();
    pending = new Set();
    options.onChange(batch);
  };
  const reportError = (error: unknown) =>
    options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const started: Promise<FSWatcher | undefined> = import('chokidar').then(
    ({ watch }) => {
      if (closed) return undefined;
      const watcher = watch([...watched], {
        ignoreInitial: true,
        ignored: (file: string) => isIgnoredPath(file),
        persistent: true,
      });
      watcher.on('all', (_event, file) => {
        if (closed) return;
        pending.add(path.resolve(file));
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(flush, debounceMs);
      });
      watcher.on('error', reportError);
      return watcher;
    },
    (error: unknown) => {
      reportError(error);
      return undefined;
    },
  );
  const ready = started.then((watcher) =>
    watcher === undefined
      ? undefined
      : new Promise<void>((resolve) => watcher.once('ready', () => resolve())),
  );
  return {
    ready: ready.then(() => undefined),
    add(roots) {
      const fresh = roots.filter(
        (root) => !watched.has(root) && existsSync(root) && statSync(root).isDirectory(),
      );
      for (const root of fresh) watched.add(root);
      if (fresh.length === 0) return;
      void started.then((watcher) => {
        if (!closed) watcher?.add(fresh);
      });
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await (await started)?.close();
    },
  };
}
