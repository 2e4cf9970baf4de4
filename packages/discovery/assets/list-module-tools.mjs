// Runs in a child process: a tool module's top-level code (connections, timers, globals)
// must never run inside the process that discovers it. Answers over the IPC channel so
// whatever the module prints cannot be mistaken for the answer.
import module from 'node:module';
import { pathToFileURL } from 'node:url';

// Every start of `mcp serve` or `mcp list` over a JS module waits on this child: V8's cached
// code of @toolpack/core, zod and the module itself takes about 40 ms off its ~100 ms.
module.enableCompileCache?.();

const BRAND = Symbol.for('@toolpack/core/defined-tool');

// The parent is gone (killed, crashed): nobody will read the answer, so do not linger on
// whatever the module's top-level code keeps alive (a server, a timer).
process.on('disconnect', () => process.exit(1));
const modulePath = process.argv[2];

function describe(exportName, value) {
  return {
    exportName,
    name: value.name,
    title: value.title,
    description: value.description,
    inputSchema: value.inputSchema,
    outputSchema: value.outputSchema,
    annotations: value.annotations,
    timeoutMs: value.timeoutMs,
    inputExamples: value.inputExamples,
    longRunning: value.longRunning,
    progressResetsTimeout: value.progressResetsTimeout,
  };
}

let answer;
try {
  const loaded = await import(pathToFileURL(modulePath).href);
  const tools = [];
  for (const [exportName, value] of Object.entries(loaded)) {
    if (value !== null && typeof value === 'object' && value[BRAND] === true)
      tools.push(describe(exportName, value));
  }
  answer = { tools, exportNames: Object.keys(loaded) };
} catch (error) {
  answer = {
    error: {
      message: error instanceof Error ? error.message : String(error),
      code: typeof error?.code === 'string' ? error.code : undefined,
    },
  };
}
process.send(JSON.parse(JSON.stringify(answer)), () => process.exit(0));
