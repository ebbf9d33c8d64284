// pdf.js's legacy build (the one Node 20 runs) bundles core-js, which installs its polyfills for the
// whole thread. Most add what Node 20 lacks (Promise.withResolvers, Set methods, Uint8Array base64),
// and pdf.js needs those. A few replace a function the runtime has, over an edge case the parsers
// never meet: Array.prototype.push (V8 does not throw on `push()` of a frozen length) and
// JSON.parse/stringify (raw JSON, source text for revivers). The replacements are 4-7 times
// slower, and in a parse worker every later document pays for them, not only PDFs.

/** The runtime's objects whose functions a bundled polyfill may replace. */
const BUILT_INS: readonly object[] = [
  Array, Array.prototype, Object, Object.prototype, Function.prototype, JSON, Math, Reflect, Number, Number.prototype,
  String, String.prototype, RegExp.prototype, Promise, Promise.prototype, Map, Map.prototype, Set, Set.prototype,
  WeakMap.prototype, WeakSet.prototype, ArrayBuffer, ArrayBuffer.prototype, DataView.prototype, Object.getPrototypeOf(Uint8Array),
  Object.getPrototypeOf(Uint8Array.prototype), Uint8Array, Uint8Array.prototype, Symbol, Error, Date.prototype,
];

/**
 * Runs `load` (an import that brings polyfills) and puts back every function of the runtime's own
 * that it replaced; functions it added stay. Returns what `load` resolved to.
 */
export async function keepingNatives<T>(load: () => Promise<T>): Promise<T> {
  const natives = BUILT_INS.map((target) => {
    const own = new Map<PropertyKey, PropertyDescriptor>();
    for (const key of Reflect.ownKeys(target)) {
      const d = Object.getOwnPropertyDescriptor(target, key);
      if (d && typeof d.value === 'function') own.set(key, d);
    }
    return { target, own };
  });
  try {
    return await load();
  } finally {
    for (const { target, own } of natives) {
      for (const [key, d] of own) {
        if (Object.getOwnPropertyDescriptor(target, key)?.value !== d.value) Object.defineProperty(target, key, d);
      }
    }
  }
}
