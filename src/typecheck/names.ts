/**
 * @module Diagnostics about tool and server names, told in the caller's terms: TypeScript's
 * own words ("Argument of type '"fss"' is not assignable to parameter of type 'keyof
 * ToolArgs'") become "unknown server "fss"; did you mean `fs`?", for call_tool, call_tools,
 * tools.<server>.<tool> and tools["server.tool"]. Runs in the checker's worker, on its AST.
 */
import type ts from 'typescript';
import { nearestNames } from '../util/did-you-mean.ts';
import type { ScopeNames } from './protocol.ts';

type TS = typeof ts;

/** How many usable names an unknown one's message lists when none is near. */
const LISTED = 12;

/** Where a name sits in the program: a server, or a tool of a server. */
type Role = { kind: 'server'; name: string } | { kind: 'tool'; server: string; name: string };

/** TypeScript codes of the diagnostics a misspelled name produces. */
const NAME_CODES = new Set([2322, 2339, 2345, 2551, 2820]);

/** The innermost node of `sf` that contains `pos`. */
export function nodeAt(t: TS, sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node) => {
    if (pos < node.getStart(sf) || pos >= node.getEnd()) return;
    found = node;
    t.forEachChild(node, visit);
  };
  t.forEachChild(sf, visit);
  return found;
}

const textOf = (t: TS, node: ts.Node | undefined): string | undefined =>
  node && (t.isStringLiteral(node) || t.isNoSubstitutionTemplateLiteral(node))
    ? node.text
    : undefined;

const isTools = (t: TS, node: ts.Node): boolean => t.isIdentifier(node) && node.text === 'tools';

/** `tools.S` or `tools["S"]`: S; else undefined. */
function namespaceOf(t: TS, node: ts.Node): string | undefined {
  if (t.isPropertyAccessExpression(node) && isTools(t, node.expression)) return node.name.text;
  if (t.isElementAccessExpression(node) && isTools(t, node.expression))
    return textOf(t, node.argumentExpression);
  return undefined;
}

/** The literal value of the property `key` in the object literal `object`, if it has one. */
function literalProperty(
  t: TS,
  object: ts.ObjectLiteralExpression,
  key: 'server' | 'tool',
): string | undefined {
  for (const p of object.properties) {
    if (t.isPropertyAssignment(p) && p.name.getText() === key) return textOf(t, p.initializer);
  }
  return undefined;
}

/** True for `{server, tool, args}` written as an element of `call_tools([...])`. */
function isBatchRequest(t: TS, node: ts.Node): node is ts.ObjectLiteralExpression {
  const list = node.parent;
  const call = list?.parent;
  return (
    t.isObjectLiteralExpression(node) &&
    !!list &&
    t.isArrayLiteralExpression(list) &&
    !!call &&
    t.isCallExpression(call) &&
    t.isIdentifier(call.expression) &&
    call.expression.text === 'call_tools'
  );
}

/**
 * `args: {x: 1}` in a call_tools request, where `x` is not an argument of the tool: the
 * declarations type such a key `never` (call_tool gets TypeScript's own excess-property check).
 */
function unknownArgument(t: TS, node: ts.Node, text: string): string | undefined {
  if (!/is not assignable to type 'never'/.test(text)) return undefined;
  const property = t.isPropertyAssignment(node.parent) ? node.parent : undefined;
  const args = property?.parent;
  const holder = args?.parent;
  if (!property || !args || !holder || !t.isPropertyAssignment(holder)) return undefined;
  if (holder.name.getText() !== 'args' || !isBatchRequest(t, holder.parent)) return undefined;
  const server = literalProperty(t, holder.parent, 'server');
  const tool = literalProperty(t, holder.parent, 'tool');
  const name = property.name.getText();
  const where = server && tool ? ` of "${server}.${tool}"` : '';
  return `unknown argument ${name.startsWith('"') || name.startsWith("'") ? name : `"${name}"`}: it is not in the input schema${where}`;
}

/** The role of the name at `node`, when it is one of the places a tool or server is named. */
function roleOf(t: TS, node: ts.Node): Role | undefined {
  const parent = node.parent;
  if (!parent) return undefined;
  const literal = textOf(t, node);
  if (literal !== undefined) {
    if (t.isCallExpression(parent) && t.isIdentifier(parent.expression)) {
      if (parent.expression.text !== 'call_tool') return undefined;
      const index = parent.arguments.indexOf(node as ts.Expression);
      if (index === 0) return { kind: 'server', name: literal };
      const server = textOf(t, parent.arguments[0]);
      if (index === 1 && server !== undefined) return { kind: 'tool', server, name: literal };
      return undefined;
    }
    if (t.isPropertyAssignment(parent) && isBatchRequest(t, parent.parent)) {
      const key = parent.name.getText();
      if (key === 'server') return { kind: 'server', name: literal };
      const server = literalProperty(t, parent.parent, 'server');
      if (key === 'tool' && server !== undefined) return { kind: 'tool', server, name: literal };
    }
    return undefined;
  }
  if (t.isIdentifier(node) && t.isPropertyAccessExpression(parent) && parent.name === node) {
    if (isTools(t, parent.expression)) return { kind: 'server', name: node.text };
    const server = namespaceOf(t, parent.expression);
    if (server !== undefined) return { kind: 'tool', server, name: node.text };
  }
  return undefined;
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

function listing(names: readonly string[]): string {
  if (names.length === 0) return '';
  const shown = names.slice(0, LISTED);
  const more = names.length > LISTED ? `, … (${names.length} in all)` : '';
  return `${quoted(shown)}${more}`;
}

function suggestion(name: string, known: readonly string[], what: string): string {
  const near = nearestNames(name, known, 1);
  if (near.length > 0) return `; did you mean "${near[0]}"?`;
  return known.length > 0 ? `; the ${what} are ${listing(known)}` : '';
}

/** The message for an unknown name in `role`, or undefined when the name is known after all. */
export function unknownNameMessage(role: Role, scope: ScopeNames): string | undefined {
  const servers = Object.keys(scope.servers);
  if (role.kind === 'server') {
    if (role.name in scope.servers) return undefined;
    return `unknown server "${role.name}"${suggestion(role.name, servers, 'servers this program may use')}`;
  }
  const tools = scope.servers[role.server];
  if (tools === undefined || tools === null) return undefined;
  if (tools.includes(role.name)) return undefined;
  if (scope.held[role.server]?.includes(role.name)) {
    return `"${role.server}.${role.name}" is held by tool pinning until an administrator approves it; calling it now is refused (TOOL_CHANGED)`;
  }
  return `unknown tool "${role.name}" on server "${role.server}"${suggestion(role.name, tools, `tools of "${role.server}"`)}`;
}

/** One envelope's field read on the other's: what each envelope holds. */
const ENVELOPE_HINTS: Array<[RegExp, string]> = [
  [
    /^Property '(data|meta)' does not exist on type 'CallToolEnvelope'/,
    '; call_tool and call_tools answer {ok, result} ({ok: false, error} on failure); `data` is on the envelopes of tools.<server>.<tool>()',
  ],
  [
    /^Property 'result' does not exist on type 'ToolEnvelope<.*>'/,
    "; tools.<server>.<tool>() resolves to {ok, data, meta} ({ok: false, error} on failure); `result` is on call_tool's envelope",
  ],
];

/**
 * The diagnostic's message in the caller's terms: a tool or server name it does not know, or
 * an envelope read as the other dialect's; undefined to keep TypeScript's own words.
 */
export function nameMessage(
  t: TS,
  sf: ts.SourceFile,
  diagnostic: ts.Diagnostic,
  text: string,
  scope: ScopeNames,
): { message: string; start?: number } | undefined {
  if (!NAME_CODES.has(diagnostic.code) || diagnostic.start === undefined) return undefined;
  const at = nodeAt(t, sf, diagnostic.start);
  const extra = at && unknownArgument(t, at, text);
  if (extra) return { message: extra };
  let node = at;
  // `tool: 'x'` in a request: TypeScript points at the property's name; the name is its value.
  if (node?.parent && t.isPropertyAssignment(node.parent) && node.parent.name === node) {
    node = node.parent.initializer;
  }
  const role = node && roleOf(t, node);
  const named = role && unknownNameMessage(role, scope);
  if (named) return { message: named, start: node!.getStart(sf) };
  const hint = ENVELOPE_HINTS.find(([pattern]) => pattern.test(text));
  return hint ? { message: `${text.split('\n')[0]!.replace(/\.$/, '')}${hint[1]}` } : undefined;
}

/**
 * `tools["server.tool"]` and `tools["server"]` with a name the caller may not use: TypeScript
 * says nothing of an unknown key in brackets (outside strict mode), so these are found here.
 */
export function unknownBracketNames(
  t: TS,
  sf: ts.SourceFile,
  scope: ScopeNames,
): Array<{ start: number; message: string }> {
  const found: Array<{ start: number; message: string }> = [];
  const visit = (node: ts.Node) => {
    if (t.isElementAccessExpression(node)) {
      const key = textOf(t, node.argumentExpression);
      const server = namespaceOf(t, node.expression);
      const message =
        key === undefined
          ? undefined
          : isTools(t, node.expression)
            ? bracketMessage(key, scope)
            : server !== undefined && server in scope.servers
              ? unknownNameMessage({ kind: 'tool', server, name: key }, scope)
              : undefined;
      if (message) found.push({ start: node.argumentExpression.getStart(sf), message });
    }
    t.forEachChild(node, visit);
  };
  t.forEachChild(sf, visit);
  return found;
}

function bracketMessage(key: string, scope: ScopeNames): string | undefined {
  const dot = key.indexOf('.');
  if (dot < 0) return unknownNameMessage({ kind: 'server', name: key }, scope);
  const server = key.slice(0, dot);
  const name = key.slice(dot + 1);
  const tools = scope.servers[server];
  if (tools === undefined) {
    return `unknown tool "${key}"${suggestion(key, qualifiedNames(scope), 'tools this program may use')}`;
  }
  return unknownNameMessage({ kind: 'tool', server, name }, scope);
}

function qualifiedNames(scope: ScopeNames): string[] {
  return Object.entries(scope.servers).flatMap(([s, tools]) =>
    (tools ?? []).map((t) => `${s}.${t}`),
  );
}
