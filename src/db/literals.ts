/**
 * Values written into SQL text, for the few places that send several statements as one simple
 * query (one round trip, each statement with a snapshot of its own: a read that must follow a lock
 * goes in the same trip as the lock). The simple protocol takes no parameters, so values are
 * written as literals. A string of plain characters (letters, digits and `_.@:/+=-`: ids, UUIDs,
 * numbers, most usernames) is quoted as is; any other is written as its UTF-8 bytes in hex and
 * decoded by the server, so no quote, backslash or `?` of a value ever reaches the SQL text
 * (knex reads a `?` in the text as a parameter marker, even with no parameters). Integers are
 * checked as such. Everywhere else, values go as parameters.
 */

const PLAIN = /^[A-Za-z0-9_.@:/+=-]*$/;

/** A string literal. */
export function literal(value: string): string {
  if (PLAIN.test(value)) return `'${value}'`;
  return `convert_from(decode('${Buffer.from(value, 'utf8').toString('hex')}', 'hex'), 'UTF8')`;
}

/** An array literal of `type` (text, uuid, ...) from strings, each written by literal(); an empty array typed as such. */
export function arrayLiteral(values: readonly string[], type: 'text' | 'uuid' | 'bigint'): string {
  return values.length ? `array[${values.map(literal).join(',')}]::${type}[]` : `'{}'::${type}[]`;
}

/** A whole number written as digits (anything else is refused before it reaches SQL). */
export function integerLiteral(value: number | bigint | string): string {
  const text = String(value);
  if (!/^-?\d+$/.test(text)) throw new Error(`integerLiteral: not an integer: ${text}`);
  return text;
}
