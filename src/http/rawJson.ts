/**
 * A document that is already JSON text (a lake record read as `record::text`). The edge splices it
 * into the envelope unchanged instead of parsing it into objects only to serialize it again: for a
 * 5 KB profile that round trip was a large share of a lookup's CPU time.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The envelope's JSON text with `data` spliced in as is (the single-record fast path). */
export function spliceData(data: RawJson, rest: Record<string, unknown>): string {
  const others = JSON.stringify(rest);
  return others === '{}' ? `{"data":${data.text}}` : `{"data":${data.text},${others.slice(1)}`;
}

/**
 * Whether a RawJson appears anywhere in the value (bulk results carry one per matched item).
 * Stops at the first one; a body without any is walked once, which costs far less than the
 * JSON.stringify that Koa then does on it.
 */
export function containsRawJson(value: unknown): boolean {
  if (value instanceof RawJson) return true;
  if (Array.isArray(value)) return value.some(containsRawJson);
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) if (containsRawJson(value[key])) return true;
  }
  return false;
}

/**
 * JSON text of a value whose RawJson parts are emitted in place, as is. Everything else goes
 * through JSON.stringify, so strings the caller sent (bulk results echo their inputs) are escaped
 * as usual and cannot be mistaken for stored text: no placeholder is ever substituted.
 * Follows JSON.stringify's rules for what it walks itself: object members whose value is
 * undefined (or a function or symbol) are left out, and written as null inside arrays.
 */
export function toJsonText(value: unknown): string | undefined {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => toJsonText(item) ?? 'null').join(',')}]`;
  if (isPlainObject(value)) {
    const members: string[] = [];
    for (const key of Object.keys(value)) {
      const text = toJsonText(value[key]);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  // Strings, numbers, booleans, null, and objects with their own toJSON (Date).
  return JSON.stringify(value);
}

/**
 * The same JSON text as toJsonText, as UTF-8 bytes, built without ever joining it into one string:
 * the text between stored records is collected in small strings, each stored record stays the
 * string it was read as, and every part is encoded once into one buffer. Joining 500 stored
 * records (2.4 MB, a bulk answer) into one string and encoding that cost 20 times the CPU: the
 * join copies every record, and a single character beyond Latin-1 in any record makes the whole
 * joined string two bytes a character (issue 35).
 */
export function toJsonBytes(value: unknown): Buffer {
  const parts: string[] = [];
  let pending = '';
  const walk = (v: unknown): boolean => {
    if (v instanceof RawJson) {
      if (pending) parts.push(pending);
      parts.push(v.text);
      pending = '';
      return true;
    }
    if (Array.isArray(v)) {
      pending += '[';
      v.forEach((item, i) => {
        if (i) pending += ',';
        if (!walk(item)) pending += 'null';
      });
      pending += ']';
      return true;
    }
    if (isPlainObject(v)) {
      pending += '{';
      let first = true;
      for (const key of Object.keys(v)) {
        const member = v[key];
        const walked = member instanceof RawJson || Array.isArray(member) || isPlainObject(member);
        // Members without JSON text (undefined, functions, symbols) are left out, as toJsonText does.
        const text = walked ? '' : JSON.stringify(member);
        if (text === undefined) continue;
        pending += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
        first = false;
        if (walked) walk(member);
      }
      pending += '}';
      return true;
    }
    const text = JSON.stringify(v);
    if (text === undefined) return false;
    pending += text;
    return true;
  };
  if (!walk(value)) throw new TypeError('toJsonBytes: the value has no JSON text');
  if (pending) parts.push(pending);
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += bytes.write(part, at);
  return bytes;
}

/** An object walked member by member: a literal without its own toJSON (JSON.stringify honours that). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
