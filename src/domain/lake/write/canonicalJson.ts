/**
 * Whether a JSON text is already what `JSON.stringify(JSON.parse(text))` gives back, checked in
 * one pass over its characters instead of serialising the parsed value again (an initial load
 * stores the line itself as the record's text when it is: importer.ts, writer.ts prepareRecord;
 * the JSON.stringify of a 5 KB person cost 20-45 µs of the import's 200-400 µs per line, issue 35).
 * Conservative: true only when the text is certainly canonical, false for anything it is not sure
 * of (the caller then stringifies, as before). `value` must be JSON.parse(text). Canonical means:
 * - no whitespace outside strings;
 * - in strings, only the escapes JSON.stringify writes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
 *   and `\u00xx` (lower-case hex) for the other characters below U+0020; no raw lone surrogate
 *   (JSON.stringify escapes those; any other `\u` escape, `\/` included, is not canonical);
 * - numbers as JavaScript writes them back (`String(Number(token)) === token`, so no `1.0`, `1e2`,
 *   `-0` or leading zeros);
 * - object keys that do not start with a digit (JavaScript lists integer-like keys first, in
 *   numeric order), and no key twice in one object (JSON.parse keeps one): the keys of `text` are
 *   counted and compared with the own keys of `value`.
 * Pure.
 */
export function isCanonicalJson(text: string, value: unknown): boolean {
  const n = text.length;
  let keys = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // A string: a key when a colon follows its closing quote.
      const end = canonicalStringEnd(text, i + 1);
      if (end < 0) return false;
      if (text.charCodeAt(end + 1) === 0x3a /* : */) {
        const first = text.charCodeAt(i + 1);
        if (first >= 0x30 && first <= 0x39) return false;
        keys += 1;
      }
      i = end + 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      let plain = c !== 0x2d && (c !== 0x30 || !isNumberChar(text.charCodeAt(j)));
      for (; j < n && isNumberChar(text.charCodeAt(j)); j += 1) {
        const d = text.charCodeAt(j);
        if (d < 0x30 || d > 0x39) plain = false;
      }
      // Digits alone, no leading zero, at most 15 of them: written back as they are.
      if (!(plain && j - i <= 15)) {
        const token = text.slice(i, j);
        if (String(Number(token)) !== token) return false;
      }
      i = j;
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      return false;
    } else {
      i += 1;
    }
  }
  return keys === countKeys(value);
}

/** The number characters of JSON (after the first). */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/** The index of the closing quote of the string starting at `i` (after its opening quote), or -1 if not canonical. */
function canonicalStringEnd(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i;
    if (c === 0x5c /* \ */) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      if (e !== 0x75 /* u */ || text.charCodeAt(i + 2) !== 0x30 || text.charCodeAt(i + 3) !== 0x30) return -1;
      const hi = text.charCodeAt(i + 4);
      const lo = text.charCodeAt(i + 5);
      if (hi !== 0x30 && hi !== 0x31) return -1;
      const low = lo >= 0x30 && lo <= 0x39 ? lo - 0x30 : lo >= 0x61 && lo <= 0x66 ? lo - 0x61 + 10 : -1;
      if (low < 0) return -1;
      const code = (hi - 0x30) * 16 + low;
      // JSON.stringify writes these five with their short escapes.
      if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return -1;
      i += 6;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      // A surrogate pair is written as it is; a lone surrogate is escaped by JSON.stringify.
      const next = text.charCodeAt(i + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return -1;
      i += 2;
      continue;
    }
    i += 1;
  }
  return -1;
}

/** Own keys of every object in a parsed JSON value. */
function countKeys(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let keys = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) keys += countKeys(value[i]);
    return keys;
  }
  for (const key in value) {
    keys += 1;
    keys += countKeys((value as Record<string, unknown>)[key]);
  }
  return keys;
}
