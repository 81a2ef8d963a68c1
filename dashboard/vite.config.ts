/**
 * The dashboard's build (`npm run build:dashboard`): dashboard/ -> dashboard/dist, served by the
 * server at /dashboard. Everything is bundled: no file is loaded from outside the server, and no
 * script or style is inline (the page's CSP forbids both).
 */
import path from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: __dirname,
  base: '/dashboard/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: path.join(__dirname, 'dist'),
    emptyOutDir: true,
    // The polyfill would be an inline script; every browser the dashboard supports has modulepreload.
    modulePreload: { polyfill: false },
    // Files, not data: URLs, for everything.
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
  },
});
