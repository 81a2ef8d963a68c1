/**
 * The reference docs: /docs (the Redoc build of the bundle), /openapi.yaml and /openapi.json are
 * served outside /api/v1 without a key, and the page, rendered in headless Chromium (Debian's
 * `chromium`, driven by playwright-core), lists every operation and webhook of the contract, loads
 * nothing from outside the machine, and has no serious or critical axe-core violation.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { DOCS_HTML } from '../../src/http/routes/operational';
import { loadDefinition } from '../../src/http/contract';
import { createHarness, type Harness } from '../helpers/harness';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  process.stdout.write(`docs test: SKIPPING the browser check: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)\n`);
}

type Op = { operationId: string; summary: string };
const doc = loadDefinition() as unknown as { tags: { name: string }[]; paths: Record<string, Record<string, Op>>; webhooks: Record<string, Record<string, Op>> };
const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
const operationIds = operations.map((op) => op.operationId);
const summaries = operations.map((op) => op.summary);
const webhookIds = Object.values(doc.webhooks ?? {}).flatMap((item) => Object.values(item).map((op) => op.operationId));
const tags = [...new Set([...doc.tags.map((t) => t.name), ...(webhookIds.length ? ['Webhooks'] : [])])];

let h: Harness;
let server: http.Server;
let base: string;

beforeAll(async () => {
  // What `npm run docs` runs: builds generated/docs.html, which the server serves at /docs.
  const root = path.resolve(__dirname, '../..');
  execFileSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, 'scripts/build-docs.ts')], { cwd: root, stdio: 'ignore' });
  expect(fs.existsSync(DOCS_HTML)).toBe(true);
  h = await createHarness();
  server = http.createServer(h.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
});

describe('reference docs and the bundled contract, outside /api/v1 and without a key', () => {
  it('serves /openapi.json and /openapi.yaml as built in generated/', async () => {
    const json = await fetch(`${base}/openapi.json`);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json.text()).toBe(fs.readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8'));
    const yaml = await fetch(`${base}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await yaml.text()).toBe(fs.readFileSync(path.resolve(__dirname, '../../generated/openapi.yaml'), 'utf8'));
  });

  it('serves /docs as one self-contained HTML page (no CDN scripts or fonts)', async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('Enrich API reference');
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
    // Redoc's badge image, inlined by scripts/build-docs.ts.
    expect(html).not.toContain('https://cdn.redoc.ly/');
  });

  (haveChromium ? it : it.skip)('lists every operation and webhook when rendered in Chromium', async () => {
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-chromium-'));
    let browser: BrowserContext | undefined;
    try {
      // A fresh profile directory per run.
      browser = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        // The machine's network is closed: without these flags Chromium hangs on background calls.
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        timeout: 60_000,
      });
      const page = await browser.newPage();
      const external: string[] = [];
      page.on('request', (req) => {
        const url = req.url();
        // Nothing leaves the machine, Redoc's "API docs by Redocly" badge included (inlined by
        // scripts/build-docs.ts).
        if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) external.push(url);
      });
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${base}/docs`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid="menu-item-label"]', { timeout: 30_000 });
      expect(await page.title()).toBe('Enrich API reference');

      // The side menu lists the tags; each one opens to its operations (links #/<tag>/<operationid>).
      const links = new Set<string>();
      const labels = new Set<string>();
      const collect = async () => {
        for (const href of await page.$$eval('a[href^="#/"]', (els) => els.map((e) => e.getAttribute('href') ?? ''))) links.add(href.toLowerCase());
        for (const label of await page.$$eval('[data-testid="menu-item-label"]', (els) => els.map((e) => e.textContent ?? ''))) labels.add(label);
      };
      for (const tag of tags) {
        const item = page.locator('[data-testid="menu-item-label"]', { hasText: new RegExp(`^${tag}$`) }).last();
        await item.click();
        await page.waitForTimeout(100);
        await collect();
      }
      const listed = (id: string) => [...links].some((l) => l.endsWith(`/${id.toLowerCase()}`));
      expect(operationIds.filter((id) => !listed(id))).toEqual([]);
      expect(webhookIds.filter((id) => !listed(id))).toEqual([]);
      const menuText = [...labels].join('\n');
      expect(summaries.filter((s) => !menuText.includes(s))).toEqual([]);
      expect(errors).toEqual([]);
      expect(external).toEqual([]);

      // Accessibility: axe-core (the devDependency's own build, injected into the rendered page)
      // finds nothing serious or critical.
      await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      // A string, run in the page (the test's tsconfig has no DOM types).
      const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
        r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) })))`)) as {
        id: string;
        impact: string | null;
        targets: string[];
      }[];
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    } finally {
      await browser?.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
