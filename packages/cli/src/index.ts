export { runCli } from './main.ts';
export type { CliIo } from './io.ts';
export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
