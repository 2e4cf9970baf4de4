import { z } from 'zod';

/**
 * How tools/list writes a tool's input schema, for the model APIs behind the clients:
 * `portable` (the default) is what the Anthropic, OpenAI and Gemini function-calling rules all
 * accept, `exact` is the full JSON Schema the server validates calls against, and
 * `openai-strict` follows OpenAI's strict structured-output rules. The server validates and
 * binds calls against the exact schema whichever is listed.
 */
export const SCHEMA_DIALECTS = ['portable', 'exact', 'openai-strict'] as const;

export type SchemaDialect = (typeof SCHEMA_DIALECTS)[number];

export const DEFAULT_SCHEMA_DIALECT: SchemaDialect = 'portable';

/** `schemaDialect:` in toolpack.yaml. */
export const schemaDialectSchema = z.enum(SCHEMA_DIALECTS, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not a schema dialect: use ${SCHEMA_DIALECTS.join(', ')}`,
});
