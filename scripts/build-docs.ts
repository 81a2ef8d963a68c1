/**
 * Builds the Redoc reference of the bundled contract into one self-contained HTML file,
 * generated/docs.html (served by the server at /docs). `--inlineBundle` embeds Redoc's script
 * instead of loading it from a CDN, so the page works on a closed network. The file is about
 * 2.8 MB and is rebuilt in under a second, so it is not committed: `npm run docs` (and `npm start`,
 * through `prestart`) build it from generated/openapi.yaml.
 *
 * Redoc's output is then finished here (finishDocs): its "API docs by Redocly" badge image, the one
 * thing the page still fetched from a CDN, is inlined; and what axe-core reports as serious
 * (test/docs/docs.test.ts runs it) is fixed: low-contrast link and search-box text, and scrollable
 * code samples that a keyboard could not reach.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
export const DOCS_PATH = path.join(root, 'generated', 'docs.html');

export function buildDocs(output = DOCS_PATH): string {
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'redocly'),
    ['build-docs', path.join(root, 'generated', 'openapi.yaml'), '--inlineBundle', '--title', 'Enrich API reference', '-o', output],
    {
      cwd: root,
      // No network here: keep the Redocly CLI from sending telemetry or checking for updates.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  fs.writeFileSync(output, finishDocs(fs.readFileSync(output, 'utf8')));
  return output;
}

/** A small badge of our own in place of Redocly's CDN logo (the link next to it stays). */
const BADGE = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#3b3c45"/><path d="M4 4h5a3 3 0 0 1 0 6H7l3 2H7l-3-2z" fill="#fff"/></svg>',
)}`;

/**
 * In the page's head: contrast of at least 4.5:1 on white (WCAG AA; Redoc's link blue is 3.9:1,
 * the search box's grey 2.7:1, the GET badge's green 2.6:1: its own CSS variables, darker), and every code sample focusable (tabindex=0) as Redoc renders it,
 * so a keyboard can scroll it.
 */
const HEAD = `<style>
  html:root .tag-get, html:root .tag-query { --tag-color: #0f6e3f; }
  html:root .tag-post { --tag-color: #1447b8; }
  html:root .tag-put { --tag-color: #9a4a00; }
  html:root .tag-patch { --tag-color: #7a5c00; }
  html:root .tag-delete { --tag-color: #b00835; }
  html:root .tag-head { --tag-color: #4b3fb0; }
  #redoc p a, #redoc li a, #redoc [data-testid="show-more-operations"] { color: #0b57d0; }
  #redoc .token.string { color: #1d4fa8; }
  #redoc [data-testid="search-trigger"], #redoc [data-testid="search-trigger"] * { color: #555761; }
</style>
<script>
  (function () {
    function focusable(root) {
      root.querySelectorAll('pre:not([tabindex])').forEach(function (pre) { pre.setAttribute('tabindex', '0'); });
    }
    new MutationObserver(function () { focusable(document); }).observe(document.documentElement, { childList: true, subtree: true });
  })();
</script>`;

export function finishDocs(html: string): string {
  const logos = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
  // Fails the build if a Redoc upgrade moves the badge or the head: better than a CDN call again.
  if (!logos.test(html)) throw new Error('build-docs: the Redocly badge URL was not found; check finishDocs');
  const head = html.indexOf('<head>');
  if (head < 0) throw new Error('build-docs: no <head> in the Redoc output');
  const at = head + '<head>'.length;
  return `${html.slice(0, at)}\n${HEAD}${html.slice(at).replace(logos, BADGE)}`;
}

if (require.main === module) {
  process.stdout.write(`docs: ${path.relative(root, buildDocs())} (serve with \`npm start\`, open /docs)\n`);
}
