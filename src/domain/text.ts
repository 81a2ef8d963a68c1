/**
 * Text the database cannot hold: PostgreSQL `text` and `json` values cannot contain U+0000 (NUL),
 * so a string with one is refused where it enters (HTTP parameters and bodies, imported records),
 * with the name of the field, instead of failing deep inside a query. Text decoded from a value
 * that passed that check (a `%00` in a profile URL's path, lake/identifiers.ts) is checked again
 * where it is decoded, for the same reason.
 */

/** Whether a string holds U+0000 (which PostgreSQL text cannot hold). */
export const hasNul = (text: string): boolean => text.includes('\u0000');

/** The path (`a.b[2].c`) of the first string, value or key, holding U+0000, or undefined. */
export function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return hasNul(value) ? path || '(value)' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return here;
      const found = nulPath(v, here);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Control characters (C0, C1, DEL), line and paragraph separators, and the bidirectional
 * formatting characters (U+202E and its kin) that can make a text display as something else in a
 * terminal or a dashboard. Refused in every name and label a person types and others read:
 * workspace and member names (workspaces/admin.ts), monitor labels (monitors/monitors.ts).
 */
const FORBIDDEN_IN_DISPLAY_TEXT = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** Whether `text` holds a character a name or label must not hold (FORBIDDEN_IN_DISPLAY_TEXT). */
export const hasFormattingCharacters = (text: string): boolean => FORBIDDEN_IN_DISPLAY_TEXT.test(text);
