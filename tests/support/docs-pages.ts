// The project's documentation as a reader meets it: README.md, then every page of docs/ (README,
// "Where to go next"). The README-examples test finds its marked snippets in them and the links
// test checks every relative link between them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './server-process.js';

export interface DocsPage {
  /** The path from the repository root, with `/`: `README.md`, `docs/api.md`. */
  path: string;
  text: string;
}

export function docsPages(): DocsPage[] {
  const docs = readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)].map((path) => ({ path, text: readFileSync(join(repoRoot, path), 'utf8') }));
}
