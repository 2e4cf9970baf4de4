// DESCRIPTION "Lists the differences between two JSON documents: what was added, removed or changed, by path."
// PARAM before AS string LIKE "{\"a\":1}" DESCRIPTION "The first JSON text."
// PARAM after AS string LIKE "{\"a\":2,\"b\":true}" DESCRIPTION "The second JSON text."
// PARAM max_changes AS integer DEFAULT 200 DESCRIPTION "List at most this many differences."
import { formatPath, parseDocument, runJsonTool } from '../lib/run-json-tool.mjs';

function compare(a, b, at, out, max) {
  if (out.length >= max) return;
  const bothObjects =
    a !== null &&
    b !== null &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) {
    if (JSON.stringify(a) !== JSON.stringify(b))
      out.push({ op: 'changed', path: formatPath(at) || '$', before: a, after: b });
    return;
  }
  const keys = Array.isArray(a)
    ? Array.from({ length: Math.max(a.length, b.length) }, (_, i) => i)
    : [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) {
    const inA = Object.hasOwn(a, key);
    const inB = Object.hasOwn(b, key);
    if (inA && !inB) out.push({ op: 'removed', path: formatPath([...at, key]), before: a[key] });
    else if (!inA && inB) out.push({ op: 'added', path: formatPath([...at, key]), after: b[key] });
    else compare(a[key], b[key], [...at, key], out, max);
    if (out.length >= max) return;
  }
}

await runJsonTool(({ before, after, max_changes: max = 200 }) => {
  const changes = [];
  compare(
    parseDocument(before, 'before'),
    parseDocument(after, 'after'),
    [],
    changes,
    Math.max(1, Math.min(10000, max)),
  );
  return { equal: changes.length === 0, changes };
});
