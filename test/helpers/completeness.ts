/**
 * Walks a contract schema and lists every declared field that a value omits, at any depth (objects,
 * arrays of objects, nullable branches). The spec's rule: every listed field is always present,
 * `null` when it has no value.
 */
import { loadDefinition } from '../../src/http/contract';
import { expandRefsIn } from '../../src/http/expandRefs';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

export function contractSchema(name: string): Schema {
  const doc = loadDefinition() as unknown as { components: { schemas: Record<string, Schema> } };
  return expandRefsIn(doc.components.schemas[name]!, doc);
}

function branches(schema: Schema): Schema[] {
  return [schema, ...(schema.anyOf ?? []).flatMap(branches), ...(schema.oneOf ?? []).flatMap(branches)];
}

export function missingFields(schema: Schema, value: unknown, at = ''): string[] {
  if (value === null || value === undefined) return [];
  const missing: string[] = [];
  for (const branch of branches(schema)) {
    if (branch.properties && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, sub] of Object.entries(branch.properties)) {
        const path = at ? `${at}.${name}` : name;
        if (!Object.prototype.hasOwnProperty.call(value, name)) missing.push(path);
        else missing.push(...missingFields(sub, (value as Record<string, unknown>)[name], path));
      }
    }
    if (branch.items && Array.isArray(value)) {
      value.forEach((item, i) => missing.push(...missingFields(branch.items!, item, `${at}[${i}]`)));
    }
  }
  return [...new Set(missing)];
}
