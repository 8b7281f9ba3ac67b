// Fails when a comment line in src/**/*.ts(x) carries a measured figure or describes a machine:
// those belong in docs/performance-log.md, and a comment says why in at most three lines
// (docs/testing.md, "Comments"). Comments are found with the TypeScript scanner, so strings,
// regexes and JSX text are never read as comments. What counts (RULES below):
// - times that read as measured: sub-millisecond units (`40 µs`), decimals or ranges of ms or s
//   (`3.7-8.5 ms`), or a time after `about`, `~`, `took`, `cost`;
// - throughput (`15,000 requests/s`, `1,100 MB/s`), ratios (`0.37 of`, `1.5-2x`, `24% more`,
//   `seven times as long`), before/after figures (`27 -> 11 us`), shares of measured time;
// - machines and runs: `on this machine`, `the bench machine`, CPU names, vCPUs, `on two cores`,
//   `side by side` with rounds or builds, `the eighth session`, dates, commits.
// Constants and spec facts pass: `10 s after its last request`, `1 MiB`, `AES-256`, `SHA-512`,
// `RFC 9562`, `HTTP 503`, `2020-12`, versions, and `side by side` meaning concurrently.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const NUM = String.raw`\d[\d,]*(?:\.\d+)?`;
const RANGE = String.raw`${NUM}(?:\s*(?:-|–|to)\s*${NUM})?`;
const ORDINALS = 'third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|' + 'sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\\d+(?:st|nd|rd|th)';
const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';

/** Each rule: a name for the report and what it matches on one comment line. */
export const RULES = [
  ['sub-millisecond time', new RegExp(String.raw`(?<![\w.])${RANGE}\s*(?:µs|us|ns)\b`)],
  ['measured time', new RegExp(String.raw`(?<![\w.])(?:\d+\.\d+|${NUM}\s*(?:-|–)\s*${NUM})\s*(?:ms|s|seconds?|minutes?)\b`)],
  ['approximate time', new RegExp(String.raw`(?:~|≈|\b(?:about|roughly|around|nearly|took|cost|costs|taking)\s+)${RANGE}\s*(?:ms|s|seconds?|minutes?)\b`, 'i')],
  ['throughput', new RegExp(String.raw`(?<![\w.])${RANGE}\s*(?:[KMGT]i?B/s|(?:requests?|req|logins?|verifications?|answers?|ops|writes?|reads?)(?:/s\b| a second\b| per second\b))`, 'i')],
  ['ratio', /(?<![\w.])0\.\d+\s+of\b/],
  ['multiplier', new RegExp(String.raw`(?<![\w.])${RANGE}x\b(?!-)`)],
  ['times as', /\b(?:\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) times as (?:long|fast|slow|much|many)\b/i],
  ['percentage', /(?<![\w.%])\d+(?:\.\d+)?\s*%\s*(?:more|less|fewer|faster|slower|of (?:the|its|their|a)\b)/i],
  ['before -> after', new RegExp(String.raw`(?<![\w.])${NUM}\s*[A-Za-zµ/%]*\s*(?:->|→)\s*${NUM}`)],
  [
    'share of measured time',
    /\b(?:(?:about|nearly|roughly) (?:a|one) (?:half|third|quarter|fifth|sixth|eighth|tenth|twentieth)\b|(?:half|third|quarter|fifth|sixth|eighth|tenth|twentieth) of (?:the|its|an?) (?:[\w-]+(?:'s)? ){0,2}(?:time|CPU)\b|\b(?:about|nearly|roughly) half an? (?:second|minute)\b)/i,
  ],
  ['memory peak', /\bpeak(?:ed|s)? (?:near|at|around) \d/i],
  ['measured at', /\b(?:measured|benchmarked) (?:at|on)\b/i],
  ['machine', /\b(?:on|of) (?:this|the bench|a (?:slow|fast|busy|virtual|two-core|\w+-core)) machine\b|\bthe bench machine\b|\bmachine'?s? (?:here|of this project)\b/i],
  ['CPU name', /\b(?:Xeon|EPYC|Ryzen|Threadripper|Graviton|Core i[3579]|vCPUs?)\b/],
  ['cores of a machine', /\b(?:on|with) (?:\d+|one|two|four|eight|sixteen) (?:cpu )?cores\b|\b(?:\d+|two|four|eight)-core\b/i],
  ['side by side (measured)', /\bside by side\b.*\b(?:rounds?|builds?|before and after|A\/B)\b|\b(?:measured|A\/B|compared)\b.*\bside by side\b/i],
  ['benchmark session', new RegExp(String.raw`\bthe (?:${ORDINALS}) session\b|\bsession's machine\b`, 'i')],
  ['date', new RegExp(String.raw`\b20\d\d-\d\d-\d\d\b|\b(?:${MONTHS}) \d{1,2},? 20\d\d\b|\b\d{1,2} (?:${MONTHS}) 20\d\d\b`)],
  ['commit', /\bcommit [0-9a-f]{7,40}\b/],
];

/** Every comment of a TypeScript/TSX source, as [line number (1-based), text] per comment line. */
export function commentLines(text, fileName = 'file.ts') {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const ranges = new Map();
  const jsxTexts = [];
  const visit = (node) => {
    // Comments sit between tokens: the trivia before each node and after it on its line.
    if (node.kind === ts.SyntaxKind.JsxText) jsxTexts.push([node.pos, node.end]);
    for (const r of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
      ranges.set(r.pos, r.end);
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  // JSX text is not code: a `//` in it is text, whatever a token before it thought.
  const inJsxText = (pos) => jsxTexts.some(([start, end]) => pos >= start && pos < end);
  const lines = [];
  for (const [pos, end] of [...ranges].filter(([pos]) => !inJsxText(pos)).sort((a, b) => a[0] - b[0])) {
    const first = source.getLineAndCharacterOfPosition(pos).line;
    text
      .slice(pos, end)
      .split('\n')
      .forEach((line, i) => lines.push([first + i + 1, line.trim()]));
  }
  return lines;
}

/** The comment lines of one source that break a rule: { line, text, rule }. */
export function checkSource(text, fileName = 'file.ts') {
  const findings = [];
  for (const [line, comment] of commentLines(text, fileName)) {
    const broken = RULES.find(([, pattern]) => pattern.test(comment));
    if (broken) findings.push({ line, text: comment, rule: broken[0] });
  }
  return findings;
}

/**
 * The comment blocks of one source longer than three lines: { line, lines }. A block is a run of
 * lines holding nothing but comment; a comment after code on its line starts none.
 */
export function longComments(text, fileName = 'file.ts') {
  const source = text.split('\n');
  const own = [
    ...new Set(
      commentLines(text, fileName)
        .filter(([line, comment]) => source[line - 1].trim() === comment)
        .map(([line]) => line),
    ),
  ];
  const blocks = [];
  let start = 0;
  own.forEach((line, i) => {
    if (i > 0 && line === own[i - 1] + 1) return;
    if (i > 0 && own[i - 1] - start + 1 > 3) blocks.push({ line: start, lines: own[i - 1] - start + 1 });
    start = line;
  });
  if (own.length > 0 && own.at(-1) - start + 1 > 3) blocks.push({ line: start, lines: own.at(-1) - start + 1 });
  return blocks;
}

/** Every .ts/.tsx file under `dir`. */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The findings of every source file under `dir`, each with its file relative to `root`. */
export function checkTree(dir, root = process.cwd()) {
  return sourceFiles(dir).flatMap((file) => checkSource(readFileSync(file, 'utf8'), file).map((finding) => ({ file: relative(root, file), ...finding })));
}

/** The comment blocks longer than three lines of every source file under `dir`. */
export function checkLength(dir, root = process.cwd()) {
  return sourceFiles(dir).flatMap((file) => longComments(readFileSync(file, 'utf8'), file).map((block) => ({ file: relative(root, file).split(sep).join('/'), ...block })));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(fileURLToPath(import.meta.url), '..', '..');
  const findings = checkTree(join(root, 'src'), root);
  for (const f of findings) console.log(`${f.file}:${f.line}: ${f.rule}: ${f.text}`);
  const long = checkLength(join(root, 'src'), root);
  for (const b of long) console.log(`${b.file}:${b.line}: a comment of ${b.lines} lines (at most 3; more goes to docs/)`);
  if (findings.length > 0) console.error(`${findings.length} comment lines carry figures or machines; move them to docs/performance-log.md`);
  if (long.length > 0) console.error(`${long.length} comments longer than three lines`);
  if (findings.length > 0 || long.length > 0) process.exit(1);
  console.log('check-comments: no figures or machines in src comments, and none longer than three lines');
}
