/**
 * The workspace dashboard in a real browser: Debian's Chromium driven by playwright-core, against
 * the real server (real PostgreSQL, the live-source simulator on loopback), with the page's CSP
 * enforced. Walks every page, saves a screenshot of each step under test-output/dashboard/, and runs
 * axe-core on every page (no serious or critical violation).
 *
 * Chromium: /usr/bin/chromium (apt-get install -y chromium) or CHROMIUM_PATH. Without it the file
 * skips locally and says so; with ENRICH_REQUIRE_BROWSER=1 (set by .ci/run) it fails instead.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { signingSecrets } from '../../src/domain/monitors/monitors';
import { loadServerKeys } from '../../src/domain/webhooks/secrets';
import { createSignInLink } from '../../src/domain/workspaces/sessions';
import { createWorld, defaultAsOf } from '../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../src/world/simulator/server';
import { Simulator } from '../../src/world/simulator/simulator';
import { DASHBOARD_CSP } from '../../src/http/routes/dashboard';
import { createHarness, type Harness } from '../helpers/harness';
import { isolatedDatabase } from '../helpers/identifierPool';
import { personRecord, storePersons } from '../helpers/lakeRecords';
import { closeSources, eventually, httpSource, loadWorld } from '../helpers/live';
import { Webhook } from 'standardwebhooks';
import { deliveryWorker, Receiver, TestResolver, webhookTestConfig } from '../helpers/webhooks';
import type { DeliveryWorker } from '../../src/jobs/deliveryWorker';
import { ListJobWorker } from '../../src/jobs/listJobWorker';
import { createLogger } from '../../src/logger';

// Browser globals inside page.evaluate callbacks (the DOM library is not in the test program's types).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare const localStorage: any;
declare const sessionStorage: any;
declare const navigator: any;

const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.ENRICH_REQUIRE_BROWSER === '1') throw new Error(`dashboard test: no Chromium at ${CHROMIUM}, and ENRICH_REQUIRE_BROWSER=1 forbids skipping`);
  process.stdout.write(`dashboard test: SKIPPING: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)\n`);
}
const SHOTS = path.join(ROOT, 'test-output', 'dashboard');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const WORLD = { persons: 20, companies: 4, seed: 9151, asOf: defaultAsOf() };
const LOADED = 10;
const world = createWorld(WORLD);
const XSS = {
  username: `xss-person-${Date.now().toString(36)}`,
  full_name: '<script>window.__xss = 1</script>Eve Mallory',
  headline: '<img src=x onerror="window.__xss = 2">Head of <b>Growth</b>',
  summary: '"><svg onload="window.__xss = 3"></svg><iframe src="javascript:window.__xss = 4"></iframe>',
};

let db: { url: string; drop(): Promise<void> };
let h: Harness;
let sim: Simulator;
let simServer: SimulatorServer;
let server: http.Server;
let base: string;
let owner: { workspaceId: string; key: string };
let browser: BrowserContext | undefined;
const resolver = new TestResolver();
const receiver = new Receiver();
let worker: DeliveryWorker | undefined;
let listJobs: ListJobWorker | undefined;
let page: Page;
let userDataDir: string;
const external: string[] = [];
const pageErrors: string[] = [];
const cspViolations: string[] = [];

const api = (p: string, key?: string) => fetch(`${base}/api/v1${p}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core in the page (evaluated through the DevTools protocol, so the page's CSP still applies to the page itself). */
async function axe(name: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result: { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] } = await window.axe.run(document, {
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  fs.writeFileSync(path.join(SHOTS, `${name}.axe.json`), JSON.stringify(violations, null, 2));
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

/** Nothing secret may sit in the URL, localStorage or sessionStorage. */
async function assertNothingStored(secret: string): Promise<void> {
  expect(page.url()).not.toContain(secret);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(stored).not.toContain(secret);
  expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
}

async function signInByLink(workspaceId: string, member?: string): Promise<void> {
  const link = await createSignInLink(h.knex, { workspaceId, member });
  await page.goto(`${base}/dashboard/#token=${link.token}`);
  await page.waitForSelector('[data-testid="who"]');
  expect(page.url()).not.toContain(link.token);
}

const describeBrowser = haveChromium ? describe : describe.skip;

/** A host name Chromium resolves to 127.0.0.1 (launch flag below); `.test` is reserved (RFC 2606). */
const PLAIN_HOST = 'dashboard.test';

/** The requests the server answers from now on whose path starts with `prefix`: headers received, status sent. */
function answersTo(prefix: string) {
  const list: { url: string; method: string; status: number; headers: http.IncomingHttpHeaders }[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url?.startsWith(prefix)) res.once('finish', () => list.push({ url: req.url!, method: req.method!, status: res.statusCode, headers: req.headers }));
  };
  server.on('request', listener);
  return { list, stop: () => server.off('request', listener) };
}

/** The workspace's realtime calls this period, as the API reports them (with the owner's key). */
async function realtimeCalls(key: string): Promise<number> {
  const res = await api('/account', key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { usage: { realtime_calls: number } } }).data.usage.realtime_calls;
}

describeBrowser('the workspace dashboard in Chromium', () => {
  beforeAll(async () => {
    // What `npm run build:dashboard` runs (npm start and npm test run it too).
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'dashboard/vite.config.mts'], { cwd: ROOT, stdio: 'ignore' });
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    db = await isolatedDatabase('dashboard');
    sim = new Simulator({ world: WORLD, speed: 0 });
    simServer = await startSimulatorServer(sim);
    // Webhooks to the HTTPS receiver on loopback (its self-signed certificate trusted by the delivery
    // worker), the one setting that allows a loopback receiver on: development and tests only.
    await receiver.start();
    h = await createHarness({
      databaseUrl: db.url,
      liveSource: httpSource(simServer.protocolUrl),
      resolveHost: resolver.resolve,
      config: { ...webhookTestConfig(), usageFlushMs: 600_000 },
    });
    worker = deliveryWorker(h.knex, { resolver, metrics: h.app.metrics });
    worker.start();
    listJobs = new ListJobWorker({ db: h.knex, config: { ...h.config.jobs, pollMs: 50 }, logger: createLogger('silent') });
    listJobs.start();
    await loadWorld(h.knex, world, LOADED);
    await storePersons(h.knex, personRecord(XSS));
    owner = await h.workspace({ rateLimit: 1000 });
    server = http.createServer(h.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-dashboard-'));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      // The machine's network is closed: without these flags Chromium hangs on background calls.
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
        // A plain-http host name for this server (not "potentially trustworthy", unlike 127.0.0.1:
        // Chromium sends it no Sec-Fetch-* headers), for the dashboard's session check by Referer.
        `--host-resolver-rules=MAP ${PLAIN_HOST} 127.0.0.1`,
      ],
      timeout: 60_000,
    });
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(30_000);
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) external.push(url);
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    await new Promise((r) => server?.close(r));
    await worker?.stop();
    await listJobs?.stop();
    await receiver.close();
    await h?.close();
    await closeSources();
    await simServer?.close();
    await db?.drop();
  });

  it('serves the page with a strict CSP and without a session shows only the sign-in form (every operation answers 401)', async () => {
    const res = await fetch(`${base}/dashboard/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect((await api('/workspace/keys')).status).toBe(401);

    await page.goto(`${base}/dashboard/`);
    await page.waitForSelector('form[aria-label="Sign in with an API key"]');
    // An inline script added at run time is refused by the CSP.
    const inline = await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__inline = 1';
      document.body.appendChild(s);
      return window.__inline as number | undefined;
    });
    expect(inline).toBeUndefined();
    await shot('01-sign-in');
    await axe('01-sign-in');
  });

  it('signs in by a single-use link: HttpOnly SameSite=Strict cookie, the token gone from the URL, the link refused a second time', async () => {
    const link = await createSignInLink(h.knex, { workspaceId: owner.workspaceId });
    await page.goto(`${base}/dashboard/#token=${link.token}`);
    await page.waitForSelector('[data-testid="who"]');
    expect(page.url()).toBe(`${base}/dashboard/#/overview`);
    const cookies = await browser!.cookies(base);
    const session = cookies.find((c) => c.name === 'enrich_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await assertNothingStored(link.token);
    const again = await fetch(`${base}/api/v1/workspace/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link.token }) });
    expect(again.status).toBe(401);
  });

  it('Overview: license, rate limits and the charts', async () => {
    await page.waitForSelector('[data-testid="chart-requests"] canvas');
    expect(await page.textContent('[data-testid="license-status"]')).toBe('active');
    expect(await page.textContent('[data-testid="rate-limit"]')).toContain('1000 requests / 60 s');
    await shot('02-overview');
    await axe('02-overview');
  });

  it('Overview: the charts redraw at the new width when the window is resized', async () => {
    const canvas = '[data-testid="chart-requests"] canvas';
    const sizes = () =>
      page.evaluate((sel) => {
        const c = document.querySelector(sel);
        return { canvas: c.getBoundingClientRect().width as number, holder: c.closest('.plot').clientWidth as number };
      }, canvas);
    const wide = await sizes();
    expect(wide.canvas).toBeGreaterThan(0);
    try {
      await page.setViewportSize({ width: 700, height: 900 });
      await page.waitForFunction(
        (sel) => {
          const c = document.querySelector(sel);
          const holder = c.closest('.plot').clientWidth;
          return Math.abs(c.getBoundingClientRect().width - Math.max(320, holder)) <= 1;
        },
        canvas,
        { timeout: 10_000 },
      );
      const narrow = await sizes();
      expect(narrow.canvas).toBeLessThan(wide.canvas);
      expect(Math.abs(narrow.canvas - Math.max(320, narrow.holder))).toBeLessThanOrEqual(1);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // And back: wider again once the window is.
    await page.waitForFunction((w) => document.querySelector('[data-testid="chart-requests"] canvas').getBoundingClientRect().width >= w - 1, wide.canvas, { timeout: 10_000 });
  });

  it('API keys: a new key is shown once (gone after a reload), works at once, and once revoked the API answers 401 with it', async () => {
    await page.click('nav >> text=API keys');
    await page.waitForSelector('[data-testid="keys-table"]');
    await axe('03-keys');
    await page.click('button:has-text("Create key")');
    const key = (await page.textContent('[data-testid="new-key-value"]'))!.trim();
    expect(key).toMatch(/^ik_live_/);
    await page.click('button:has-text("Copy key")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shot('04-key-shown-once');
    await assertNothingStored(key);
    expect((await api('/account', key)).status).toBe(200);

    await page.reload();
    await page.waitForSelector('[data-testid="keys-table"]');
    expect(await page.content()).not.toContain(key);
    const prefix = key.slice(0, 14);
    const row = page.locator(`tr[data-prefix="${prefix}"]`);
    await row.locator('button:has-text("Revoke")').click();
    await row.locator('button:has-text("Yes, revoke")').click();
    await row.locator('text=revoked').waitFor();
    await shot('05-key-revoked');
    expect((await api('/account', key)).status).toBe(401);

    // A long list pages (10 per page): 12 keys in all.
    for (let i = 0; i < 10; i++) await h.memberKey(owner.workspaceId, `bulk-${i}`);
    await page.reload();
    await page.waitForSelector('text=Page 1 of 2 (12)');
    await page.click('nav[aria-label="Pages"] >> nth=0 >> button:has-text("Next")');
    await page.waitForSelector('text=Page 2 of 2 (12)');
    // The pager's label can be drawn before the second page's rows (a busy machine showed 10 still):
    // wait for the rows themselves.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="keys-table"] tbody tr').length === 2, undefined, { timeout: 30_000 }).catch(() => undefined);
    expect(await page.locator('[data-testid="keys-table"] tbody tr').count()).toBe(2);
  });

  it('Monitors: create, the secret revealed once on the next screen (gone after a reload), a test event delivered and verified with it, the delivery log, rotate, delete', async () => {
    await page.click('nav >> text=Monitors');
    await page.waitForSelector('text=No monitors yet');
    await shot('06-monitors-empty');
    await axe('06-monitors');
    await page.fill('input[name="subject_url"]', 'https://www.linkedin.com/in/someone-watched');
    await page.fill('input[name="webhook_url"]', receiver.url('/enrich'));
    await page.fill('input[name="label"]', 'Champion at Northwind');
    await page.click('button:has-text("Create monitor")');
    const secret = (await page.textContent('[data-testid="monitor-secret-value"]'))!.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.textContent('pre.snippet')).toContain('standardwebhooks');
    const monitorId = (await h.knex('monitors').first('id')).id as string;
    const keys = loadServerKeys({ key: h.config.webhooks.secretKey, previous: h.config.webhooks.previousSecretKeys, dataDir: h.config.dataDir });
    expect(await signingSecrets({ db: h.knex, keys }, monitorId)).toEqual([secret]);
    await shot('07-monitor-secret-once');
    await axe('07-monitor-secret');
    await assertNothingStored(secret);

    await page.reload();
    await page.waitForSelector('[data-testid="secret-gone"]');
    expect(await page.content()).not.toContain(secret);
    await shot('08-monitor-secret-after-reload');
    const second = await fetch(`${base}/api/v1/workspace/monitors/${monitorId}/secret`, { method: 'POST', headers: { Authorization: `Bearer ${owner.key}` } });
    expect(second.status).toBe(409);

    await page.click('button:has-text("Back to monitors")');
    const row = page.locator(`tr[data-monitor="${monitorId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('active');
    await row.locator('text=none yet').waitFor();

    // A test event through the real delivery path, verified by the receiver's side with the revealed secret.
    await row.locator('button:has-text("Deliveries")').click();
    const log = page.locator('[data-testid="delivery-log"]');
    await log.locator('text=No deliveries yet').waitFor();
    await log.locator('button:has-text("Send test event")').click();
    const note = log.locator('text=/Test event [0-9a-f-]{36} queued/');
    await note.waitFor();
    const deliveryId = /([0-9a-f-]{36})/.exec((await note.textContent())!)![1];
    const received = await eventually(async () => receiver.of(deliveryId)[0]);
    expect(new Webhook(secret).verify(received.body, received.headers)).toMatchObject({ id: deliveryId, event: 'monitor.test', monitor_id: monitorId });
    const logRow = log.locator(`tr[data-delivery="${deliveryId}"]`);
    await eventually(async () => {
      await log.locator('button:has-text("Refresh")').click();
      return (await logRow.locator('[data-testid="delivery-state"]').textContent({ timeout: 5000 }).catch(() => '')) === 'succeeded';
    });
    expect(await logRow.locator('[data-testid="delivery-answer"]').textContent()).toBe('HTTP 204');
    expect(await logRow.textContent()).toContain('monitor.test');
    await shot('09-monitor-delivery-log');
    await axe('09-monitor-delivery-log');
    await row.locator('button:has-text("Rotate secret")').click();
    await row.locator('button:has-text("Yes")').click();
    const rotated = (await page.textContent('[data-testid="monitor-secret-value"]'))!.trim();
    expect(rotated).not.toBe(secret);
    expect(await signingSecrets({ db: h.knex, keys }, monitorId)).toEqual([rotated, secret]);
    await page.click('button:has-text("back to monitors")');
    expect(await page.content()).not.toContain(rotated);
    await row.locator('button:has-text("Delete")').click();
    await row.locator('button:has-text("Yes")').click();
    await page.waitForSelector('text=No monitors yet');
  });

  it('Explorer: a record not in the lake is a 404 with code and request_id; the live refresh says it costs 0.001 USD, and the usage chart counts it', async () => {
    const target = world.person(LOADED + 2).username;
    await page.click('nav >> text=Explorer');
    await page.fill('input[name="query"]', target);
    await page.click('button:has-text("Look up")');
    await page.waitForSelector('[data-testid="api-error"]');
    expect(await page.textContent('[data-testid="error-code"]')).toBe('NOT_FOUND');
    expect(await page.textContent('[data-testid="request-id"]')).toMatch(/^req_[0-9a-f]{32}$/);
    await shot('10-explorer-not-found');
    await axe('10-explorer');

    for (const i of [2, 3]) {
      await page.fill('input[name="query"]', world.person(LOADED + i).username);
      await page.click('button:has-text("Look up")');
      await page.waitForSelector('[data-testid="api-error"]');
      await page.click('button:has-text("Refresh from the live source")');
      expect(await page.textContent('[data-testid="live-confirm"]')).toContain('0.001 USD');
      await page.click('button:has-text("Refresh for 0.001 USD")');
      await page.waitForSelector('[data-testid="record-source"]');
      expect(await page.textContent('[data-testid="record-source"]')).toContain('source: live');
      expect(await page.textContent('[data-testid="fetched-at"]')).toMatch(/fetched_at \d{4}-\d{2}-\d{2} /);
    }
    await shot('11-explorer-live-refresh');

    await h.app.requestCounter.flush();
    await page.click('nav >> text=Overview');
    await page.waitForSelector('[data-testid="chart-realtime"] canvas');
    expect(await page.getAttribute('[data-testid="chart-realtime"]', 'data-totals')).toBe('2');
    expect(await page.getAttribute('[data-testid="chart-cost"]', 'data-totals')).toBe('0.002');
    expect(await page.textContent('[data-testid="realtime-period"]')).toContain('2 calls · $0.002');
    const requests = (await page.getAttribute('[data-testid="chart-requests"]', 'data-totals'))!.split(',').map(Number);
    expect(requests[0]).toBeGreaterThan(10); // the 2xx answers of the pages so far
    expect(requests[2]).toBeGreaterThanOrEqual(3); // the 404s of the explorer
    await shot('12-overview-with-usage');
  });

  it('renders public text as text only: the <script>/<img onerror> record is inert', async () => {
    await page.click('nav >> text=Explorer');
    await page.fill('input[name="query"]', XSS.username);
    await page.click('button:has-text("Look up")');
    await page.waitForSelector('[data-testid="record"]');
    const text = await page.textContent('[data-testid="record"]');
    expect(text).toContain(XSS.full_name);
    expect(text).toContain(XSS.headline);
    expect(text).toContain(XSS.summary);
    expect(await page.locator('[data-testid="record"] img, [data-testid="record"] script, [data-testid="record"] svg, [data-testid="record"] iframe, [data-testid="record"] b').count()).toBe(0);
    await shot('13-xss-record-inert');
    await axe('13-xss-record');
    await page.click('summary:has-text("Whole record")');
    expect(await page.textContent('[data-testid="record"] pre')).toContain(JSON.stringify(XSS.headline));
    expect(await page.evaluate(() => window.__xss as number | undefined)).toBeUndefined();
  });

  it('an <img> on a page of another port of 127.0.0.1 (same site: the SameSite=Strict cookie goes along) spends no realtime call: 403', async () => {
    // The owner is signed in (this browser holds the session cookie). A page of another server on
    // this host, as an attacker's local page or a dev server would be.
    const path_ = `/api/v1/person/realtime?username=${world.person(0).username}&max_age=31536000`;
    const target = `${base}${path_}`;
    const attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>elsewhere</title><img id="x" src="${target}">`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
    const before = await realtimeCalls(owner.key);
    // What the server received and answered (Chromium's ORB hides a JSON answer to an <img> from the page).
    const answers = answersTo(path_);
    const other = await browser!.newPage();
    try {
      await other.goto(elsewhere);
      const [seen] = await eventually(async () => answers.list.length > 0 && answers.list, 30_000);
      // The browser sent the session, and said the page is of the same site, not the same origin.
      expect(seen!.headers.cookie ?? '').toContain('enrich_session=');
      expect(seen!.headers['sec-fetch-site']).toBe('same-site');
      expect(seen!.headers.origin).toBeUndefined();
      // 403, not 401: the session was found, and refused for where the call came from.
      expect(seen!.status).toBe(403);
    } finally {
      answers.stop();
      await other.close();
      // (Chromium keeps its connection to the page's server alive: close it, or close() waits for it.)
      attacker.closeAllConnections();
      await new Promise((r) => attacker.close(r));
    }
    expect(await realtimeCalls(owner.key)).toBe(before);
    // The control: the same call from the dashboard's own page is answered and metered.
    const own = await page.evaluate(async (url: string) => (await fetch(url)).status, target);
    expect(own).toBe(200);
    expect(await realtimeCalls(owner.key)).toBe(before + 1);
  });

  it('over plain http by a host name (no Sec-Fetch-Site sent), the dashboard\'s own reads pass by their Referer', async () => {
    const port = (server.address() as AddressInfo).port;
    const plain = `http://${PLAIN_HOST}:${port}`;
    const answers = answersTo('/api/v1/');
    const other = await browser!.newPage();
    try {
      const link = await createSignInLink(h.knex, { workspaceId: owner.workspaceId });
      await other.goto(`${plain}/dashboard/#token=${link.token}`);
      await other.waitForSelector('[data-testid="license-status"]', { timeout: 30_000 }).catch(() => undefined);
      const reads = answers.list.filter((a) => a.method === 'GET');
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) {
        expect({ url: read.url, status: read.status }).toEqual({ url: read.url, status: 200 });
        expect(read.headers['sec-fetch-site']).toBeUndefined();
        expect(read.headers.origin).toBeUndefined();
        expect(read.headers.referer).toBe(`${plain}/dashboard/`);
      }
      expect(await other.textContent('[data-testid="license-status"]')).toBe('active');
    } finally {
      answers.stop();
      await other.close();
    }
  });

  it('Lists: a chosen file shows its columns and what each is read as, then a live progress bar to completed and the results to download', async () => {
    await page.click('nav >> text=Lists');
    const csv = `Profile URL;Owner\nhttps://www.linkedin.com/in/${world.person(0).username};jules\nhttps://www.linkedin.com/in/${world.person(1).username};max\nhttps://www.linkedin.com/in/nobody-here-zz;max\n`;
    await page.setInputFiles('#list-file', { name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.waitForSelector('[data-testid="list-columns"]');
    const cells = await page.locator('[data-testid="list-columns"] tbody td').allTextContents();
    expect(cells).toEqual(['Profile URL', 'network_url', 'Owner', 'not used (kept in the results)']);
    await shot('17-lists-columns');
    await axe('17-lists');
    await page.click('button:has-text("Enrich this list")');
    await page.waitForSelector('[data-testid="list-download"]', { timeout: 60_000 });
    expect(await page.textContent('[data-testid="list-job"]')).toContain('completed: 3 of 3 rows (2 matched, 1 unmatched, 0 failed)');
    expect(await page.getAttribute('[data-testid="list-progress"]', 'value')).toBe('3');
    await shot('18-lists-completed');
    await axe('18-lists-completed');
    const href = (await page.getAttribute('[data-testid="list-download"]', 'href'))!;
    const text: string = await page.evaluate(async (url: string) => (await fetch(url)).text(), href);
    const lines = text.trim().split('\n');
    expect(lines[0]).toMatch(/^Profile URL,Owner,_row,_outcome,/);
    expect(lines.slice(1).map((l) => l.split(',')[3])).toEqual(['matched', 'matched', 'unmatched']);
  });

  it('Explorer: finds a person by name and company with the likelihood and the evidence; a name alone is refused with its code; someone absent is NO_MATCH', async () => {
    const person = world.person(1);
    await page.click('nav >> text=Explorer');
    await page.fill('input[name="match-name"]', person.full_name as string);
    await page.fill('input[name="match-company"]', person.current_company as string);
    await page.click('button:has-text("Find")');
    await page.waitForSelector('[data-testid="match"]');
    const shown = await page.textContent('[data-testid="match"]');
    expect(shown).toContain(person.full_name);
    expect(shown).toContain(person.network_url);
    expect(await page.textContent('[data-testid="likelihood"]')).toMatch(/^likelihood \d{1,3}(\.\d)?%/);
    const evidence = await page.$$eval('[data-testid="evidence"] tbody tr', (rows: any[]) => rows.map((r) => [...r.cells].slice(0, 2).map((c: any) => c.textContent)));
    expect(evidence).toContainEqual(['name', 'exact']);
    expect(evidence).toContainEqual(['company', 'exact']);
    await shot('13b-explorer-match');
    await axe('13b-explorer-match');

    // A name alone: 400 with the code that says which combinations work.
    await page.fill('input[name="match-company"]', '');
    await page.click('button:has-text("Find")');
    await page.waitForSelector('[data-testid="api-error"]');
    expect(await page.textContent('[data-testid="error-code"]')).toBe('MATCH_INPUT_INSUFFICIENT');

    // A person of the world the lake was not given: no match.
    const absent = world.person(LOADED + 4);
    await page.fill('input[name="match-name"]', absent.full_name as string);
    await page.fill('input[name="match-company"]', absent.current_company as string);
    await page.click('button:has-text("Find")');
    await page.waitForSelector('[data-testid="api-error"] >> text=NO_MATCH');
    expect(await page.locator('[data-testid="match"]').count()).toBe(0);
    await axe('13c-explorer-no-match');
  });

  it('shows a 429 with its wait time', async () => {
    const tight = await h.workspace({ rateLimit: 3 });
    await signInByLink(tight.workspaceId);
    // The session check and the overview's two calls use the window of 3: the keys page gets 429s.
    await page.waitForSelector('[data-testid="license-status"]');
    await page.click('nav >> text=API keys');
    await page.waitForSelector('[data-testid="retry-after"]');
    expect(await page.textContent('[data-testid="api-error"]')).toContain('RATE_LIMIT_EXCEEDED');
    expect(await page.textContent('[data-testid="retry-after"]')).toMatch(/^Retry in \d+ s\.$/);
    await shot('14-rate-limited');
  });

  it('signs out (the session is dead on the server too), then signs in with a member key: the member sees only their own keys', async () => {
    await signInByLink(owner.workspaceId);
    const before = (await browser!.cookies(base)).find((c) => c.name === 'enrich_session')!.value;
    await page.click('button:has-text("Sign out")');
    await page.waitForSelector('form[aria-label="Sign in with an API key"]');
    const dead = await fetch(`${base}/api/v1/workspace/sessions/current`, { headers: { Cookie: `enrich_session=${before}` } });
    expect(dead.status).toBe(401);
    await shot('15-signed-out');

    const memberKey = await h.memberKey(owner.workspaceId, 'analyst', 100);
    await page.fill('input[name="api_key"]', memberKey);
    await page.click('button:has-text("Sign in")');
    await page.waitForSelector('[data-testid="who"]');
    expect(await page.textContent('[data-testid="who"]')).toContain('analyst (member)');
    await assertNothingStored(memberKey);
    await page.click('nav >> text=API keys');
    await page.waitForSelector('[data-testid="keys-table"]');
    const rows = await page.locator('[data-testid="keys-table"] tbody tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('analyst');
    expect(await page.locator('input[name="member"]').count()).toBe(0);
    await shot('16-member-keys');
    await axe('16-member-keys');
  });

  it('loaded nothing from outside the machine, threw no page error, and the CSP refused only the test\'s own inline script', () => {
    expect(external).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspViolations.length).toBeLessThanOrEqual(1);
  });
});
