/**
 * The Registry API's documents (docs/architecture.md "Registry API"). They are `@toolpack/packs`' own
 * types, so the registry and the client cannot drift apart.
 */
export type {
  EnvRequirement,
  PackDist,
  PackDoc,
  PackSummary,
  PackToolSummary,
  SearchResponse,
  VersionDoc,
} from '@toolpack/packs';
