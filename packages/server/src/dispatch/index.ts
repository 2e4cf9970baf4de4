export { createToolDispatcher } from './create-tool-dispatcher.ts';
export type { CreateToolDispatcherOptions } from './create-tool-dispatcher.ts';
export type { DispatchCallOptions, ToolDispatcher } from './dispatch-types.ts';
export { resolveReferences } from './resolve-references.ts';
export type { ReferenceScope } from './resolve-references.ts';
export { textOf, toCallResult } from './results.ts';
