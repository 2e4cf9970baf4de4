// Shared by the json pack's scripts: read the arguments (one JSON object on stdin), run,
// print the result as JSON; a failure goes to stderr with exit code 1, which the server
// turns into a tool error the model can read.
export async function runJsonTool(tool) {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  try {
    const result = await tool(input.trim() === '' ? {} : JSON.parse(input));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}

export function parseDocument(text, what = 'json') {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} is not valid JSON: ${error.message}`);
  }
}

/** Stands for every item of an array or every value of an object in a parsed path. */
export const WILDCARD = Symbol('*');

/** `a.b[0].c`, `items[*].id`, `["key with dots"]` -> ['a', 'b', 0, 'c'] ... */
export function parsePath(path) {
  const segments = [];
  const pattern = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|(\.?\*|\[\*\])/gy;
  let position = 0;
  if (path === '' || path === '$') return segments;
  const text = path.startsWith('$') ? path.slice(1) : path;
  while (position < text.length) {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (!match)
      throw new Error(
        `Cannot read the path at "${text.slice(position)}": use a.b[0].c or ["odd key"].`,
      );
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(`"${match[3]}"`));
    else segments.push(WILDCARD);
    position = pattern.lastIndex;
  }
  return segments;
}

export function formatPath(segments) {
  return segments
    .map((s) =>
      typeof s === 'number'
        ? `[${s}]`
        : /^[A-Za-z_$][\w$]*$/.test(s)
          ? `.${s}`
          : `[${JSON.stringify(s)}]`,
    )
    .join('')
    .replace(/^\./, '');
}
