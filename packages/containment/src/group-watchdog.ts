import { spawn, type ChildProcess } from 'node:child_process';
import { findSystemTool } from './find-system-tool.ts';

/**
 * The fallback supervisor: a `sh` that reads `+<pgid>` / `-<pgid>` lines on stdin and, when
 * stdin ends (the server exited, crashed or was SIGKILLed: the kernel closes the pipe either
 * way), kills every group still registered. It ignores INT, TERM and HUP so that a Ctrl-C or
 * a `kill` aimed at the server's group does not take it down first, and it is a shell (not
 * Node) so that it costs a millisecond and a megabyte.
 */
const WATCHDOG_SCRIPT = `trap '' INT TERM HUP
groups=' '
while IFS= read -r line; do
  id=\${line#?}
  case $id in ''|*[!0-9]*) continue ;; esac
  case $line in
    +*) groups="$groups$id " ;;
    -*) kept=' '
        for g in $groups; do [ "$g" = "$id" ] || kept="$kept$g "; done
        groups=$kept ;;
  esac
done
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
`;

export interface GroupWatchdog {
  readonly pid: number | undefined;
  register(pgid: number): void;
  unregister(pgid: number): void;
}

let shared: GroupWatchdog | undefined;

/** The process's one watchdog, started on first use. */
export function getGroupWatchdog(): GroupWatchdog {
  shared ??= startGroupWatchdog();
  return shared;
}

/** Starts a watchdog; exported for tests, which need one they can end. */
export function startGroupWatchdog(): GroupWatchdog & { child: ChildProcess } {
  const sh = findSystemTool('sh') ?? '/bin/sh';
  const child = spawn(sh, ['-c', WATCHDOG_SCRIPT], {
    // Its own group: a signal to the server's group (Ctrl-C) never reaches it.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: {},
  });
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  // The watchdog must never keep the server alive, nor its pipe.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  const send = (line: string): void => {
    if (child.stdin?.writable) child.stdin.write(line);
  };
  return {
    child,
    get pid() {
      return child.pid;
    },
    register: (pgid) => send(`+${pgid}\n`),
    unregister: (pgid) => send(`-${pgid}\n`),
  };
}
