/** Polls `check` until it holds or `timeoutMs` passes; the last check decides. */
export async function waitFor(
  check: () => boolean,
  timeoutMs: number,
  intervalMs = 20,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolveWait) => setTimeout(resolveWait, intervalMs));
  }
  return check();
}
