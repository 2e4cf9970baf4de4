// What the runner tests share. Not an entry of the package: nothing outside runners' own
// tests uses these, so they stay out of the published surface.
export { firstText, makeTool } from './make-tool.ts';
export { findMarkedProcesses, hasProc, isProcessAlive, listDescendants } from './process-table.ts';
export { retainedBytes } from './retained-bytes.ts';
export { waitFor } from './wait-for.ts';
