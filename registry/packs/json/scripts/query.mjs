// DESCRIPTION "Picks values out of a JSON document by path (a.b[0].c; * for every item or key)."
// PARAM json AS string LIKE "{\"items\":[{\"id\":1}]}" DESCRIPTION "The JSON text."
// PARAM path AS string LIKE "items[*].id" DESCRIPTION "The path: keys with dots, indexes in brackets, * for all."
import {
  WILDCARD,
  formatPath,
  parseDocument,
  parsePath,
  runJsonTool,
} from '../lib/run-json-tool.mjs';

await runJsonTool(({ json, path }) => {
  const document = parseDocument(json);
  const segments = parsePath(String(path));
  let matches = [{ at: [], value: document }];
  for (const segment of segments) {
    matches = matches.flatMap(({ at, value }) => {
      if (segment === WILDCARD) {
        if (Array.isArray(value)) return value.map((item, i) => ({ at: [...at, i], value: item }));
        if (value !== null && typeof value === 'object')
          return Object.entries(value).map(([k, v]) => ({ at: [...at, k], value: v }));
        return [];
      }
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return [];
      return [{ at: [...at, segment], value: value[segment] }];
    });
  }
  return {
    count: matches.length,
    matches: matches.map(({ at, value }) => ({ path: formatPath(at) || '$', value })),
  };
});
