/**
 * Runs one reload at a time; the changes that arrive meanwhile are folded into the one
 * reload after it, whose promise every caller of that time shares.
 */
export function createReloadQueue<Report>(
  reloadNow: (changedPaths: readonly string[]) => Promise<Report>,
): (changedPaths?: readonly string[]) => Promise<Report> {
  let running: Promise<Report> | undefined;
  let queued: { paths: Set<string>; promise: Promise<Report> } | undefined;
  const reload = (changedPaths: readonly string[] = []): Promise<Report> => {
    if (running === undefined) {
      running = reloadNow(changedPaths).finally(() => {
        running = undefined;
      });
      return running;
    }
    if (queued !== undefined) {
      for (const changedPath of changedPaths) queued.paths.add(changedPath);
      return queued.promise;
    }
    const paths = new Set(changedPaths);
    const next = () => {
      queued = undefined;
      return reload([...paths]);
    };
    const promise = running.then(next, next);
    queued = { paths, promise };
    return promise;
  };
  return reload;
}
