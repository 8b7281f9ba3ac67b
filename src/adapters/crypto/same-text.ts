import { timingSafeEqual } from 'node:crypto';

/** Whether two texts are equal, their bytes compared in constant time. The length of what is compared
 * (a digest, a signature) is public, so unequal lengths answer at once. */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
