/**
 * An export: every person a search matches, walked page by page with `next_cursor` (no page cap),
 * one JSON line per person (id, full_name), then a summary line {pages, results, total,
 * total_relation}.
 *
 *   ENRICH_API_KEY=ik_live_... [ENRICH_BASE_URL=...] [ENRICH_EXPORT_FILTERS='{"location":["US"]}'] \
 *     [ENRICH_EXPORT_PER_PAGE=100] npx tsx examples/export.ts
 *
 * Exit code 0 when the walk reached the last page, 1 on an error answer (printed as a last line
 * {status, code, request_id}).
 */
import { EnrichApiError, createEnrichClient, pages, type Schemas } from '../src/index.js';

const apiKey = process.env.ENRICH_API_KEY;
if (!apiKey) {
  console.error('Set ENRICH_API_KEY (npx enrich key create --workspace ID --json prints one).');
  process.exit(2);
}
const enrich = createEnrichClient({ baseUrl: process.env.ENRICH_BASE_URL, apiKey });
const filters = JSON.parse(process.env.ENRICH_EXPORT_FILTERS ?? '{}') as Schemas['SearchPeopleRequest'];
const perPage = Number(process.env.ENRICH_EXPORT_PER_PAGE ?? 100);

let count = 0;
let pageCount = 0;
let last: Schemas['PersonSearchResponse'] | undefined;
try {
  for await (const page of pages((cursor) => enrich.POST('/people/search', { body: { ...filters, per_page: perPage, cursor } }))) {
    pageCount++;
    last ??= page;
    for (const hit of page.results) {
      count++;
      console.log(JSON.stringify({ id: hit.id, full_name: hit.full_name }));
    }
  }
  console.log(JSON.stringify({ pages: pageCount, results: count, total: last?.total ?? 0, total_relation: last?.total_relation ?? 'eq' }));
} catch (err) {
  if (!(err instanceof EnrichApiError)) throw err;
  console.log(JSON.stringify({ status: err.status, code: err.code, request_id: err.requestId }));
  process.exit(1);
}
