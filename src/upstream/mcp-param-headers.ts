/**
 * @module SEP-2243 (2026-07-28 Streamable HTTP): a tool's `x-mcp-header` declarations, checked
 * when its server lists it (a tool that breaks a rule is left out), and the `Mcp-Param-{Name}`
 * headers each call to it carries. The 2.x SDK does this inside its `listTools()`/`callTool()`,
 * which codemux does not use (see docs/decisions.md); the rules are the spec's, as the SDK
 * reads them.
 */

/** One declaration: where the value sits in the arguments, and the header's name. */
export interface HeaderDeclaration {
  path: readonly string[];
  header: string;
}

export type HeaderScan =
  | { ok: true; declarations: HeaderDeclaration[] }
  | { ok: false; reason: string };

const X_MCP_HEADER = 'x-mcp-header';
const HEADER_PREFIX = 'Mcp-Param-';
/** RFC 9110 `token`: no space, control character or delimiter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The only property types a header may mirror (`number` is refused by the spec). */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not on a `properties` chain: a declaration under them is invalid. */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Of those, the ones whose value maps names to subschemas. */
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';

const where = (path: readonly string[]) => (path.length ? path.join('.') : '<root>');

/** The declarations of `inputSchema`, or the first rule one of them breaks. */
export function scanHeaders(inputSchema: unknown): HeaderScan {
  const declarations: HeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    if (Object.hasOwn(schema, X_MCP_HEADER)) {
      const header = schema[X_MCP_HEADER];
      if (!reachable || path.length === 0)
        return `${where(path)}: x-mcp-header is allowed only on a property reached through 'properties'`;
      if (typeof header !== 'string' || header.length === 0)
        return `${where(path)}: x-mcp-header must be a non-empty string`;
      if (!TOKEN.test(header))
        return `${where(path)}: x-mcp-header '${header}' is not an HTTP token (no space, control character or delimiter)`;
      const type = typeof schema.type === 'string' ? schema.type : '<none>';
      if (!HEADER_TYPES.has(type))
        return `${where(path)}: x-mcp-header is allowed only on a string, integer or boolean property, not ${type}`;
      const prior = seen.get(header.toLowerCase());
      if (prior !== undefined)
        return `x-mcp-header '${header}' is declared twice (also as '${prior}'; names are case-insensitive)`;
      seen.set(header.toLowerCase(), header);
      declarations.push({ path, header });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED_SUBSCHEMAS.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? { ok: true, declarations } : { ok: false, reason: fault };
}

/** A value as its header text: strings as they are, booleans lowercase, safe numbers in decimal. */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
  }
  return undefined;
}

/** A text an HTTP field cannot carry as it is: empty, padded, non-ASCII or control, or sentinel-shaped. */
function needsBase64(text: string): boolean {
  if (text.length === 0 || text !== text.trim()) return true;
  if (text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX)) return true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return true;
  }
  return false;
}

/** The header value of `text`: plain, or `=?base64?{UTF-8 in base64}?=`. */
export function encodeHeaderValue(text: string): string {
  return needsBase64(text)
    ? `${BASE64_PREFIX}${Buffer.from(text, 'utf8').toString('base64')}${BASE64_SUFFIX}`
    : text;
}

/** The `Mcp-Param-*` headers of one call; a value that is null, absent or not a primitive sends none. */
export function paramHeaders(
  declarations: readonly HeaderDeclaration[],
  args: Record<string, unknown>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of declarations) {
    let value: unknown = args;
    for (const key of path) {
      value =
        value !== null && typeof value === 'object' && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    const text = headerText(value);
    if (text !== undefined) headers[`${HEADER_PREFIX}${header}`] = encodeHeaderValue(text);
  }
  return headers;
}
