/**
 * Properties of the contract itself that lint rules do not express: the specification's records
 * field by field, the error codes the server can produce, examples on every operation, webhooks.
 */
import { ERROR_STATUS } from '../../src/domain/errors';
import { loadExpandedDefinition } from '../../src/http/contract';
import { NOT_IMPLEMENTED_OPERATIONS } from '../../src/http/handlers';
import { contractOperations } from '../helpers/operations';

type Schema = { properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; type?: unknown; anyOf?: Schema[]; items?: Schema };
const doc = loadExpandedDefinition() as unknown as {
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema; examples?: Record<string, { summary?: string }> }> }> }>>;
  webhooks: Record<string, { post: { operationId: string; requestBody: { content: Record<string, { schema: Schema }> } } }>;
  components: { schemas: Record<string, Schema> };
};
const schemas = doc.components.schemas;

/** Field lists copied from the interface specification's tables. */
const SPEC_FIELDS: Record<string, string[]> = {
  PersonResult: [
    'id', 'full_name', 'first_name', 'last_name', 'username', 'current_title', 'current_company', 'current_company_id',
    'current_company_username', 'current_company_industry', 'current_company_staff_range', 'seniority', 'education_schools',
    'past_companies', 'headline', 'summary', 'geo_city', 'geo_country', 'geo_country_code', 'network_url', 'profile_picture_url',
    'is_premium', 'is_top_voice', 'is_creator', 'fetched_at', 'skills_count', 'certifications_count', 'positions_count',
    'educations_count', 'skills_preview', 'positions', 'educations', 'skills', 'certifications', 'honors', 'publications',
    'volunteering', 'languages', 'featured', 'courses', 'is_open_to_work', 'is_hiring', 'network_id', 'network_urn',
    'background_image_url', 'primary_locale_country', 'primary_locale_language', 'projects',
  ],
  Position: [
    'title', 'companyName', 'companyId', 'companyUsername', 'companyIndustry', 'location', 'companyURL', 'companyLogo',
    'companyStaffCountRange', 'locationType', 'employmentType', 'isCurrent', 'startYear', 'startMonth', 'endYear', 'endMonth', 'description',
  ],
  Education: [
    'schoolName', 'schoolId', 'degree', 'fieldOfStudy', 'grade', 'activities', 'description', 'url', 'startYear', 'startMonth',
    'endYear', 'endMonth', 'logo',
  ],
  Skill: ['name', 'endorsementsCount', 'passedSkillAssessment'],
  Certification: ['name', 'authority', 'company', 'companyId', 'credentialId', 'credentialUrl', 'start', 'end', 'timePeriod'],
  Honor: ['title', 'issuer', 'issuerLogo', 'issuedOn', 'description'],
  Publication: ['name', 'publisher', 'url', 'publishedOn'],
  Volunteering: ['title', 'company', 'companyId', 'companyUrl', 'companyLogo', 'description', 'start', 'end'],
  Language: ['name', 'proficiency'],
  Featured: ['title', 'url', 'providerName', 'previewImage'],
  Course: ['name', 'number'],
  DateParts: ['year', 'month', 'day'],
  CompanyResult: [
    'id', 'company_id', 'name', 'tagline', 'description', 'website', 'company_type', 'network_url', 'founded_year', 'staff_count',
    'follower_count', 'hq_city', 'hq_country', 'hq_country_code', 'hq_geographic_area', 'hq_postal_code', 'hq_line1', 'hq_line2',
    'hq_description', 'phone', 'is_verified', 'page_verification', 'industries', 'specialities', 'locations', 'logo_url',
    'cover_image_url', 'username', 'crunchbase_url', 'call_to_action_url', 'call_to_action', 'is_claimable', 'affiliated_pages',
    'featured_customers', 'fetched_at',
  ],
  Location: ['city', 'description', 'line1', 'line2', 'country', 'countryCode', 'postalCode', 'geographicArea', 'isHeadquarter'],
  Monitor: ['id', 'type', 'subject_url', 'label', 'webhook_url', 'events', 'active', 'created_at'],
  RateLimitWindow: ['limit', 'remaining', 'reset_at'],
  Metadata: ['request_id', 'execution_ms'],
  ErrorResponse: ['error', 'code', 'quotas', 'metadata'],
};

const allowsNull = (s: Schema): boolean =>
  s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || Boolean(s.anyOf?.some(allowsNull)) || s.type === undefined;

describe('the contract document', () => {
  it('is version 1.0.0 served under /api/v1', () => {
    expect(doc.info.version).toBe('1.0.0');
    for (const server of doc.servers) expect(server.url).toMatch(/\/api\/v1$/);
  });

  it.each(Object.entries(SPEC_FIELDS))('%s has exactly the specification fields, all required', (name, fields) => {
    const schema = schemas[name];
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual([...fields].sort());
    expect([...(schema.required ?? [])].sort()).toEqual([...fields].sort());
  });

  it('marks nullable exactly what the specification says may be null', () => {
    const p = schemas.PersonResult.properties!;
    for (const f of ['languages', 'featured', 'courses', 'is_open_to_work', 'is_hiring', 'background_image_url', 'projects']) {
      expect(allowsNull(p[f])).toBe(true);
    }
    for (const f of ['id', 'positions', 'skills', 'fetched_at', 'network_url']) expect(allowsNull(p[f])).toBe(false);
    const c = schemas.CompanyResult.properties!;
    for (const f of ['hq_country', 'hq_line2', 'hq_description', 'phone', 'is_verified', 'page_verification', 'cover_image_url',
      'crunchbase_url', 'call_to_action_url', 'call_to_action', 'is_claimable', 'affiliated_pages', 'featured_customers']) {
      expect(allowsNull(c[f])).toBe(true);
    }
    const pos = schemas.Position.properties!;
    for (const f of ['companyURL', 'companyLogo', 'locationType', 'employmentType', 'endYear', 'endMonth', 'description']) {
      expect(allowsNull(pos[f])).toBe(true);
    }
    for (const f of ['title', 'companyName', 'isCurrent', 'startYear']) expect(allowsNull(pos[f])).toBe(false);
    expect(schemas.Seniority.enum).toEqual(['c-level', 'vp', 'director', 'manager']);
  });

  it('lists every error code the server can answer, and no other', () => {
    expect([...(schemas.ErrorCode.enum as string[])].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it('describes every operation of the specification', () => {
    const ids = contractOperations().map((o) => `${o.method} ${o.template}`).sort();
    expect(ids).toEqual(
      [
        'GET /health', 'GET /health/ready', 'GET /account', 'GET /person', 'GET /person/check', 'GET /person/realtime', 'GET /person/similar',
        'GET /person/colleagues', 'GET /person/job-changes', 'POST /people/search', 'POST /people/bulk-enrich', 'POST /people/bulk',
        'GET /institution/alumni', 'GET /company', 'GET /company/check', 'GET /company/realtime', 'POST /companies/search',
        'GET /company/current-employees', 'GET /company/past-employees', 'GET /company/headcount-by-seniority',
        'GET /company/hiring-signals', 'GET /company/decision-makers', 'POST /monitors', 'GET /monitors', 'DELETE /monitors',
        // A record's history (issue 23)
        'GET /person/history', 'GET /company/history', 'GET /events',
        'GET /monitors/{id}', 'DELETE /monitors/{id}',
        // Workspace (the dashboard's operations, issue 15)
        'POST /workspace/sessions', 'GET /workspace/sessions/current', 'DELETE /workspace/sessions/current', 'GET /workspace/keys',
        'POST /workspace/keys', 'DELETE /workspace/keys/{key_id}', 'GET /workspace/members', 'PUT /workspace/members/{member_id}/allowance',
        'GET /workspace/usage', 'POST /workspace/monitors/{id}/secret', 'POST /workspace/monitors/{id}/secret/rotate',
        // Beyond the specification, for integrators (issue 13): the delivery log, a test event, redelivery.
        'GET /monitors/{id}/deliveries', 'POST /monitors/{id}/test', 'POST /monitors/{id}/deliveries/{delivery_id}/redeliver',
        // Matching (issue 33): the rows people have, without an identifier.
        'POST /person/match', 'POST /company/match', 'POST /people/bulk-match',
        // List jobs (issue 34)
        'POST /jobs', 'GET /jobs', 'GET /jobs/{id}', 'DELETE /jobs/{id}', 'POST /jobs/{id}/cancel', 'GET /jobs/{id}/results',
        'GET /jobs/{id}/deliveries',
      ].sort(),
    );
  });

  it.each(contractOperations().map((o) => [o.operationId, o] as const))('%s: named examples, errors in the error shape, 501 only while unimplemented', (id, op) => {
    const responses = doc.paths[op.template][op.method.toLowerCase()].responses;
    const success = Object.entries(responses).find(([status]) => status.startsWith('2'))!;
    // JSON, or the streamed media types of a list job's results (issue 34).
    const content = success[1].content!;
    const examples = (content['application/json'] ?? content['text/csv'] ?? Object.values(content)[0]!).examples ?? {};
    expect(Object.keys(examples).length).toBeGreaterThanOrEqual(1);
    for (const example of Object.values(examples)) expect(example.summary).toBeTruthy();
    for (const [status, response] of Object.entries(responses)) {
      // Errors are 4xx and 5xx; a 304 Not Modified (issue 23's conditional lookups) has no body.
      if (!/^[45]/.test(status)) continue;
      const schema = response.content!['application/json'].schema;
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(['code', 'error', 'metadata', 'quotas']);
    }
    expect(Boolean(responses['501'])).toBe((NOT_IMPLEMENTED_OPERATIONS as readonly string[]).includes(id));
    expect(Boolean(responses['429'])).toBe(true);
  });

  it('describes the webhook events with Standard Webhooks headers and the specified job_changed diff', () => {
    const events = Object.keys(doc.webhooks).sort();
    expect(events).toEqual(
      ['company.headcount_changed', 'company.hq_changed', 'company.industry_changed', 'company.name_changed',
        'job.completed', 'job.failed', 'monitor.test', 'person.job_changed', 'person.location_changed', 'person.title_changed'],
    );
    const jobChanged = doc.webhooks['person.job_changed'].post.requestBody.content['application/json'].schema;
    // The specification's five fields, and the subject of the change (issue 23).
    expect(jobChanged.required?.sort()).toEqual(['diff', 'event', 'id', 'monitor_id', 'subject', 'timestamp']);
    expect(Object.keys(jobChanged.properties!.diff.properties!).sort()).toEqual(
      ['new_company', 'new_company_id', 'new_title', 'old_company', 'old_company_id', 'old_title'],
    );
    const params = (doc.webhooks['person.job_changed'].post as unknown as { parameters: { name: string; in: string }[] }).parameters;
    expect(params.map((p) => `${p.in}:${p.name.toLowerCase()}`).sort()).toEqual(
      ['header:webhook-id', 'header:webhook-signature', 'header:webhook-timestamp'],
    );
  });
});
