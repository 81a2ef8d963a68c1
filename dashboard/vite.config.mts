/**
 * The dashboard's build (`npm run build:dashboard`): dashboard/ -> dashboard/dist, served by the
 * server at /dashboard. Everything is bundled: no file is loaded from outside the server, and no
 * script or style is inline (the page's CSP forbids both).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root,
  base: '/dashboard/',
  // JSX with React's automatic runtime, compiled by Vite's own transform (oxc): no plugin needed
  // for a production build (the React plugin only adds fast refresh for a dev server).
  oxc: { jsx: { runtime: 'automatic' } },
  logLevel: 'warn',
  build: {
    outDir: path.join(root, 'dist'),
    emptyOutDir: true,
    // The polyfill would be an inline script; every browser the dashboard supports has modulepreload.
    modulePreload: { polyfill: false },
    // Files, not data: URLs, for everything.
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
  },
});
