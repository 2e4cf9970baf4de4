import { Command } from 'commander';
import { EXIT_FAILURE, EXIT_OK } from '../../exit-codes.ts';
import { createPainter, type CliIo } from '../../io.ts';
import { checkMachine } from './index.ts';

export function createDoctorCommand(io: CliIo, done: (code: number) => void): Command {
  return new Command('doctor')
    .description(
      'Check what running tools needs here: Node, pwsh, Python, bash, configured interpreters, which project tools cannot run here, the cache, the registry',
    )
    .option('--json', 'print {"checks": [{ name, status, detail, hint? }]}')
    .addHelpText(
      'after',
      `
Examples:
  mcp doctor
  TOOLPACK_REGISTRY=http://127.0.0.1:4873 mcp doctor --json

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed.`,
    )
    .action(async (flags: { json?: boolean }) => {
      const { checks } = await checkMachine({ cwd: io.cwd, env: io.env });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ checks }, null, 2)}\n`);
      } else {
        const paint = createPainter(io.stdout, io.env);
        const mark = {
          ok: paint('green', 'ok  '),
          warn: paint('yellow', 'warn'),
          fail: paint('red', 'FAIL'),
        };
        for (const check of checks) {
          io.stdout.write(`${mark[check.status]}  ${check.name.padEnd(16)} ${check.detail}\n`);
          if (check.hint !== undefined && check.status !== 'ok')
            io.stdout.write(`      ${''.padEnd(16)} ${paint('dim', check.hint)}\n`);
        }
      }
      done(checks.some((c) => c.status === 'fail') ? EXIT_FAILURE : EXIT_OK);
    });
}
