// Ceiling of the download scenario: a bare node:http server streaming a file with
// fs.createReadStream, as any static server would: GET /<path> sends BENCH_ROOT/<path>.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';
import { pipeline } from 'node:stream/promises';

const root = process.env['BENCH_ROOT'] ?? '';

const server = createServer((request, response) => {
  const relative = normalize(decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/')).replace(/^([/\\])+/, '');
  if (relative.startsWith('..')) {
    response.writeHead(404).end();
    return;
  }
  const path = join(root, relative);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  pipeline(createReadStream(path), response).catch(() => response.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  console.log(`ceiling listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
