// The dashboard's build: a Preact single-page app under /dashboard/, built into dist/dashboard at
// the repository root, where the server serves it (contract §3). The output is external files only
// (no inline script or style), so the strict CSP of /dashboard holds.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
export const dashboardRoot = here;
export const defaultOutDir = resolve(here, '../../../dist/dashboard');

export default defineConfig({
  root: here,
  base: '/dashboard/',
  // Preact's automatic JSX runtime, without a plugin: Vite's own transform does it.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn',
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
