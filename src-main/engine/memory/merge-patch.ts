// JSON Merge Patch (RFC 7396) for metadata_patch: members of the patch replace the target's,
// null deletes a member, objects merge recursively, and anything else (arrays included)
// replaces the target's value whole.

export type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else define(out, key, mergePatch(out[key], value));
  }
  return out;
}

/** Plain assignment of "__proto__" would set the object's prototype instead of a member. */
function define(o: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}
