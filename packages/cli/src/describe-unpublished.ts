/**
 * Toolpack's packages are not on the npm registry yet, so a printed `npx @toolpack/cli` is a
 * 404. Every command that prints the npm name says so with this one story: the `mcp` that
 * scripts/install-mcp.sh installs from a clone, or the tarballs of `pnpm pack-tarballs`.
 * Delete this file (and its callers' warnings) once the packages are published.
 */
export function describeUnpublishedCli(version: string): string {
  return (
    `@toolpack/cli is not on the npm registry yet: \`npx -y @toolpack/cli@${version}\` fails (404) until it is published. ` +
    'Until then, install mcp from a Toolpack clone with scripts/install-mcp.sh (or the tarballs of `pnpm pack-tarballs`, installed with npm) and start it by path'
  );
}
