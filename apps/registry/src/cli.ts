#!/usr/bin/env node
// The executable: `node src/cli.ts serve`, `node src/cli.ts token create --owner acme`.

// Checked before the registry loads: on an unsupported Node, `node:sqlite` is missing or has
// no full-text search, and the user would get a stack instead of this line. Node 22 needs
// 22.22 (chokidar; TypeScript without a flag from 22.18). Keep in step with `engines`.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major === 22 ? minor < 22 : major < 24) {
  process.stderr.write(
    `toolpack-registry: Node ${process.version} is not supported: the registry needs Node 24 or newer, or 22.22+ on the 22 line. ` +
      'Install Node 24 LTS, or in a Toolpack clone run `source scripts/toolchain.sh` first.\n',
  );
  process.exitCode = 1;
} else {
  const { runRegistryCli } = await import('./registry-cli.ts');
  process.exitCode = await runRegistryCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
  });
}
