// DESCRIPTION "Pretty-prints or minifies a JSON document, optionally with its object keys sorted."
// PARAM json AS string LIKE "{\"b\":1,\"a\":[1,2]}" DESCRIPTION "The JSON text."
// PARAM indent AS integer DEFAULT 2 DESCRIPTION "Spaces per level; 0 minifies."
// PARAM sort_keys AS boolean DEFAULT false DESCRIPTION "Sort the keys of every object."
import { parseDocument, runJsonTool } from '../lib/run-json-tool.mjs';

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}

await runJsonTool(({ json, indent = 2, sort_keys: sort = false }) => {
  if (!Number.isInteger(indent) || indent < 0 || indent > 10)
    throw new Error('indent must be a whole number from 0 to 10.');
  const value = parseDocument(json);
  return { json: JSON.stringify(sort ? sortKeys(value) : value, null, indent) };
});
