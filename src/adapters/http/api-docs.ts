// The API reference page at /api/docs: a small page that reads /api/openapi.json and lists every
// operation with its parameters, body, answers and error codes. Served under the dashboard's
// headers (dashboard.ts): its script and style are files of their own, as that CSP requires.
import type { FastifyInstance } from 'fastify';
import { DASHBOARD_HEADERS } from './dashboard.js';
import { OPENAPI_PATH } from './openapi.js';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse API reference</title>
<link rel="stylesheet" href="/api/docs/reference.css">
<script type="module" src="/api/docs/reference.js"></script>
</head>
<body>
<header><h1>Gatehouse API reference</h1><p>Generated from the server's routes: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI 3.1).</p></header>
<nav id="index"></nav>
<main id="operations"><p>Loading…</p></main>
</body>
</html>
`;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem 2rem;color:#1d2330}
h1{margin-bottom:.2rem}h2{margin-top:2.5rem;border-bottom:1px solid #ccd}
section.op{border:1px solid #dde;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.method{font-weight:700;text-transform:uppercase;margin-right:.5rem}.path{font-family:ui-monospace,monospace}
pre{background:#f4f5f8;padding:.5rem;overflow:auto;font-size:13px;max-height:24rem}
table{border-collapse:collapse}td,th{border:1px solid #dde;padding:.2rem .5rem;text-align:left;vertical-align:top}
details{margin:.3rem 0}summary{cursor:pointer}nav a{margin-right:1rem}
`;

// Plain DOM building (textContent only): nothing from the document is ever parsed as HTML.
const SCRIPT = `const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
const json = (value) => el('pre', JSON.stringify(value, null, 2));
const resolve = (doc, schema) => schema && schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
function render(doc) {
  const main = document.getElementById('operations');
  const nav = document.getElementById('index');
  main.textContent = '';
  for (const tag of doc.tags) {
    const ops = [];
    for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) if (op.tags.includes(tag.name)) ops.push([path, method, op]);
    if (ops.length === 0) continue;
    const id = tag.name.toLowerCase().replace(/[^a-z]+/g, '-');
    const link = el('a', tag.name); link.href = '#' + id; nav.append(link);
    const h = el('h2', tag.name); h.id = id; main.append(h);
    for (const [path, method, op] of ops) {
      const s = el('section', undefined, 'op');
      const title = el('h3'); title.append(el('span', method, 'method'), el('span', path, 'path')); s.append(title);
      const security = op.security.length === 0 ? 'none' : op.security.map((r) => Object.keys(r).join(' + ')).join(' or ');
      s.append(el('p', 'Authentication: ' + security));
      if (op.parameters.length > 0) {
        const t = el('table'); const head = el('tr'); head.append(el('th', 'parameter'), el('th', 'in'), el('th', 'schema')); t.append(head);
        for (const p of op.parameters) { const r = el('tr'); r.append(el('td', p.name + (p.required ? '' : '?')), el('td', p.in), el('td', JSON.stringify(p.schema))); t.append(r); }
        s.append(t);
      }
      if (op.requestBody) for (const [type, media] of Object.entries(op.requestBody.content)) { const d = el('details'); d.append(el('summary', 'Body (' + type + ')'), json(media.schema)); s.append(d); }
      for (const [status, response] of Object.entries(op.responses)) {
        const d = el('details'); d.append(el('summary', status + ': ' + response.description));
        for (const media of Object.values(response.content ?? {})) {
          const schema = media.schema.allOf ? resolve(doc, media.schema.allOf[0]) : media.schema;
          d.append(json(schema));
          for (const [name, example] of Object.entries(media.examples ?? {})) d.append(el('p', 'Example ' + name), json(example.value));
        }
        s.append(d);
      }
      main.append(s);
    }
  }
}
fetch('${OPENAPI_PATH}').then((r) => r.json()).then(render, (e) => { document.getElementById('operations').textContent = 'Could not load the document: ' + e; });
`;

/** GET /api/docs and its two files; not part of the document itself. */
export function apiDocsRoutes(app: FastifyInstance): void {
  const page = (path: string, type: string, body: string) =>
    app.get(path, { config: { undocumented: true } }, async (_request, reply) => reply.headers(DASHBOARD_HEADERS).header('cache-control', 'no-cache').type(type).send(body));
  page('/api/docs', 'text/html; charset=utf-8', PAGE);
  page('/api/docs/reference.js', 'text/javascript; charset=utf-8', SCRIPT);
  page('/api/docs/reference.css', 'text/css; charset=utf-8', STYLE);
}
