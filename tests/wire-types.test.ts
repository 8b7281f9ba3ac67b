// One wire contract (docs/architecture.md, Adding an endpoint): the server's views, the SDK and the
// dashboard take their JSON types from the response schemas in adapters/http/wire-schemas.ts. A
// field renamed there must break the type-check of all three. The compiler reads the schemas
// with `active_until` of MembershipTime, which Membership spreads, renamed (nothing is written to disk), and must report errors
// in the server's view, the SDK's remaining time and the dashboard's membership badge; the same
// programs over the real schemas report none there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/server-process.js';

const SCHEMAS = join(repoRoot, 'src', 'adapters', 'http', 'wire-schemas.ts');
const schemas = readFileSync(SCHEMAS, 'utf8');
const MEMBERSHIP = 'export const MembershipTime = Type.Object({ is_active: Type.Boolean(), is_lifetime: Type.Boolean(), active_until: Nullable(Instant) }, closed);';
const renamed = schemas.replace(MEMBERSHIP, MEMBERSHIP.replace('active_until:', 'active_until_renamed:'));

/** Parsed files by tsconfig: the programs of one tsconfig differ in wire-schemas.ts only, so the rest is parsed once. */
const parsed = new Map<string, Map<string, ts.SourceFile | undefined>>();

/**
 * The files (repository-relative) with errors when `roots` are compiled under `tsconfig`,
 * wire-schemas.ts read as `schemaText`: in every file of the program, or only in the roots
 * (enough where the roots are the files expected to break, and far cheaper to check).
 */
function filesWithErrors(tsconfig: string, roots: string[], schemaText: string, where: 'everywhere' | 'in the roots' = 'everywhere'): Set<string> {
  const config = ts.getParsedCommandLineOfConfigFile(join(repoRoot, tsconfig), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (config === undefined) throw new Error(`cannot read ${tsconfig}`);
  const options = { ...config.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (file === SCHEMAS ? schemaText : readFile(file));
  const getSourceFile = host.getSourceFile.bind(host);
  const cache = parsed.get(tsconfig) ?? new Map<string, ts.SourceFile | undefined>();
  parsed.set(tsconfig, cache);
  host.getSourceFile = (file, language, onError, create) => {
    if (file === SCHEMAS) return ts.createSourceFile(file, schemaText, language);
    const key = `${file}\0${JSON.stringify(language)}`;
    if (!cache.has(key)) cache.set(key, getSourceFile(file, language, onError, create));
    return cache.get(key);
  };
  const rootPaths = roots.map((r) => join(repoRoot, r));
  const program = ts.createProgram(rootPaths, options, host);
  const checked = where === 'everywhere' ? [undefined] : rootPaths.map((r) => program.getSourceFile(r));
  const files = new Set<string>();
  for (const file of checked) for (const d of ts.getPreEmitDiagnostics(program, file)) if (d.file) files.add(d.file.fileName.slice(repoRoot.length + 1));
  return files;
}

const SERVER_AND_SDK = ['src/adapters/http/views.ts', 'src/client/gatehouse-client.ts'];
const DASHBOARD = ['src/adapters/dashboard/src/components/membership.tsx'];

describe('a field renamed in a response schema', () => {
  it('is what the test renames', () => {
    expect(renamed).not.toBe(schemas);
  });

  it('breaks the server view and the SDK, which type-check against the real schemas', () => {
    expect(filesWithErrors('tsconfig.json', SERVER_AND_SDK, schemas)).toEqual(new Set());
    const broken = filesWithErrors('tsconfig.json', SERVER_AND_SDK, renamed, 'in the roots');
    expect(broken).toContain('src/adapters/http/views.ts');
    expect(broken).toContain('src/client/gatehouse-client.ts');
  }, 120_000);

  it('breaks the dashboard, which type-checks against the real schemas', () => {
    expect(filesWithErrors('src/adapters/dashboard/tsconfig.json', DASHBOARD, schemas)).toEqual(new Set());
    expect(filesWithErrors('src/adapters/dashboard/tsconfig.json', DASHBOARD, renamed, 'in the roots')).toContain('src/adapters/dashboard/src/components/membership.tsx');
  }, 120_000);
});
