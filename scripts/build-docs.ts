/**
 * Builds the Redoc reference of the bundled contract into one self-contained HTML file,
 * generated/docs.html (served by the server at /docs). `--inlineBundle` embeds Redoc's script
 * instead of loading it from a CDN, so the page works on a closed network. The file is about
 * 2.8 MB and is rebuilt in under a second, so it is not committed: `npm run docs` (and `npm start`,
 * through `prestart`) build it from generated/openapi.yaml.
 */
import { execFileSync } from 'node:child_process';
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
  return output;
}

if (require.main === module) {
  process.stdout.write(`docs: ${path.relative(root, buildDocs())} (serve with \`npm start\`, open /docs)\n`);
}
