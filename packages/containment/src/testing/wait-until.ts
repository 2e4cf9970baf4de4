/** Polls `check` every 50 ms until it holds or `limitMs` passed; says whether it held. */
export async function waitUntil(check: () => boolean, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}
