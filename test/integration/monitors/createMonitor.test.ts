import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { companyRecord, personRecord, storeCompanies, storePersons } from '../../helpers/lakeRecords';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

const h = useHarness({ workspaceRateLimit: 10_000, resolveHost: fakeResolver });
const create = (body: object, key = h.key()) => h.post('/api/v1/monitors', body, key);

const watchers = async (table: 'person_refresh' | 'company_refresh', key: string, id: string) =>
  (await h.knex(table).where(key, id).first())?.watchers as number;

describe('POST /monitors', () => {
  it('creates a person monitor: 201, canonical subject URL, all person events when none are chosen, no secret', async () => {
    const res = await create(
      monitorBody({ subject_url: 'http://uk.linkedin.com/in/Priya-Raman-4B2A91/?trk=x', label: 'Priya', webhook_url: 'https://hooks.example.test/enrich?x=1' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.monitor).toMatchObject({
      type: 'person',
      subject_url: 'https://www.linkedin.com/in/priya-raman-4b2a91',
      label: 'Priya',
      webhook_url: 'https://hooks.example.test/enrich?x=1',
      events: ['person.job_changed', 'person.title_changed', 'person.location_changed'],
      active: true,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/whsec_|secret/i);
    const stored = await h.knex('monitors').where('id', res.body.monitor.id).first();
    expect(stored.secret_ciphertext).toMatch(/^v1\./);
    expect(stored.secret_ciphertext).not.toContain('whsec_');
  });

  it('a company monitor keeps the chosen events in the contract order', async () => {
    const res = await create(
      monitorBody({
        type: 'company',
        subject_url: 'https://www.linkedin.com/company/northwind-analytics/about/',
        events: ['company.industry_changed', 'company.headcount_changed'],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.monitor.subject_url).toBe('https://www.linkedin.com/company/northwind-analytics');
    expect(res.body.monitor.events).toEqual(['company.headcount_changed', 'company.industry_changed']);
    expect(res.body.monitor.label).toBeNull();
  });

  it.each([
    ['a right-to-left override (U+202E)', 'invoice\u202Egpj.exe'],
    ['a first-strong isolate (U+2068)', 'a\u2068b'],
    ['a control character', 'Evil\u001b[31mCorp'],
    ['a line break', 'line\nbreak'],
  ])('a label with %s is a 400 VALIDATION_ERROR naming the label, as workspace and member names', async (_, label) => {
    const res = await create(monitorBody({ label }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toMatch(/label/);
    expect(res.body.error).toMatch(/bidirectional/);
  });

  it.each([
    ['a company URL on a person monitor', { subject_url: 'https://www.linkedin.com/company/northwind' }, 'subject_url'],
    ['a person URL on a company monitor', { type: 'company', subject_url: 'https://www.linkedin.com/in/priya' }, 'subject_url'],
    ['a URL of another site', { subject_url: 'https://example.com/in/priya' }, 'subject_url'],
    ['a company event on a person monitor', { events: ['person.job_changed', 'company.name_changed'] }, 'company.name_changed'],
    ['an unknown event', { events: ['person.hired'] }, 'events'],
    ['an http webhook', { webhook_url: 'http://hooks.example.test/enrich' }, 'webhook_url'],
    ['an unknown field', { secret: 'whsec_x' }, 'secret'],
  ])('400 for %s', async (_what, overrides, mentioned) => {
    const res = await create(monitorBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toContain(mentioned);
  });

  it.each([
    ['https://localhost/hook', 'loopback'],
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://0x7f000001/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'],
    ['https://0177.0.0.1/hook', 'loopback'],
    ['https://127.1/hook', 'loopback'],
    ['https://10.0.0.8/hook', 'private'],
    ['https://172.20.1.1/hook', 'private'],
    ['https://192.168.0.10/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'link-local'],
    ['https://100.100.1.1/hook', 'carrier-grade NAT'],
    ['https://0.0.0.0/hook', 'unspecified'],
    ['https://255.255.255.255/hook', 'broadcast'],
    ['https://224.0.0.251/hook', 'multicast'],
    ['https://192.0.2.1/hook', 'reserved'],
    ['https://198.51.100.1/hook', 'reserved'],
    ['https://203.0.113.1/hook', 'reserved'],
    ['https://198.18.0.1/hook', 'reserved'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[fe80::1]/hook', 'link-local'],
    ['https://[fd00::1]/hook', 'unique-local'],
    ['https://[64:ff9b::7f00:1]/hook', 'NAT64'],
    ['https://[2002:7f00:1::]/hook', '6to4'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'Teredo'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'link-local'],
    ['https://metadata.example.test/hook', 'resolves to a private or internal address'],
    ['https://mapped.example.test/hook', 'link-local'],
    ['https://mixed.example.test/hook', 'private'],
    ['https://cgnat.example.test/hook', 'carrier-grade NAT'],
    ['https://ula.example.test/hook', 'unique-local'],
    ['https://nat64.example.test/hook', 'NAT64'],
    ['https://does-not-exist.invalid/hook', 'does not resolve'],
    ['https://user:pass@hooks.example.test/hook', 'user name or password'],
  ])('400 VALIDATION_ERROR for the webhook_url %s (%s)', async (url, why) => {
    const res = await create(monitorBody({ webhook_url: url }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toContain('webhook_url');
    expect(res.body.error).toContain(why);
  });

  it('a receiver on the developer\'s machine or network: the refusal says what to do instead (enrich listen; the loopback setting)', async () => {
    // The report's case: a local HTTPS receiver by name (resolved by the system resolver).
    const local = await create(monitorBody({ webhook_url: 'https://localhost:8443/hook' }));
    expect([local.status, local.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(local.body.error).toContain('the host localhost resolves to a private or internal address');
    expect(local.body.error).toContain('enrich listen --forward-to');
    expect(local.body.error).toContain('WEBHOOKS_ALLOW_LOOPBACK=1');
    // A private address: only `enrich listen` helps (the loopback setting allows loopback alone).
    const lan = await create(monitorBody({ webhook_url: 'https://192.168.1.20:8443/hook' }));
    expect([lan.status, lan.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(lan.body.error).toContain('enrich listen --forward-to');
    expect(lan.body.error).not.toContain('WEBHOOKS_ALLOW_LOOPBACK');
  });

  it('accepts a host whose answers are all public (IPv4 and IPv6)', async () => {
    expect((await create(monitorBody({ webhook_url: 'https://hooks6.example.test/x' }))).status).toBe(201);
    expect((await create(monitorBody({ webhook_url: 'https://93.184.215.14:8443/x' }))).status).toBe(201);
  });

  it('451 for a withdrawn subject, by any URL form of its slug', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    await suppress(h.knex, 'person', { by: 'id', value: person.id });
    const res = await create(monitorBody({ subject_url: `https://linkedin.com/in/${person.username.toUpperCase()}/` }));
    expect(res.status).toBe(451);
    expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
  });

  it('marks an indexed subject watched; the count follows every monitor on it', async () => {
    const person = personRecord();
    const company = companyRecord();
    await storePersons(h.knex, person);
    await storeCompanies(h.knex, company);
    const other = await h.workspace({ rateLimit: 100 });
    const a = await create(monitorBody({ subject_url: person.network_url }));
    const b = await create(monitorBody({ subject_url: person.network_url }), other.key);
    expect(await watchers('person_refresh', 'person_id', person.id)).toBe(2);
    const c = await create(monitorBody({ type: 'company', subject_url: company.network_url }));
    expect(await watchers('company_refresh', 'company_id', company.id)).toBe(1);

    expect((await h.send(h.http.delete(`/api/v1/monitors/${a.body.monitor.id}`).set('Authorization', `Bearer ${h.key()}`))).status).toBe(200);
    expect(await watchers('person_refresh', 'person_id', person.id)).toBe(1);
    expect((await h.send(h.http.delete(`/api/v1/monitors?id=${b.body.monitor.id}`).set('Authorization', `Bearer ${other.key}`))).status).toBe(200);
    expect(await watchers('person_refresh', 'person_id', person.id)).toBe(0);
    expect((await h.send(h.http.delete(`/api/v1/monitors/${c.body.monitor.id}`).set('Authorization', `Bearer ${h.key()}`))).status).toBe(200);
    expect(await watchers('company_refresh', 'company_id', company.id)).toBe(0);
  });

  it('1000 monitors per workspace, then 409 MONITOR_LIMIT_REACHED, also under concurrent creation', async () => {
    const { workspaceId, key } = await h.workspace({ rateLimit: 1000 });
    const template = await h.knex('monitors').first();
    const rows = Array.from({ length: 995 }, (_, i) => ({
      workspace_id: workspaceId,
      type: 'person',
      subject_slug: `bulk-${i}`,
      webhook_url: 'https://hooks.example.test/enrich',
      events: ['person.job_changed'],
      secret_ciphertext: template.secret_ciphertext,
    }));
    await h.knex.batchInsert('monitors', rows, 500);
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(monitorBody(), key)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const refused = answers.find((r) => r.status === 409)!;
    expect(refused.body.code).toBe('MONITOR_LIMIT_REACHED');
    expect(Number((await h.knex('monitors').where('workspace_id', workspaceId).count('* as n'))[0].n)).toBe(1000);

    // Deleting one makes room for one.
    const one = answers.find((r) => r.status === 201)!;
    await h.send(h.http.delete(`/api/v1/monitors/${one.body.monitor.id}`).set('Authorization', `Bearer ${key}`));
    expect((await create(monitorBody(), key)).status).toBe(201);
    expect((await create(monitorBody(), key)).status).toBe(409);
  });
});
