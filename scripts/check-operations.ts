/**
 * Fails unless the server registers exactly one handler per operationId of the bundled document
 * (webhook operations are sent, not served, and are excluded).
 */
import { HTTP_METHODS, loadDefinition } from '../src/http/contract';
import { operationHandlers } from '../src/http/handlers';
import { loadConfig } from '../src/config';

const definition = loadDefinition() as { paths?: Record<string, Record<string, { operationId?: string }>> };
const contractIds: string[] = [];
for (const [p, item] of Object.entries(definition.paths ?? {})) {
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (!op) continue;
    if (!op.operationId) {
      process.stderr.write(`${method.toUpperCase()} ${p} has no operationId\n`);
      process.exit(1);
    }
    contractIds.push(op.operationId);
  }
}
const handlerIds = Object.keys(operationHandlers({ knex: undefined as never, reads: undefined as never, config: loadConfig({}), live: undefined as never, monitors: undefined as never, limits: undefined as never }));
const missing = contractIds.filter((id) => !handlerIds.includes(id));
const extra = handlerIds.filter((id) => !contractIds.includes(id));
const duplicated = contractIds.filter((id, i) => contractIds.indexOf(id) !== i);
if (missing.length || extra.length || duplicated.length) {
  if (missing.length) process.stderr.write(`operations without a handler: ${missing.join(', ')}\n`);
  if (extra.length) process.stderr.write(`handlers without an operation: ${extra.join(', ')}\n`);
  if (duplicated.length) process.stderr.write(`duplicated operationIds: ${duplicated.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`operations: ${contractIds.length} operationIds, ${handlerIds.length} handlers, one to one\n`);
