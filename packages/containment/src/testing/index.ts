// What the containment tests share. Not an entry of the package: nothing outside its own
// tests uses these, so they stay out of the published surface.
export { collectOutput } from './collect-output.ts';
export { hasProc, killMarked, listProcessesWithArgv } from './marked-processes.ts';
export { waitUntil } from './wait-until.ts';
