/**
 * The contract's operations as a lookup table built once at start, answering exactly what
 * openapi-backend's `router.matchOperation(req, true)` answers (the operation, a 404 or a 405) for
 * a path under the API root.
 *
 * openapi-backend's router filters every operation twice per request and compiles a RegExp per
 * templated path on each call (and sorts with lodash); the document never changes after init, so
 * the same decisions are made from precomputed tables: a Map for the exact paths, and the path
 * templates compiled once, already in the order openapi-backend tries them (longest literal part
 * first, stable). test/unit/routeTable.test.ts checks the table against openapi-backend's own
 * answer for every path and method of the contract.
 */
import type { OpenAPIBackend, Operation } from 'openapi-backend';

export type RouteMatch = Operation | 'not_found' | 'method_not_allowed';

interface Template {
  pattern: RegExp;
  /** Lowercase method → the first operation with it, in openapi-backend's order. */
  methods: Map<string, Operation>;
}

export class RouteTable {
  private readonly exact = new Map<string, Map<string, Operation>>();
  private readonly templates: Template[] = [];
  private readonly root: string;

  constructor(api: OpenAPIBackend) {
    this.root = api.apiRoot.replace(/\/$/, '');
    const operations = api.router.getOperations();
    for (const op of operations) {
      const methods = this.exact.get(op.path) ?? new Map<string, Operation>();
      if (!methods.has(op.method)) methods.set(op.method, op);
      this.exact.set(op.path, methods);
    }
    // openapi-backend orders the matching operations by the length of their literal part,
    // descending (lodash orderBy: stable), then takes the first with the method. Operations of one
    // path share the pattern and the length, so grouping them by path keeps that order.
    const specificity = (path: string) => path.replace(/\{.*?\}/g, '').length;
    const byPath = new Map<string, Template>();
    const ordered = [...operations].sort((a, b) => specificity(b.path) - specificity(a.path));
    for (const op of ordered) {
      let template = byPath.get(op.path);
      if (!template) {
        template = { pattern: new RegExp(pathTemplateToPattern(op.path)), methods: new Map() };
        byPath.set(op.path, template);
        this.templates.push(template);
      }
      if (!template.methods.has(op.method)) template.methods.set(op.method, op);
    }
  }

  /**
   * The operation for a method (as routed: HEAD already GET) and a path that is the API root or
   * under it, as openapi-backend decides it.
   */
  match(method: string, path: string): RouteMatch {
    const relative = this.relative(path);
    const verb = method.trim().toLowerCase();
    const exact = this.exact.get(relative)?.get(verb);
    if (exact) return exact;
    let matched = false;
    for (const template of this.templates) {
      if (!template.pattern.test(relative)) continue;
      const op = template.methods.get(verb);
      if (op) return op;
      matched = true;
    }
    return matched ? 'method_not_allowed' : 'not_found';
  }

  /** openapi-backend's normalizeRequest + normalizePath (trailing slashes are ignored). */
  private relative(path: string): string {
    let p = path.trim();
    if (!p.startsWith('/')) p = `/${p}`;
    const q = p.indexOf('?');
    if (q >= 0) p = p.slice(0, q);
    if (this.root !== '') {
      if (p === this.root) p = '/';
      else if (p.startsWith(`${this.root}/`)) p = p.slice(this.root.length) || '/';
    }
    while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
    return p;
  }
}

/** openapi-backend's own conversion: `{name}` is one path segment, the literal parts are escaped. */
function pathTemplateToPattern(path: string): string {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `^${path.replace(/\{[^}]+\}/g, '\0').split('\0').map(escape).join('[^/]+')}$`;
}
