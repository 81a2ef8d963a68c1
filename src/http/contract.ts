/**
 * The contract at run time: the bundled OpenAPI document in generated/ drives routing and request
 * validation through openapi-backend. Each operation's request validators are compiled once, at its
 * first request.
 */
import fs from 'node:fs';
import path from 'node:path';
import addFormats from 'ajv-formats';
import type Ajv from 'ajv';
import { OpenAPIBackend, OpenAPIValidator, type Document, type Handler } from 'openapi-backend';
import { PROJECT_ROOT } from '../paths';
import { expandRefs, expandRefsIn } from './expandRefs';

export const API_ROOT = '/api/v1';
const BUNDLED_SPEC_PATH = path.join(PROJECT_ROOT, 'generated/openapi.json');

let cachedDefinition: Document | undefined;

/** The bundled document as committed (with its internal $refs). */
export function loadDefinition(): Document {
  cachedDefinition ??= JSON.parse(fs.readFileSync(BUNDLED_SPEC_PATH, 'utf8')) as Document;
  return cachedDefinition;
}

/** The bundled document with every reference expanded in place, as openapi-backend needs it. */
export function loadExpandedDefinition(): Document {
  return expandRefs(loadDefinition());
}

/** The keys of an OpenAPI path item that name operations (the others: parameters, summary, ...). */
export const HTTP_METHODS: ReadonlySet<string> = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * What the server routes and validates requests by: the bundled document's paths, their parameters
 * and request bodies with every reference expanded in place (as openapi-backend needs them), and of
 * each operation's responses only the documented statuses (authenticate.ts reads whether an
 * operation documents a 402). Response bodies and headers, webhooks and components stay out: the
 * server never validates a response (the tests do, test/helpers/contractValidator.ts), and expanded
 * they were nine tenths of a 3.9 MB document that every app built and openapi-backend walked twice
 * at start.
 */
export function loadServerDefinition(): Document {
  const doc = loadDefinition() as Document & { paths: Record<string, Record<string, unknown>> };
  const paths = Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([key, value]) => {
          if (!HTTP_METHODS.has(key)) return [key, value];
          const { responses, ...operation } = value as { responses?: Record<string, unknown> };
          return [key, { ...operation, responses: Object.fromEntries(Object.keys(responses ?? {}).map((status) => [status, { description: status }])) }];
        }),
      ),
    ]),
  );
  const { openapi, info, servers, security } = doc as Document & { servers?: unknown; security?: unknown };
  return {
    openapi,
    info,
    ...(servers ? { servers } : {}),
    ...(security ? { security } : {}),
    paths: expandRefsIn(paths, doc),
    components: { securitySchemes: doc.components?.securitySchemes ?? {} },
  } as Document;
}

/**
 * openapi-backend checks the document against the OpenAPI 3.0 meta-schema only (openapi-schema-validator
 * has no 3.1 schema), which rejects valid 3.1 documents (`webhooks`, type arrays). The document is
 * validated as 3.1 by `redocly lint` in CI before it is bundled, so that check is skipped here; strict
 * mode's other guarantees (unknown handlers, unhandled operations) stay on.
 */
export class Contract31Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.document;
  }
}

export async function createContract(handlers: Record<string, Handler>): Promise<OpenAPIBackend> {
  // validateSchema off: openapi-backend makes an Ajv instance per operation, and each compiled
  // Ajv's meta-schema first to check the operation's schemas against it (most of a compile's time);
  // the contract is checked as a whole by `redocly lint` (npm run contract:lint, in npm test).
  const ajvOpts = { allErrors: false, strict: false, validateSchema: false };
  const customizeAjv = (ajv: Ajv) => {
    addFormats(ajv);
    return ajv;
  };
  const api = new Contract31Backend({
    definition: loadServerDefinition(),
    apiRoot: API_ROOT,
    strict: true,
    quick: false,
    // The validator is built below: openapi-backend's own would also compile a response and a
    // response-header validator for every operation (2.7 s of its 3.2 s init on these machines, paid
    // at every start and by every test harness), which the server never uses: it validates
    // requests; the tests validate responses with their own validator.
    validate: false,
    handlers,
  });
  await api.init();
  const validator = new OpenAPIValidator({
    definition: api.definition,
    router: api.router,
    ajvOpts,
    customizeAjv,
    coerceTypes: true,
    lazyCompileValidators: true,
  });
  // Each operation's request validators are compiled at its first request (a few ms, once per
  // process), not all at start: compiling all 44 took 250-400 ms, paid by every `enrich serve` and
  // by every test file's app (about 100 of them per run), most of which call a handful of
  // operations. A schema Ajv cannot compile still fails its operation's tests
  // (test/contract/operationTests.test.ts: every operation has its test file).
  api.validator = validator;
  api.validate = true;
  memoizeOperations(api);
  return api;
}

/**
 * openapi-backend's router rebuilds its flat operation list (a lodash chain over every path) on each
 * matchOperation call, which was most of the per-request cost (about 120 µs of 365 µs per request,
 * twice per request). The document never changes after init, so the list is computed once.
 */
function memoizeOperations(api: OpenAPIBackend): void {
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
}
