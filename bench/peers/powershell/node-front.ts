// A floor for issue 34 with one more process hop, standing for a server in Node whose tools run
// in pwsh (`mcp serve`'s design) without any of the work such a server does: a Node process in
// front of a PowerShell floor that parses each JSON-RPC line from its stdin and writes it to the
// floor's stdin, and parses each line the floor answers and writes it to its stdout. No schema,
// argument check, policy or isolation: what it adds to the floor is the hop alone.
// bench/powershell-peers.ts drives it with the same client as the floors and `mcp serve`.
//   node node-front.ts <pwsh arguments...>
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const floor = spawn('pwsh', process.argv.slice(2), { stdio: ['pipe', 'pipe', 'inherit'] });
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== '') floor.stdin.write(`${JSON.stringify(JSON.parse(line))}\n`);
});
createInterface({ input: floor.stdout }).on('line', (line) => {
  if (line.trim() !== '') process.stdout.write(`${JSON.stringify(JSON.parse(line))}\n`);
});
process.stdin.on('end', () => floor.stdin.end());
floor.on('exit', (code) => process.exit(code ?? 1));
