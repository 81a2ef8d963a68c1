/**
 * Every operation of the bundled contract, with a concrete path (path templates filled in) so tests
 * can reach each one. New operations are picked up automatically.
 */
import { loadDefinition, API_ROOT } from '../../src/http/contract';

export interface ContractOperation {
  operationId: string;
  method: string;
  template: string;
  /** Ready-to-call path under /api/v1 with any {param} filled with a syntactically valid value. */
  path: string;
  secured: boolean;
  /** The operation documents 402: the workspace license gates it (GET /account does not). */
  licensed: boolean;
  hasBody: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function contractOperations(): ContractOperation[] {
  const doc = loadDefinition() as unknown as {
    security?: unknown[];
    paths: Record<string, Record<string, { operationId: string; security?: unknown[]; requestBody?: unknown; responses?: Record<string, unknown> }>>;
  };
  const ops: ContractOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const security = op.security ?? doc.security ?? [];
      ops.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        path: API_ROOT + template.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000'),
        secured: security.some((s) => Object.keys(s as object).length > 0),
        licensed: Boolean(op.responses && '402' in op.responses),
        hasBody: Boolean(op.requestBody),
      });
    }
  }
  return ops;
}
