// Types of scripts/check-comments.mjs for tests/check-comments.test.ts.
export interface Finding {
  line: number;
  text: string;
  rule: string;
}
export const RULES: Array<[string, RegExp]>;
export function commentLines(text: string, fileName?: string): Array<[number, string]>;
export function checkSource(text: string, fileName?: string): Finding[];
export function checkTree(dir: string, root?: string): Array<Finding & { file: string }>;
export interface LongComment {
  line: number;
  lines: number;
}
export function longComments(text: string, fileName?: string): LongComment[];
export function checkLength(dir: string, root?: string): Array<LongComment & { file: string }>;
