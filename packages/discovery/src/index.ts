export type { ParseCache, SourceResult } from './types.ts';
