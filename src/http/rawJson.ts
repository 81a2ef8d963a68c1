/**
 * A document that is already JSON text (a lake record read as `record::text`). The edge splices it
 * into the envelope unchanged instead of parsing it into objects only to serialize it again: for a
 * 5 KB profile that round trip was a large share of a lookup's CPU time.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The envelope's JSON text with `data` spliced in as is. */
export function spliceData(data: RawJson, rest: Record<string, unknown>): string {
  const others = JSON.stringify(rest);
  return others === '{}' ? `{"data":${data.text}}` : `{"data":${data.text},${others.slice(1)}`;
}
