/**
 * Text the database cannot hold, the one rule: PostgreSQL `text` and `jsonb` values cannot contain
 * U+0000 (NUL), and a lone UTF-16 surrogate (a `\ud800` escape with no partner: valid JSON, valid
 * against the contract) is refused by `jsonb` and silently turned into U+FFFD by the driver in a
 * `text` column. Such a string is refused where it enters, with the path of the field, instead of
 * failing deep inside a query (where it would fail a whole batch with it): HTTP parameters and
 * bodies (http/middleware/dispatch.ts, people/bulk.ts), imported records (lake/importer.ts), and
 * the live source's records on every write path (refresh/round.ts, live/realtime.ts). Text decoded
 * from a value that passed that check (a `%00` in a profile URL's path, lake/identifiers.ts) is
 * checked again where it is decoded, for the same reason.
 */

/** NUL, or a surrogate not part of a pair (a high one not followed by a low one, a low one alone). */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string holds a character the database cannot store (UNSTORABLE). */
export const hasUnstorableText = (text: string): boolean => UNSTORABLE.test(text);

/** What the offending character is, for a message. */
function unstorableCharacter(text: string): string {
  const found = UNSTORABLE.exec(text)?.[0] ?? '';
  return found === '\u0000'
    ? 'the NUL character (U+0000)'
    : `a lone surrogate (U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`;
}

/** Where a value holds text the database cannot store, and which character. */
export interface UnstorableText {
  /** `a.b[2].c`, or `(value)` for a bare string. */
  path: string;
  /** For example `the NUL character (U+0000)` or `a lone surrogate (U+D800)`. */
  character: string;
}

/** The first string, value or key, holding text the database cannot store, or undefined. */
export function unstorableText(value: unknown, path = ''): UnstorableText | undefined {
  if (typeof value === 'string') return hasUnstorableText(value) ? { path: path || '(value)', character: unstorableCharacter(value) } : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (hasUnstorableText(key)) return { path: here, character: unstorableCharacter(key) };
      const found = unstorableText(v, here);
      if (found) return found;
    }
  }
  return undefined;
}

/** `<path> contains <character>, which the database cannot store`: the short reason every caller gives. */
export const unstorableReason = (found: UnstorableText): string => `${found.path} contains ${found.character}, which the database cannot store`;

/**
 * Whether JSON text may spell such a character: only its escapes can (a raw NUL byte is not valid
 * JSON text, and decoded UTF-8 holds no lone surrogate). A cheap filter before unstorableText for
 * callers that hold the text (the importer, per line).
 */
export const mayHoldUnstorableEscape = (jsonText: string): boolean =>
  // A plain substring search first (most texts hold no escape at all), the pattern only then.
  jsonText.includes('\\u') && /\\u(0000|d[89a-f])/i.test(jsonText);

/**
 * Control characters (C0, C1, DEL), line and paragraph separators, and the bidirectional
 * formatting characters (U+202E and its kin) that can make a text display as something else in a
 * terminal or a dashboard. Refused in every name and label a person types and others read:
 * workspace and member names (workspaces/admin.ts), monitor labels (monitors/monitors.ts).
 */
const FORBIDDEN_IN_DISPLAY_TEXT = /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** Whether `text` holds a character a name or label must not hold (FORBIDDEN_IN_DISPLAY_TEXT). */
export const hasFormattingCharacters = (text: string): boolean => FORBIDDEN_IN_DISPLAY_TEXT.test(text);
