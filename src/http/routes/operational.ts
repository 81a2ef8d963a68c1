/**
 * Routes outside the contract (no /api/v1 prefix, no key): Prometheus metrics, the Redoc reference
 * at /docs and the bundled contract at /openapi.yaml and /openapi.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { PROJECT_ROOT } from '../../paths';
import { AppError } from '../../domain/errors';
import type { Metrics } from '../../observability/metrics';
import type { RequestState } from '../state';

const GENERATED = path.join(PROJECT_ROOT, 'generated');
/** Built by `npm run docs` (scripts/build-docs.ts); not committed. */
export const DOCS_HTML = path.join(GENERATED, 'docs.html');

export function operationalRoutes(metrics: Metrics): Router<RequestState> {
  const router = new Router<RequestState>();
  router.get('/metrics', async (ctx) => {
    ctx.state.raw = true;
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  // The documents are read once; the bundle does not change while the server runs.
  const yamlDoc = fs.readFileSync(path.join(GENERATED, 'openapi.yaml'));
  const jsonDoc = fs.readFileSync(path.join(GENERATED, 'openapi.json'));
  router.get('/openapi.yaml', (ctx) => {
    ctx.state.raw = true;
    ctx.type = 'application/yaml; charset=utf-8';
    ctx.body = yamlDoc;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.state.raw = true;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = jsonDoc;
  });
  router.get('/docs', async (ctx) => {
    let html: Buffer;
    try {
      html = await fs.promises.readFile(DOCS_HTML);
    } catch {
      throw new AppError('NOT_FOUND', 'The reference documentation has not been built: run `npm run docs`.');
    }
    ctx.state.raw = true;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  return router;
}
