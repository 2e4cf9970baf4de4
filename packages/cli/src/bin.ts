import module from 'node:module';
import path from 'node:path';
import { COMPILE_CACHE_FOLDER, prepareRuntimeFolder } from '@toolpack/containment/runtime-folder';

// Cache V8's compiled code of our dependencies on disk: it halves start-up, which every
// `mcp list` and every client that spawns `mcp serve` pays. Only in Toolpack's private
// runtime folder: V8 checks little more than a cache entry's length, so an entry planted in
// a shared folder (`<tmpdir>/node-compile-cache`, Node's default, which a sandboxed pack
// granted the temp folder or another user could write) would run as this process, before
// anything else. A runtime folder that cannot be trusted means no cache, not a failure here.
const runtime = prepareRuntimeFolder(process.env);
if (!('problem' in runtime))
  module.enableCompileCache?.(path.join(runtime.folder, COMPILE_CACHE_FOLDER));

// `mcp list | head` closes the pipe early: stop quietly, as other command-line tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

const { runCli } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
