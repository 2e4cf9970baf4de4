import module from 'node:module';

// Cache V8's compiled code of our dependencies on disk: it halves start-up, which every
// `mcp list` and every client that spawns `mcp serve` pays.
module.enableCompileCache?.();

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
