// The dashboard's build: a Preact single-page app under /dashboard/, built into dist/dashboard at
// the repository root, where the server serves it (contract §3). The output is external files only
// (no inline script or style), so the strict CSP of /dashboard holds.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
export const dashboardRoot = here;
export const defaultOutDir = resolve(here, '../../../dist/dashboard');

const devApi = process.env['GATEHOUSE_DEV_API'] ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: here,
  base: '/dashboard/',
  // Preact's automatic JSX runtime, without a plugin: Vite's own transform does it.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn',
  // `npx vite --config src/adapters/dashboard/vite.config.ts` for development, against a running
  // Gatehouse (GATEHOUSE_DEV_API, default http://127.0.0.1:3000). The proxy presents the API's own
  // origin, or the server would refuse cookie requests from the dev server's as cross-site.
  server: { proxy: { '/api': { target: devApi, changeOrigin: true, headers: { origin: devApi } } } },
  build: {
    outDir: defaultOutDir,
    emptyOutDir: true,
    // The polyfill would be one more script; every browser we target has modulepreload.
    modulePreload: { polyfill: false },
    // Nothing is inlined into index.html as a data: URL or a <style>.
    assetsInlineLimit: 0,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
