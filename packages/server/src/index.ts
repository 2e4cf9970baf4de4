export { createToolDispatcher, resolveReferences, textOf, toCallResult } from './dispatch/index.ts';
export type { CreateToolDispatcherOptions, DispatchCallOptions, ReferenceScope, ToolDispatcher } from './dispatch/index.ts';
