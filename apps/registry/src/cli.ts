#!/usr/bin/env node
import { runRegistryCli } from './registry-cli.ts';

// The executable: `node src/cli.ts serve`, `node src/cli.ts token create --owner acme`.
process.exitCode = await runRegistryCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
});
