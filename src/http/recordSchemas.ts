/**
 * Validators for the contract's record schemas (PersonResult, CompanyResult), used where records
 * enter the lake from outside the HTTP path (`enrich import`). JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1, compiled once per schema from the bundled document.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { loadDefinition } from './contract';

export type RecordSchemaName = 'PersonResult' | 'CompanyResult';

/** Returns undefined for a valid value, otherwise a one-line reason naming the field. */
export type RecordValidator = (value: unknown) => string | undefined;

let ajv: Ajv2020 | undefined;
const CONTRACT_ID = 'enrich-contract';

function contractAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats(ajv);
    ajv.addSchema({ ...(loadDefinition() as object), $id: CONTRACT_ID });
  }
  return ajv;
}

export function recordValidator(name: RecordSchemaName): RecordValidator {
  const validate: ValidateFunction = contractAjv().compile({ $ref: `${CONTRACT_ID}#/components/schemas/${name}` });
  return (value) => (validate(value) ? undefined : describe(validate.errors ?? []));
}

function describe(errors: ErrorObject[]): string {
  const e = errors[0];
  if (!e) return 'does not match the schema';
  const params = e.params as Record<string, unknown>;
  const field = [e.instancePath.replace(/^\//, '').replace(/\//g, '.'), params.missingProperty ?? params.additionalProperty]
    .filter(Boolean)
    .join('.');
  const what =
    e.keyword === 'required'
      ? 'is required'
      : e.keyword === 'additionalProperties'
        ? 'is not a field of the record'
        : e.message ?? 'is invalid';
  return field ? `${field} ${what}` : `record ${what}`;
}
