/**
 * @module The guest-side prelude: JavaScript evaluated inside each fresh QuickJS context
 * before the program. It validates guest arguments, turns them into JSON text for the
 * host functions it captures, defines the documented globals, and returns the hooks the
 * worker uses (settle async calls, set globals, serialize the result, describe errors).
 * The host functions are removed from globalThis before any program runs.
 */

/** Name of the temporary global holding the host functions while the prelude runs. */
export const HOST_GLOBAL = '__codemux_host__';

export const PRELUDE_SOURCE = String.raw`(function () {
  'use strict';
  var G = globalThis;
  var host = G.${HOST_GLOBAL};
  delete G.${HOST_GLOBAL};
  var hostCall = host.call, hostBatch = host.batch, hostAsync = host.callAsync, hostLog = host.log;
  var stringify = JSON.stringify, parse = JSON.parse;
  var keys = Object.keys, getProto = Object.getPrototypeOf, isArray = Array.isArray;
  var objectProto = Object.prototype, defineProperty = Object.defineProperty;
  var freeze = Object.freeze, hasOwn = Object.hasOwn, isInteger = Number.isInteger;
  var tagOf = Function.prototype.call.bind(Object.prototype.toString);
  var PromiseCtor = Promise, MapCtor = Map, ErrorCtor = Error, TypeErrorCtor = TypeError, StringCtor = String;
  var mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
  var indexOfStr = String.prototype.indexOf, sliceStr = String.prototype.slice;
  var callFn = Function.prototype.call;
  var MAX_BATCH = 100;

  function isObjectArg(v) { return v !== null && typeof v === 'object' && !isArray(v); }
  function invalid(message) { return { ok: false, error: { code: 'INVALID_ARGS', message: message } }; }
  function encode(payload) {
    try { return [true, stringify(payload)]; }
    catch (e) { return [false, 'args are not JSON-serializable (' + (e && e.message) + ')']; }
  }

  function call_tool(server, tool, args) {
    var n = arguments.length;
    if (n < 2 || n > 3) return invalid('call_tool(server, tool, args) takes 2 or 3 arguments, got ' + n);
    if (typeof server !== 'string' || server === '') return invalid('call_tool: server must be a non-empty string');
    if (typeof tool !== 'string' || tool === '') return invalid('call_tool: tool must be a non-empty string');
    if (args === undefined) args = {};
    else if (!isObjectArg(args)) return invalid('call_tool: args must be an object');
    var json = encode({ server: server, tool: tool, args: args });
    if (!json[0]) return invalid('call_tool: ' + json[1]);
    return parse(hostCall(json[1]));
  }

  function checkBatch(requests, options) {
    if (!isArray(requests)) return 'call_tools: requests must be an array of {server, tool, args}';
    if (options !== undefined && !isObjectArg(options)) return 'call_tools: options must be an object';
    var maxParallel = options === undefined ? undefined : options.max_parallel;
    if (maxParallel !== undefined && !(isInteger(maxParallel) && maxParallel >= 1 && maxParallel <= 32)) {
      return 'call_tools: options.max_parallel must be an integer from 1 to 32';
    }
    if (requests.length > MAX_BATCH) {
      return 'call_tools: the batch has ' + requests.length + ' elements; at most ' + MAX_BATCH + ' are allowed';
    }
    for (var i = 0; i < requests.length; i++) {
      if (!hasOwn(requests, i)) return 'call_tools: element ' + i + ': is a hole in a sparse array';
      var r = requests[i];
      if (!isObjectArg(r)) return 'call_tools: element ' + i + ': must be an object {server, tool, args}';
      if (typeof r.server !== 'string' || r.server === '') return 'call_tools: element ' + i + ': server must be a non-empty string';
      if (typeof r.tool !== 'string' || r.tool === '') return 'call_tools: element ' + i + ': tool must be a non-empty string';
      if (r.args !== undefined && !isObjectArg(r.args)) return 'call_tools: element ' + i + ': args must be an object';
    }
    return null;
  }

  function call_tools(requests, options) {
    var problem = checkBatch(requests, options);
    if (problem !== null) return invalid(problem);
    if (requests.length === 0) return [];
    var batch = [];
    for (var i = 0; i < requests.length; i++) {
      var r = requests[i];
      batch[i] = { server: r.server, tool: r.tool, args: r.args === undefined ? {} : r.args };
    }
    var json = encode({ requests: batch, max_parallel: options === undefined ? undefined : options.max_parallel });
    if (!json[0]) return invalid('call_tools: ' + json[1]);
    return parse(hostBatch(json[1]));
  }

  var pending = new MapCtor();
  function asyncFailure(code, message) {
    return PromiseCtor.resolve({ ok: false, error: { code: code, message: message, retryable: false } });
  }
  function callAsync(qualified, server, tool, args) {
    if (args === undefined) args = {};
    if (!isObjectArg(args)) return asyncFailure('invalid_input', 'tools.' + qualified + ': arguments must be an object');
    var json = encode({ server: server, tool: tool, args: args });
    if (!json[0]) return asyncFailure('invalid_input', 'tools.' + qualified + ': ' + json[1]);
    return new PromiseCtor(function (resolve) {
      var id = hostAsync(json[1]);
      callFn.call(mapSet, pending, id, resolve);
    });
  }
  function toolFunction(server, tool) {
    var qualified = server + '.' + tool;
    return function (args) { return callAsync(qualified, server, tool, args); };
  }
  function qualifiedFunction(name) {
    var dot = callFn.call(indexOfStr, name, '.');
    if (dot <= 0 || dot === name.length - 1) {
      return function () { return asyncFailure('tool_not_found', 'not a qualified tool name "namespace.name": ' + stringify(name)); };
    }
    return toolFunction(callFn.call(sliceStr, name, 0, dot), callFn.call(sliceStr, name, dot + 1));
  }
  function refuse() { throw new TypeErrorCtor('tools cannot be enumerated or changed; call tools.<server>.<tool>(args) or tools["server.tool"](args)'); }
  function lockedHandler(get) {
    return freeze({
      get: function (_t, key) { return typeof key === 'string' && key !== 'then' ? get(key) : undefined; },
      has: function (_t, key) { return typeof key === 'string'; },
      set: refuse, defineProperty: refuse, deleteProperty: refuse, ownKeys: refuse,
      setPrototypeOf: refuse, preventExtensions: refuse,
      getOwnPropertyDescriptor: function () { return undefined; }
    });
  }
  var tools = new Proxy({}, lockedHandler(function (key) {
    if (callFn.call(indexOfStr, key, '.') >= 0) return qualifiedFunction(key);
    return new Proxy({}, lockedHandler(function (tool) { return toolFunction(key, tool); }));
  }));

  function formatArg(a) {
    if (typeof a === 'string') return a;
    if (a instanceof ErrorCtor) return a.name + ': ' + a.message;
    if (a === undefined || typeof a === 'function' || typeof a === 'symbol' || typeof a === 'bigint') return StringCtor(a);
    try { var s = stringify(a); return s === undefined ? StringCtor(a) : s; } catch (e) { return StringCtor(a); }
  }
  function logger(level) {
    return function () {
      var line = '';
      for (var i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + formatArg(arguments[i]);
      hostLog(level, line);
    };
  }
  var console = freeze({
    log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug')
  });

  function define(name, value) {
    defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
  }
  define('call_tool', call_tool);
  define('call_tools', call_tools);
  define('tools', tools);
  define('console', console);

  function settle(id, json) {
    var resolve = callFn.call(mapGet, pending, id);
    if (resolve === undefined) return;
    callFn.call(mapDelete, pending, id);
    resolve(parse(json));
  }

  function setGlobals(json) {
    var values = parse(json);
    var names = keys(values);
    for (var i = 0; i < names.length; i++) {
      defineProperty(G, names[i], { value: values[names[i]], writable: true, configurable: true, enumerable: true });
    }
  }

  // Serializes the program's value to JSON text, refusing what JSON would silently change.
  function serialize(value, maxChars) {
    var seen = [];
    var size = 0;
    function fail(path, what) { throw { __codemux_serialize__: true, path: path, what: what }; }
    function emit(text) {
      size += text.length;
      if (size > maxChars) throw { __codemux_too_large__: true };
      return text;
    }
    function walk(v, path) {
      switch (typeof v) {
        case 'string': return emit(stringify(v));
        case 'number': return emit(stringify(v));
        case 'boolean': return emit(v ? 'true' : 'false');
        case 'undefined': return undefined;
        case 'function': return fail(path, 'is a function');
        case 'symbol': return fail(path, 'is a symbol');
        case 'bigint': return fail(path, 'is a BigInt (convert it with String() or Number())');
      }
      if (v === null) return emit('null');
      for (var s = 0; s < seen.length; s++) if (seen[s] === v) fail(path, 'is a circular reference');
      seen.push(v);
      var out;
      if (isArray(v)) {
        out = emit('[');
        for (var i = 0; i < v.length; i++) {
          var item = walk(v[i], path + '[' + i + ']');
          out += (i ? emit(',') : '') + (item === undefined ? emit('null') : item);
        }
        out += emit(']');
      } else {
        var proto = getProto(v);
        if (proto !== objectProto && proto !== null) {
          var tag = tagOf(v);
          fail(path, tag === '[object Object]' ? 'is a class instance (return a plain object)' : 'is a ' + tag.slice(8, -1) + ' (return a plain value, e.g. .toISOString() or .toString())');
        }
        out = emit('{');
        var names = keys(v), first = true;
        for (var k = 0; k < names.length; k++) {
          var key = names[k];
          var sub = walk(v[key], /^[A-Za-z_$][\w$]*$/.test(key) ? path + '.' + key : path + '[' + stringify(key) + ']');
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
      var json = walk(value, 'value');
      return '1' + (json === undefined ? 'null' : json);
    } catch (e) {
      if (e && e.__codemux_too_large__) return '0OUTPUT_TOO_LARGE\n';
      if (e && e.__codemux_serialize__) return '0SERIALIZATION_ERROR\n' + e.path + ' ' + e.what;
      throw e;
    }
  }

  // Reads a thrown value into plain strings without trusting its getters to behave.
  function describe(e) {
    var out = { isError: false, name: '', message: '', stack: '' };
    try {
      if (e instanceof ErrorCtor) {
        out.isError = true;
        out.name = StringCtor(e.name);
        out.message = StringCtor(e.message);
        out.stack = typeof e.stack === 'string' ? e.stack : '';
      } else if (typeof e === 'string') {
        out.message = e;
      } else {
        out.message = formatArg(e);
      }
    } catch (inner) {
      out.message = 'a thrown value that could not be read';
    }
    return stringify(out);
  }

  return { settle: settle, setGlobals: setGlobals, serialize: serialize, describe: describe };
})()`;
