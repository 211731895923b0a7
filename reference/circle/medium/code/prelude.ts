/**
 * The sandbox-side half of the code medium, evaluated once per QuickJS context before any entity
 * code. It is a function expression; the host calls it with two host functions and receives helper
 * functions back, so the raw host functions never sit on `globalThis` where entity code could reach
 * them. Built-ins are captured first, so later tampering by entity code (replacing `JSON.stringify`,
 * `Error`, ...) cannot change how gates and output cross the boundary.
 *
 * Crossing rules (CIRCLE-3, CIRCLE-5):
 * - gate arguments leave as one JSON text (getters and `toJSON` run here, inside QuickJS, under the
 *   deadline); values JSON cannot carry (circular, BigInt) make the gate throw a TypeError here;
 * - the host answers with a JSON envelope: `{ok:true, v?}`, `{ok:false, name, message, code?}`, or
 *   `{stop:true}` (after `done`, or once the deadline passed). On `stop` the wrapper spins; the host's
 *   interrupt handler then ends the evaluation with QuickJS's uncatchable interrupt, which no
 *   `try/catch/finally` of the entity can intercept (LOOP-3).
 */
export const PRELUDE_SOURCE = String.raw`(function (gateHost, outHost, gateNames, globalsJson, cap) {
  'use strict';
  const G = globalThis;
  const stringify = JSON.stringify, parse = JSON.parse;
  const defineProperty = Object.defineProperty, freeze = Object.freeze, keys = Object.keys;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const apply = Reflect.apply, objectToString = Object.prototype.toString, hasOwn = Object.prototype.hasOwnProperty;
  // Envelopes and replies are read through own properties and null prototypes only, so a polluted
  // Object.prototype (an inherited toJSON, stop or ok) cannot bend how results cross.
  function own(o, k) { return apply(hasOwn, o, [k]) ? o[k] : undefined; }
  function envelope(fields) { const o = { __proto__: null }; for (const k in fields) if (apply(hasOwn, fields, [k])) o[k] = fields[k]; return stringify(o); }
  const slice = String.prototype.slice;
  const ErrorCtor = Error, TypeErrorCtor = TypeError, RangeErrorCtor = RangeError, StringCtor = String;
  const indexOf = String.prototype.indexOf;
  // Host functions suspend the whole QuickJS stack (asyncify) while the host works; a very deep stack
  // overflows the native stack under that machinery. The worker thread contains such a crash, but the
  // engine must then be rebuilt and its state is lost. So a host function refuses to run from deeper
  // than this many nested calls, with a RangeError the entity's code sees like any other.
  const MAX_GATE_DEPTH = 64;
  function tooDeep() {
    let stack = '';
    try { stack = StringCtor(new ErrorCtor().stack); } catch (e) { return false; }
    let lines = 0;
    for (let i = apply(indexOf, stack, ['\n']); i !== -1; i = apply(indexOf, stack, ['\n', i + 1])) {
      if (++lines > MAX_GATE_DEPTH) return true;
    }
    return false;
  }

  function safeString(v) {
    try { return StringCtor(v); } catch (e) {
      try { return apply(objectToString, v, []); } catch (e2) { return '[unprintable value]'; }
    }
  }
  function isErrorLike(v) {
    try { return v instanceof ErrorCtor; } catch (e) { return false; }
  }
  function errorText(e) {
    try { return safeString(e.name) + ': ' + safeString(e.message); } catch (x) { return safeString(e); }
  }
  function toText(v) {
    if (typeof v === 'string') return v;
    if (typeof v === 'object' && v !== null) {
      if (isErrorLike(v)) return errorText(v);
      try { const j = stringify(v); if (typeof j === 'string') return j; } catch (e) { /* fall through */ }
    }
    if (typeof v === 'function') return '[Function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'bigint') return safeString(v) + 'n';
    return safeString(v);
  }

  function makeGate(name) {
    const gate = function (...args) {
      if (tooDeep()) throw new RangeErrorCtor(name + ' was called more than ' + MAX_GATE_DEPTH + ' calls deep; recursion through host functions is limited');
      let json, problem = '';
      try { json = stringify(args); } catch (e) { problem = errorText(e); }
      if (typeof json !== 'string' && problem === '') problem = 'arguments did not serialize to JSON';
      const reply = parse(gateHost(name, typeof json === 'string' ? json : '', problem));
      if (own(reply, 'stop')) { for (;;) {} }
      if (own(reply, 'ok')) return own(reply, 'v');
      const message = own(reply, 'message'), errorName = own(reply, 'name'), code = own(reply, 'code');
      const err = errorName === 'TypeError' ? new TypeErrorCtor(message) : new ErrorCtor(message);
      defineProperty(err, 'name', { value: errorName, writable: true, configurable: true });
      if (code) defineProperty(err, 'code', { value: code, writable: true, configurable: true });
      throw err;
    };
    defineProperty(gate, 'name', { value: name });
    return freeze(gate);
  }
  for (const name of gateNames) {
    defineProperty(G, name, { value: makeGate(name), writable: false, enumerable: false, configurable: false });
  }

  const consoleObject = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    consoleObject[level] = function (...args) {
      let line = '', total = 0;
      for (let i = 0; i < args.length; i++) {
        const part = (i ? ' ' : '') + toText(args[i]);
        total += part.length;
        if (line.length <= cap) line += apply(slice, part, [0, cap + 1 - line.length]);
      }
      outHost(level, line, total);
    };
  }
  defineProperty(G, 'console', { value: freeze(consoleObject), writable: false, enumerable: false, configurable: false });

  function deepFreeze(v) {
    if (typeof v === 'object' && v !== null) {
      for (const k of getOwnPropertyNames(v)) deepFreeze(v[k]);
      freeze(v);
    }
    return v;
  }
  const injected = parse(globalsJson);
  for (const k of keys(injected)) {
    defineProperty(G, k, { value: deepFreeze(injected[k]), writable: false, enumerable: true, configurable: false });
  }

  return freeze({
    describeValue(v) {
      if (v === undefined) return '{}';
      const t = typeof v;
      if (t === 'function' || t === 'symbol' || t === 'bigint') return envelope({ __proto__: null, text: toText(v) });
      if (t === 'number' && !(v === v && v !== Infinity && v !== -Infinity)) return envelope({ __proto__: null, text: safeString(v) });
      try {
        const j = stringify(v);
        if (typeof j === 'string') return envelope({ __proto__: null, json: j });
      } catch (e) { /* not JSON-able: describe it instead */ }
      return envelope({ __proto__: null, text: isErrorLike(v) ? errorText(v) : safeString(v) });
    },
    describeError(e) {
      if (typeof e === 'object' && e !== null && isErrorLike(e)) {
        let name = 'Error', message = '';
        try { name = safeString(e.name); } catch (x) { /* keep default */ }
        try { message = safeString(e.message); } catch (x) { /* keep default */ }
        return envelope({ __proto__: null, name: name, message: message });
      }
      return envelope({ __proto__: null, name: 'ThrownValue', message: toText(e) });
    },
  });
})`;
