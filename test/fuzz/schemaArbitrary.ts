/**
 * fast-check arbitraries derived from JSON Schema (the 2020-12 / draft-07 subset the contract uses,
 * see docs/contract-design.md): type (and type arrays), enum, const, oneOf/anyOf/allOf, properties
 * with required, items with minItems/maxItems/uniqueItems, minLength/maxLength, pattern, format
 * (uuid, date-time, date, uri, email), minimum/maximum and their exclusive forms.
 *
 * Why our own module and not a library: the JSON-Schema-to-data generators on the registry either
 * bring their own random source (json-schema-faker: no fast-check seed, no shrinking, so a failure
 * would not reproduce from the printed seed) or are unmaintained 0.0.x releases. Deriving
 * fast-check arbitraries keeps one seed for everything, shrinks failures to small requests, and is
 * about a hundred lines for the keywords the contract allows. An unknown keyword fails loudly
 * (`unsupported`), so the generator cannot silently drift from the contract.
 */
import fc from 'fast-check';

export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
}

export interface ArbitraryOptions {
  /** Longest array generated when the schema allows longer ones (keeps requests small). */
  maxArrayLength?: number;
  /** Longest string generated when the schema allows longer ones. */
  maxStringLength?: number;
  /**
   * Values to mix in for a named property or parameter (identifiers drawn from the seeded world,
   * so that valid requests reach real records). Returned values must be valid for the schema.
   */
  hint?: (name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;
}

/** Length in code points, as JSON Schema's minLength/maxLength count it. */
export const codePoints = (s: string): number => [...s].length;

/** Printable ASCII most of the time, any Unicode code point (astral planes included) otherwise. */
function text(min: number, max: number): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: max }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: max }) },
    )
    .filter((s) => codePoints(s) >= min && codePoints(s) <= max);
}

function stringArbitrary(schema: Schema, opts: Required<Omit<ArbitraryOptions, 'hint'>>): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.MAX_SAFE_INTEGER;
  const inLength = (s: string) => codePoints(s) >= min && codePoints(s) <= max;
  let arb: fc.Arbitrary<string>;
  if (schema.pattern) arb = fc.stringMatching(new RegExp(schema.pattern, 'u'));
  else if (schema.format === 'uuid') arb = fc.uuid();
  else if (schema.format === 'date-time') arb = fc.date({ min: new Date('1970-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
  else if (schema.format === 'date') arb = fc.date({ min: new Date('1970-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  else if (schema.format === 'uri') arb = fc.webUrl({ withQueryParameters: true, withFragments: false });
  else if (schema.format === 'email') arb = fc.emailAddress();
  else if (schema.format) throw new Error(`schemaArbitrary: unsupported format ${schema.format}`);
  else return text(min, Math.min(max, min + opts.maxStringLength));
  return arb.filter(inLength);
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  if (integer) {
    const min = schema.exclusiveMinimum !== undefined ? Math.floor(schema.exclusiveMinimum) + 1 : Math.ceil(schema.minimum ?? -1_000_000);
    const max = schema.exclusiveMaximum !== undefined ? Math.ceil(schema.exclusiveMaximum) - 1 : Math.floor(schema.maximum ?? 1_000_000);
    // The boundaries are where off-by-one bugs live: draw them often.
    return fc.oneof({ weight: 1, arbitrary: fc.constantFrom(min, max) }, { weight: 4, arbitrary: fc.integer({ min, max }) });
  }
  const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e9;
  const max = schema.maximum ?? schema.exclusiveMaximum ?? 1e9;
  return fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .filter((n) => (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) && (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum));
}

export function schemaArbitrary(schema: Schema, options: ArbitraryOptions = {}, name = ''): fc.Arbitrary<unknown> {
  const opts = { maxArrayLength: options.maxArrayLength ?? 5, maxStringLength: options.maxStringLength ?? 40 };
  const own = build(schema, options, opts, name);
  const hinted = name ? options.hint?.(name, schema) : undefined;
  return hinted ? fc.oneof({ weight: 3, arbitrary: hinted }, { weight: 1, arbitrary: own }) : own;
}

function build(schema: Schema, options: ArbitraryOptions, opts: { maxArrayLength: number; maxStringLength: number }, name: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.allOf) return build(Object.assign({}, ...schema.allOf, { ...schema, allOf: undefined }), options, opts, name);
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) {
    const { oneOf: _o, anyOf: _a, ...rest } = schema;
    return fc.oneof(...branches.map((b) => schemaArbitrary({ ...rest, ...b }, options, name)));
  }
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((t) => build({ ...schema, type: t }, options, opts, name)));
  const type = schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'string':
      return stringArbitrary(schema, opts);
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? Number.MAX_SAFE_INTEGER, min + opts.maxArrayLength);
      const items = schemaArbitrary(schema.items ?? {}, options, name);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength: min, maxLength: max });
    }
    case 'object': {
      const props = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, schemaArbitrary(s, options, k)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    case undefined:
      return fc.jsonValue({ maxDepth: 2 });
    default:
      throw new Error(`schemaArbitrary: unsupported type ${String(type)} at ${name || '(root)'}`);
  }
}
