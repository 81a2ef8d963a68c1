/**
 * What a partner integration does first: look up a person, search, bulk-enrich and create a
 * monitor, with the typed client. Every call prints one JSON line: operation, HTTP status, error
 * code (if any), request id and remaining rate limit.
 *
 *   ENRICH_API_KEY=ik_live_... [ENRICH_BASE_URL=http://127.0.0.1:3000/api/v1] npx tsx examples/quickstart.ts
 *
 * Documented error answers (404 not indexed, 451 withdrawn, 501 not served by this release, 400 for
 * an invalid webhook URL, ...) are reported and the walk goes on; the exit code is 0 when every
 * call got a documented answer, 1 when the key is refused or the server cannot be reached.
 */
import { createEnrichClient, rateLimitOf, requestIdOf, type ErrorResponse } from '../src/index.js';

const baseUrl = process.env.ENRICH_BASE_URL ?? 'http://127.0.0.1:3000/api/v1';
const apiKey = process.env.ENRICH_API_KEY;
if (!apiKey) {
  console.error('Set ENRICH_API_KEY (npx enrich key create --workspace ID --json prints one).');
  process.exit(2);
}
const enrich = createEnrichClient({ baseUrl, apiKey });

let refused = false;
function report(operation: string, result: { response: Response; error?: ErrorResponse | unknown }, detail: Record<string, unknown> = {}) {
  const error = result.error as ErrorResponse | undefined;
  if (result.response.status === 401 || result.response.status === 402) refused = true;
  console.log(
    JSON.stringify({
      operation,
      status: result.response.status,
      code: error?.code ?? null,
      error: error?.error ?? null,
      request_id: requestIdOf(result.response),
      rate_limit_remaining: rateLimitOf(result.response).remaining,
      ...detail,
    }),
  );
}

// Fallback identifiers for when search is not served (yet) or finds nobody.
let username = process.env.ENRICH_EXAMPLE_USERNAME ?? 'priya-raman-4b2a91';
let networkUrl = `https://www.linkedin.com/in/${username}`;

// 1. Search people: engineering directors in the US.
const search = await enrich.POST('/people/search', { body: { title: 'engineering director', location: ['US'], per_page: 5 } });
report('searchPeople', search, { total: search.data?.total ?? null });
const hits = search.data?.results ?? [];
if (hits[0]?.username) username = hits[0].username;
if (hits[0]?.network_url) networkUrl = hits[0].network_url;

// 2. Look up one person by username.
const person = await enrich.GET('/person', { params: { query: { username } } });
report('getPerson', person, { full_name: person.data?.data.full_name ?? null, fetched_at: person.data?.data.fetched_at ?? null });

// 3. Bulk-enrich up to 100 profiles in one call; each item has its own status.
const profiles = hits.length ? hits.map((h) => ({ username: h.username ?? undefined, id: h.id })) : [{ username }, { network_url: networkUrl }];
const bulk = await enrich.POST('/people/bulk-enrich', { body: { profiles } });
report('bulkEnrichPeople', bulk, bulk.data ? { matched: bulk.data.matched, unmatched: bulk.data.unmatched, failed: bulk.data.failed } : {});

// 4. Watch the person: a signed webhook arrives at webhook_url when the job or title changes.
const monitor = await enrich.POST('/monitors', {
  body: {
    type: 'person',
    subject_url: networkUrl,
    webhook_url: process.env.ENRICH_WEBHOOK_URL ?? 'https://hooks.example.org/enrich',
    label: 'quickstart',
    events: ['person.job_changed', 'person.title_changed'],
  },
});
report('createMonitor', monitor, { monitor_id: monitor.data?.monitor.id ?? null });

process.exit(refused ? 1 : 0);
