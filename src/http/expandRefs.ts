/**
 * Replaces every internal `$ref` of the bundled document with its own copy of the target.
 *
 * Why: openapi-backend "decycles" each schema before compiling it, and that step turns any object
 * met twice (not only true cycles) into a `$ref` to its first occurrence. A dereferenced document
 * shares one object for every use of a component, so e.g. `required` arrays came out as `{$ref}` and
 * Ajv refused the schema. A tree with no shared objects compiles as written. The contract has no
 * recursive schemas; a cycle here is a contract bug and fails loudly.
 */
export function expandRefs<T>(document: T): T {
  return expandRefsIn(document, document);
}

/** `node` (a part of `document`, or built from parts of it) with every reference into `document` expanded. */
export function expandRefsIn<T>(node: T, document: unknown): T {
  const root = document;
  const resolve = (pointer: string): unknown => {
    if (!pointer.startsWith('#/')) throw new Error(`only internal references are supported, got ${pointer}`);
    return pointer
      .slice(2)
      .split('/')
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], root);
  };
  const expand = (node: unknown, trail: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => expand(item, trail));
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      if (trail.includes(ref)) throw new Error(`recursive reference ${[...trail, ref].join(' -> ')}`);
      const target = resolve(ref);
      if (target === undefined) throw new Error(`unresolvable reference ${ref}`);
      // 3.1 allows siblings next to $ref (description, summary); the target's own keywords win.
      const { $ref: _ignored, ...siblings } = node as Record<string, unknown>;
      return { ...(expand(siblings, trail) as object), ...(expand(target, [...trail, ref]) as object) };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) out[key] = expand(value, trail);
    return out;
  };
  return expand(node, []) as T;
}
