// Serving the dashboard (the single-page app's build) under /dashboard: hashed assets with a
// long cache, index.html for every other path (client-side routes), and the headers that keep
// the pages from being framed, sniffed or made to run anything but their own scripts.
import { createReadStream } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { folderAbove } from '../find-above.js';
import { sendError } from './errors.js';

/** Where `npm run build` puts the dashboard: dist/dashboard at the repository root. */
export function defaultDashboardDir(): string {
  try {
    return join(folderAbove(import.meta.url, 'package.json'), 'dist', 'dashboard');
  } catch {
    // Deployed without the package manifest: the working directory is the best guess left.
    return resolve('dist', 'dashboard');
  }
}

/** Sent on every answer under /dashboard. */
export const DASHBOARD_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Whether a raw request URL is under /dashboard (for answers given before routing). */
export const isDashboardUrl = (url: string): boolean => /^\/dashboard(?:[/?#]|$)/.test(url);

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** A plain file name: no dot files, no separators, nothing a path could be bent with. */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._~@+-]{0,254}$/;

/** The path under /dashboard/ as segments: 'traversal' when any segment (after the router's
 * percent-decoding, so `%2e%2e` too) is `.` or `..` or holds a backslash; 'route' when it cannot
 * name a built file (a client-side route); the segments otherwise. */
function classify(path: string): string[] | 'traversal' | 'route' {
  const segments = path.split('/');
  if (segments.some((s) => s === '.' || s === '..' || s.includes('\\'))) return 'traversal';
  return segments.every((s) => FILE_NAME.test(s)) ? segments : 'route';
}

/** The regular file at `segments` inside `root` (never a symlink, never outside), with its size. */
async function builtFile(root: string, segments: string[]): Promise<{ path: string; size: number } | null> {
  const path = resolve(root, ...segments);
  if (!path.startsWith(root + sep)) return null;
  const stat = await lstat(path).catch(() => null);
  return stat?.isFile() ? { path, size: stat.size } : null;
}

async function readIndex(root: string): Promise<Buffer | null> {
  try {
    return await readFile(join(root, 'index.html'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
}

const sendIndex = (reply: FastifyReply, index: Buffer) => reply.header('cache-control', REVALIDATE).type('text/html; charset=utf-8').send(index);

/** Registers /dashboard on `app`. Files are read per request (a rebuilt dashboard is served
 * without a restart; index.html is small and hashed assets are cached by browsers for a year). */
export async function dashboardRoutes(app: FastifyInstance, dir: string): Promise<void> {
  const root = resolve(dir);
  // The server's own address, opened in a browser, is the dashboard.
  app.get('/', { config: { undocumented: true } }, async (_request, reply) => reply.redirect('/dashboard/', 302));
  await app.register(
    async (scope) => {
      // On request, so every answer under /dashboard carries them: files, redirects and errors.
      scope.addHook('onRequest', (_request, reply, done) => {
        reply.headers(DASHBOARD_HEADERS);
        done();
      });
      scope.setNotFoundHandler((_request, reply) => sendError(reply, 'NOT_FOUND', 'no such endpoint'));

      scope.get('/', { prefixTrailingSlash: 'no-slash', config: { undocumented: true } }, async (request, reply) => {
        const query = request.url.indexOf('?');
        return reply.redirect(`/dashboard/${query >= 0 ? request.url.slice(query) : ''}`, 302);
      });

      scope.get('/*', { config: { undocumented: true } }, async (request, reply) => {
        const index = await readIndex(root);
        if (index === null) return sendError(reply, 'SERVICE_UNAVAILABLE', 'the dashboard is not built: run npm run build');
        const path = (request.params as { '*': string })['*'];
        const kind = classify(path);
        if (kind === 'traversal') return sendError(reply, 'NOT_FOUND', 'no such file');
        const file = kind === 'route' ? null : await builtFile(root, kind);
        if (file !== null) {
          return reply
            .header('cache-control', kind[0] === 'assets' && kind.length > 1 ? IMMUTABLE : REVALIDATE)
            .header('content-length', file.size)
            .type(CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream')
            .send(createReadStream(file.path));
        }
        // A missing hashed asset is an error, not a page: index.html there would be run as script.
        if (path === 'assets' || path.startsWith('assets/')) return sendError(reply, 'NOT_FOUND', 'no such asset');
        return sendIndex(reply, index);
      });
    },
    { prefix: '/dashboard' },
  );
}
