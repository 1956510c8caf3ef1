/**
 * @module The guest-side prelude: JavaScript evaluated inside each fresh QuickJS context
 * before the program. It is kept small because QuickJS compiles it for every instance
 * (about 0.2 ms per KiB here): it validates guest arguments, turns them into JSON text
 * for the host functions it captures, defines the documented globals, and returns the
 * hooks the worker uses. The exact serializer, needed only when a result is not plain
 * JSON, is compiled on demand (SERIALIZER_SOURCE).
 */

import { BATCH_PARALLEL_RANGE, MAX_BATCH_SIZE } from '../protocol.ts';

/** Name of the temporary global holding the host functions while the prelude runs. */
export const HOST_GLOBAL = '__codemux_host__';

/** Thrown by the replacer when a value needs the exact serializer's verdict. */
const NOT_PLAIN = '__codemux_not_plain__';

/** Removes comment lines and indentation: QuickJS's compile time grows with the source's length. */
function compact(source: string): string {
  return source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');
}

export const PRELUDE_SOURCE = compact(`(function () {
'use strict';
var G = globalThis, host = G.${HOST_GLOBAL};
delete G.${HOST_GLOBAL};
var stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray, getProto = Object.getPrototypeOf;
var OP = Object.prototype, freeze = Object.freeze, hasOwn = Object.hasOwn, isInteger = Number.isInteger;
var ErrorCtor = Error, DateCtor = Date, TypeErrorCtor = TypeError, StringCtor = String, call = Function.prototype.call;
var indexOf = String.prototype.indexOf, slice = String.prototype.slice;
function isObj(v) { return v !== null && typeof v === 'object' && !isArray(v); }
function bad(message) { return { ok: false, error: { code: 'INVALID_ARGS', message: message } }; }
function encode(where, payload) {
try { return [true, stringify(payload)]; }
catch (e) { return [false, where + ': args are not JSON-serializable (' + (e && e.message) + ')']; }
}
function call_tool(server, tool, args) {
var n = arguments.length;
if (n < 2 || n > 3) return bad('call_tool(server, tool, args) takes 2 or 3 arguments, got ' + n);
if (typeof server !== 'string' || server === '') return bad('call_tool: server must be a non-empty string');
if (typeof tool !== 'string' || tool === '') return bad('call_tool: tool must be a non-empty string');
if (args === undefined) args = {};
else if (!isObj(args)) return bad('call_tool: args must be an object');
var json = encode('call_tool', { server: server, tool: tool, args: args });
return json[0] ? parse(host.call(json[1])) : bad(json[1]);
}
function checkBatch(requests, options) {
var p = 'call_tools: ';
if (!isArray(requests)) return p + 'requests must be an array of {server, tool, args}';
if (options !== undefined && !isObj(options)) return p + 'options must be an object';
var mp = options === undefined ? undefined : options.max_parallel;
if (mp !== undefined && !(isInteger(mp) && mp >= ${BATCH_PARALLEL_RANGE.min} && mp <= ${BATCH_PARALLEL_RANGE.max})) return p + 'options.max_parallel must be an integer from ${BATCH_PARALLEL_RANGE.min} to ${BATCH_PARALLEL_RANGE.max}';
if (requests.length > ${MAX_BATCH_SIZE}) return p + 'the batch has ' + requests.length + ' elements; at most ${MAX_BATCH_SIZE} are allowed';
for (var i = 0; i < requests.length; i++) {
var e = p + 'element ' + i + ': ';
if (!hasOwn(requests, i)) return e + 'is a hole in a sparse array';
var r = requests[i];
if (!isObj(r)) return e + 'must be an object {server, tool, args}';
if (typeof r.server !== 'string' || r.server === '') return e + 'server must be a non-empty string';
if (typeof r.tool !== 'string' || r.tool === '') return e + 'tool must be a non-empty string';
if (r.args !== undefined && !isObj(r.args)) return e + 'args must be an object';
}
return null;
}
function call_tools(requests, options) {
var problem = checkBatch(requests, options);
if (problem !== null) return bad(problem);
if (requests.length === 0) return [];
var batch = [];
for (var i = 0; i < requests.length; i++) {
var r = requests[i];
batch[i] = { server: r.server, tool: r.tool, args: r.args === undefined ? {} : r.args };
}
var json = encode('call_tools', { requests: batch, max_parallel: options === undefined ? undefined : options.max_parallel });
return json[0] ? parse(host.batch(json[1])) : bad(json[1]);
}
function failed(code, message) {
return Promise.resolve({ ok: false, error: { code: code, message: message, retryable: false } });
}
function toolFunction(server, tool) {
var q = 'tools.' + server + '.' + tool;
return function (args) {
if (args === undefined) args = {};
if (!isObj(args)) return failed('invalid_input', q + ': arguments must be an object');
var json = encode(q, { server: server, tool: tool, args: args });
return json[0] ? host.callAsync(json[1], 'async') : failed('invalid_input', json[1]);
};
}
function qualified(name) {
var dot = call.call(indexOf, name, '.');
if (dot <= 0 || dot === name.length - 1) return function () { return failed('tool_not_found', 'not a qualified tool name "namespace.name": ' + stringify(name)); };
return toolFunction(call.call(slice, name, 0, dot), call.call(slice, name, dot + 1));
}
function refuse() { throw new TypeErrorCtor('tools cannot be enumerated or changed; call tools.<server>.<tool>(args) or tools["server.tool"](args)'); }
function locked(get, apply) {
return freeze({
apply: apply,
get: function (_t, key) { return typeof key === 'string' && key !== 'then' ? get(key) : undefined; },
has: function (_t, key) { return typeof key === 'string'; },
set: refuse, defineProperty: refuse, deleteProperty: refuse, ownKeys: refuse,
setPrototypeOf: refuse, preventExtensions: refuse,
getOwnPropertyDescriptor: function () { return undefined; }
});
}
var tools = new Proxy({}, locked(function (key) {
if (call.call(indexOf, key, '.') >= 0) return qualified(key);
// A namespace is callable only to say that it is not a tool (tools["name"] without a dot).
return new Proxy(function () {}.bind(), locked(function (tool) { return toolFunction(key, tool); }, qualified(key)));
}));
function catalogOp(op) {
return function (params) {
var json = encode('catalog.' + op, { op: op, params: params === undefined ? {} : params });
return json[0] ? host.callAsync(json[1], 'catalog') : failed('invalid_input', json[1]);
};
}
var catalog = freeze({
namespaces: freeze({ list: catalogOp('namespaces.list') }),
tools: freeze({ search: catalogOp('tools.search'), list: catalogOp('tools.list'), describe: catalogOp('tools.describe') }),
toolkits: freeze({ list: catalogOp('toolkits.list'), get: catalogOp('toolkits.get') })
});
function format(a) {
if (typeof a === 'string') return a;
if (a instanceof ErrorCtor) return a.name + ': ' + a.message;
if (a === undefined || typeof a === 'function' || typeof a === 'symbol' || typeof a === 'bigint') return StringCtor(a);
try { var s = stringify(a); return s === undefined ? StringCtor(a) : s; } catch (e) { return StringCtor(a); }
}
function logger(level) {
return function () {
var line = '';
for (var i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + format(arguments[i]);
host.log(level, line);
};
}
// Math.random: xoshiro128** (Blackman and Vigna), seeded by the worker for each run (setGlobals), so a
// replay with the run's seed takes the same numbers; two outputs make one 53-bit number. The step is
// written out twice, and x * 5 | 0, x * 9 | 0 stand for Math.imul (exact below 2^53): in QuickJS a
// call costs more than the step. A method, so the name 'random' survives the build's minifier and it
// is no constructor, as the native one.
var s0 = 1, s1 = 0, s2 = 0, s3 = 0;
function seed(a, b, c, d) { s0 = a | 0; s1 = b | 0; s2 = c | 0; s3 = d | 0; if ((s0 | s1 | s2 | s3) === 0) s0 = 1; }
Object.defineProperty(Math, 'random', { value: { random() {
var a = s1 * 5 | 0, t = s1 << 9;
a = ((a << 7) | (a >>> 25)) * 9 | 0;
s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = (s3 << 11) | (s3 >>> 21);
var b = s1 * 5 | 0;
t = s1 << 9;
b = ((b << 7) | (b >>> 25)) * 9 | 0;
s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = (s3 << 11) | (s3 >>> 21);
return ((a >>> 5) * 67108864 + (b >>> 6)) / 9007199254740992;
} }.random, writable: true, configurable: true, enumerable: false });
function define(name, value) { Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false }); }
define('call_tool', call_tool);
define('call_tools', call_tools);
define('tools', tools);
define('catalog', catalog);
define('console', freeze({ log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug') }));
// Intl (en-US NumberFormat) is compiled by the host on first use: most programs never touch it.
var intl;
function getIntl() { return intl || (intl = host.intl()); }
Object.defineProperty(G, 'Intl', { get: function () { var v = getIntl(); define('Intl', v); return v; }, set: function (v) { define('Intl', v); }, configurable: true, enumerable: false });
Object.defineProperty(Number.prototype, 'toLocaleString', { value: function toLocaleString(locales, options) { return getIntl().NumberFormat(locales, options).format(this); }, writable: true, configurable: true, enumerable: false });
// The fast serializer: JSON.stringify with a replacer that gives up on anything JSON would change.
function plain(key, value) {
var t = typeof value;
if (t === 'function' || t === 'symbol' || t === 'bigint') throw '${NOT_PLAIN}';
if (t === 'string' || t === 'object') {
var original = this[key];
if (original !== null && typeof original === 'object' && !isArray(original)) {
var proto = getProto(original);
if (proto !== OP && proto !== null) throw '${NOT_PLAIN}';
}
}
return value;
}
function fast(value) {
try { var json = stringify(value, plain); return json === undefined ? 'null' : json; }
catch (e) { return null; }
}
// One parse of the whole globals text: the worker never holds the values, only their JSON.
// The same call seeds Math.random for the run.
function setGlobals(json, dates, a, b, c, d0) {
seed(a, b, c, d0);
var v = parse(json), d = parse(dates);
for (var name in v) G[name] = d.indexOf(name) >= 0 ? new DateCtor(v[name]) : v[name];
}
function isError(e) { return e instanceof ErrorCtor; }
return { fast: fast, setGlobals: setGlobals, isError: isError, parse: parse };
})()`);

/** A key longer than this is cut in the path an error names (so is the path, past PATH_CHARS). */
export const PATH_KEY_CHARS = 64;
export const PATH_CHARS = 1024;

/**
 * The exact serializer, compiled only when the fast path refused a value: it names the
 * path of the first value JSON cannot carry (`value.items[3].fn is a function`). The path is
 * built only then, from the keys walked, each cut to PATH_KEY_CHARS and the whole to
 * PATH_CHARS: a key of megabytes must not make the error itself run out of memory.
 * Returns '1' + JSON, '0OUTPUT_TOO_LARGE', or '0SERIALIZATION_ERROR\n' + detail.
 */
export const SERIALIZER_SOURCE = compact(String.raw`(function (value, maxChars) {
'use strict';
var stringify = JSON.stringify, isArray = Array.isArray, keys = Object.keys, getProto = Object.getPrototypeOf;
var OP = Object.prototype, tagOf = Function.prototype.call.bind(Object.prototype.toString);
var seen = [], trail = [], size = 0, KEY = ${PATH_KEY_CHARS}, MAX = ${PATH_CHARS};
function segment(key) {
if (typeof key === 'number') return '[' + key + ']';
if (key.length > KEY) return '[' + stringify(key.slice(0, KEY)).slice(0, -1) + '…" (' + key.length + ' chars)]';
return /^[A-Za-z_$][\w$]*$/.test(key) ? '.' + key : '[' + stringify(key) + ']';
}
function pathOf() {
var path = 'value';
for (var i = 0; i < trail.length; i++) {
path += segment(trail[i]);
if (path.length > MAX) return path.slice(0, MAX / 2) + '…' + pathTail(i + 1);
}
return path;
}
function pathTail(from) {
var tail = '';
for (var i = trail.length - 1; i >= from && tail.length < MAX / 2; i--) tail = segment(trail[i]) + tail;
return tail.length > MAX / 2 ? tail.slice(tail.length - MAX / 2) : tail;
}
function fail(what) { throw { path: pathOf(), what: what }; }
function emit(text) { size += text.length; if (size > maxChars) throw { tooLarge: true }; return text; }
function walk(v) {
switch (typeof v) {
case 'string': case 'number': return emit(stringify(v));
case 'boolean': return emit(v ? 'true' : 'false');
case 'undefined': return undefined;
case 'function': return fail('is a function');
case 'symbol': return fail('is a symbol');
case 'bigint': return fail('is a BigInt (convert it with String() or Number())');
}
if (v === null) return emit('null');
for (var s = 0; s < seen.length; s++) if (seen[s] === v) fail('is a circular reference');
seen.push(v);
var out;
if (isArray(v)) {
out = emit('[');
for (var i = 0; i < v.length; i++) {
trail.push(i);
var item = walk(v[i]);
trail.pop();
out += (i ? emit(',') : '') + (item === undefined ? emit('null') : item);
}
out += emit(']');
} else {
var proto = getProto(v);
if (proto !== OP && proto !== null) {
var tag = tagOf(v);
fail(tag === '[object Object]' ? 'is a class instance (return a plain object)' : 'is a ' + tag.slice(8, -1) + ' (return a plain value, e.g. .toISOString() or .toString())');
}
out = emit('{');
var names = keys(v), first = true;
for (var k = 0; k < names.length; k++) {
var key = names[k];
trail.push(key);
var sub = walk(v[key]);
trail.pop();
if (sub === undefined) continue;
out += (first ? '' : emit(',')) + emit(stringify(key)) + emit(':') + sub;
first = false;
}
out += emit('}');
}
seen.pop();
return out;
}
try {
var json = walk(value);
return '1' + (json === undefined ? 'null' : json);
} catch (e) {
if (e && e.tooLarge) return '0OUTPUT_TOO_LARGE\n';
if (e && e.path) return '0SERIALIZATION_ERROR\n' + e.path + ' ' + e.what;
throw e;
}
})`);
