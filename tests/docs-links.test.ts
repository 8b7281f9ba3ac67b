// Acceptance (issue 20, point 4): the README stays short, links every page of docs/, and no
// relative link of the README or docs/ points at a missing file or a missing #anchor, since the
// reference moved out of the README into docs/ and its sections now link across pages.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docsPages, type DocsPage } from './support/docs-pages.js';
import { repoRoot } from './support/server-process.js';

/** GitHub's anchor for a heading: its text lowercased, punctuation but `-` and `_` dropped, spaces to `-`. */
function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The page's lines outside fenced code blocks. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** Every anchor of a page: its headings (a repeated one gets -1, -2, ... as on GitHub) and its `<a id>`s. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading !== null) {
      const slug = headingSlug(heading[1] as string);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a id="([^"]+)"/g)) anchors.add(id[1] as string);
  }
  return anchors;
}

/** The targets of the page's Markdown links, outside code. */
function linkTargets(text: string): string[] {
  return proseLines(text).flatMap((line) => [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string));
}

/** Every relative link of a page that leads nowhere, with why. */
function brokenLinks(page: DocsPage, anchors: Map<string, Set<string>>): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(page.text)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
    const [path, fragment] = target.split('#') as [string, string | undefined];
    const file = path === '' ? page.path : normalize(join(dirname(page.path), decodeURIComponent(path)));
    if (path !== '' && (file.startsWith('..') || !existsSync(join(repoRoot, file)))) {
      broken.push(`${page.path}: (${target}): no file ${file}`);
      continue;
    }
    if (fragment === undefined || (path !== '' && statSync(join(repoRoot, file)).isDirectory())) continue;
    const targetAnchors = anchors.get(file);
    if (targetAnchors === undefined) broken.push(`${page.path}: (${target}): an anchor into ${file}, which is not a page of the docs`);
    else if (!targetAnchors.has(fragment)) broken.push(`${page.path}: (${target}): ${file} has no heading or <a id> #${fragment}`);
  }
  return broken;
}

describe('the README and docs/', () => {
  const pages = docsPages();
  const anchors = new Map(pages.map((page) => [page.path, anchorsOf(page.text)]));

  it('makes anchors as GitHub does', () => {
    expect(headingSlug('Integration API (`/api/integration`)')).toBe('integration-api-apiintegration');
    expect(headingSlug('User variables: `/user_variables[/{name}]`')).toBe('user-variables-user_variablesname');
    expect(headingSlug('`POST /reset_devices`')).toBe('post-reset_devices');
    expect(headingSlug('Files: storage, processing and downloads')).toBe('files-storage-processing-and-downloads');
    expect([...anchorsOf('## Files\n\n```sh\n## not a heading\n```\n\n### Files\n<a id="x"></a>')]).toEqual(['files', 'files-1', 'x']);
  });

  it('have no relative link to a missing file or a missing anchor', () => {
    expect(pages.map((page) => page.path)).toContain('docs/api.md');
    expect(pages.flatMap((page) => brokenLinks(page, anchors))).toEqual([]);
  });

  it('catches a link to a missing anchor or file', () => {
    const page = { path: 'docs/example.md', text: '[a](api.md#no-such-section) [b](missing.md) [c](#here)\n\n## Here\n[d](../README.md#quick-start) [e](https://example.com/#x)' };
    const withPage = new Map([...anchors, [page.path, anchorsOf(page.text)]]);
    expect(brokenLinks(page, withPage)).toEqual([
      'docs/example.md: (api.md#no-such-section): docs/api.md has no heading or <a id> #no-such-section',
      'docs/example.md: (missing.md): no file docs/missing.md',
    ]);
  });

  it('keep the README under 300 lines, linking every page of docs/', () => {
    const readme = pages.find((page) => page.path === 'README.md') as DocsPage;
    expect(readme.text.split('\n').length).toBeLessThan(300);
    const linked = new Set(linkTargets(readme.text).map((target) => target.split('#')[0]));
    expect(pages.map((page) => page.path).filter((path) => path !== 'README.md' && !linked.has(path))).toEqual([]);
  });
});
