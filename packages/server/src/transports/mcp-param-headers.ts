import type { IncomingHttpHeaders } from 'node:http';

/**
 * One tool parameter a 2026-07-28 client mirrors into an `Mcp-Param-{header}` HTTP header
 * (the input schema's `x-mcp-header` extension), so intermediaries can route on it without
 * reading the body.
 */
export interface ParamHeader {
  /** Property names from the schema's root down to the parameter. */
  path: readonly string[];
  /** The header name after `Mcp-Param-`, as the schema spells it. */
  header: string;
  type: 'string' | 'integer' | 'boolean';
}

/** What disagrees, for a -32020 (HeaderMismatch) answer. */
export interface ParamHeaderMismatch {
  header: string;
  message: string;
}

// RFC 9110 token characters: what an HTTP field name may be made of.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);
const BASE64_OPEN = '=?base64?';
const BASE64_CLOSE = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

const bySchema = new WeakMap<object, readonly ParamHeader[]>();

/**
 * The `x-mcp-header` declarations of a tool's input schema, found through `properties` only
 * (the spec allows them nowhere else). A declaration the spec forbids (a name that is not
 * an HTTP token, a non-primitive type, a name used twice) is left out: clients must not
 * send a header for it, so the server cannot expect one. Cached per schema object.
 */
export function findParamHeaders(inputSchema: unknown): readonly ParamHeader[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  const cached = bySchema.get(inputSchema);
  if (cached !== undefined) return cached;
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  const visit = (schema: Record<string, unknown>, path: string[]) => {
    const properties = schema.properties;
    if (typeof properties !== 'object' || properties === null) return;
    for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
      if (typeof child !== 'object' || child === null) continue;
      const property = child as Record<string, unknown>;
      const header = property['x-mcp-header'];
      const type = property.type;
      if (
        typeof header === 'string' &&
        TOKEN.test(header) &&
        typeof type === 'string' &&
        PRIMITIVE_TYPES.has(type) &&
        !seen.has(header.toLowerCase())
      ) {
        seen.add(header.toLowerCase());
        found.push({ path: [...path, name], header, type: type as ParamHeader['type'] });
      }
      visit(property, [...path, name]);
    }
  };
  visit(inputSchema as Record<string, unknown>, []);
  bySchema.set(inputSchema, found);
  return found;
}

function readPath(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A header value as the client meant it: the Base64 form decoded, or undefined if broken. */
function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith(BASE64_OPEN) || !value.endsWith(BASE64_CLOSE)) return value;
  const encoded = value.slice(BASE64_OPEN.length, value.length - BASE64_CLOSE.length);
  // Node's decoder skips characters it does not know and tolerates missing padding; the
  // spec wants both refused, so the text is checked to be canonical first.
  if (!CANONICAL_BASE64.test(encoded)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}

function agrees(decoded: string, body: string | number | boolean): boolean {
  // 42 and 42.0 are the same number; anything else compares as the text the client sends.
  if (typeof body === 'number') return DECIMAL.test(decoded) && Number(decoded) === body;
  return decoded === String(body);
}

/**
 * Checks the `Mcp-Param-*` headers of a 2026-07-28 tools/call against its arguments, as the
 * Streamable HTTP transport requires of a server: a parameter present in the body needs its
 * header, with the same value. A parameter absent (or null) in the body needs none, and a
 * header sent for it anyway is ignored.
 */
export function checkParamHeaders(
  declared: readonly ParamHeader[],
  args: unknown,
  headers: IncomingHttpHeaders,
): ParamHeaderMismatch | undefined {
  for (const { path, header } of declared) {
    const body = readPath(args, path);
    if (body === undefined || body === null) continue;
    if (typeof body !== 'string' && typeof body !== 'number' && typeof body !== 'boolean') continue; // The wrong type for the parameter: argument validation answers that.
    const name = `Mcp-Param-${header}`;
    const raw = headers[name.toLowerCase()];
    const where = path.join('.');
    if (raw === undefined)
      return {
        header: name,
        message: `the arguments carry ${where} but the ${name} header is missing; send it with the same value.`,
      };
    const value = (Array.isArray(raw) ? raw.join(', ') : raw).trim();
    const decoded = decodeHeaderValue(value);
    if (decoded === undefined)
      return {
        header: name,
        message: `the ${name} header is not valid Base64 of UTF-8 text between =?base64? and ?=.`,
      };
    if (!agrees(decoded, body))
      return {
        header: name,
        message: `the ${name} header says ${JSON.stringify(decoded.slice(0, 200))} but the arguments carry ${where}=${JSON.stringify(typeof body === 'string' ? body.slice(0, 200) : body)}.`,
      };
  }
  return undefined;
}

interface HeaderTool {
  name: string;
  inputSchema: unknown;
}

// Keyed by the listed tool array itself, which each reload replaces whole.
const toolsByName = new WeakMap<readonly HeaderTool[], Map<string, HeaderTool>>();

/**
 * The mismatch of a posted 2026-07-28 tools/call with the `Mcp-Param-*` headers its tool
 * declares, if any. Anything else (another method, a batch, an unknown tool) passes: the
 * SDK and the call pipeline answer those.
 */
export function checkToolCallHeaders(
  tools: readonly HeaderTool[],
  body: unknown,
  headers: IncomingHttpHeaders,
): ParamHeaderMismatch | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return undefined;
  let byName = toolsByName.get(tools);
  if (byName === undefined) {
    byName = new Map(tools.map((tool) => [tool.name, tool]));
    toolsByName.set(tools, byName);
  }
  const tool = byName.get(name);
  if (tool === undefined) return undefined;
  const declared = findParamHeaders(tool.inputSchema);
  return declared.length === 0 ? undefined : checkParamHeaders(declared, args, headers);
}
