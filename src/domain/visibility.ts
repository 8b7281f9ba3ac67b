/** Public items (variables, files) are visible to every caller holding the application's key and
 * secret; private ones only to an authenticated user whose membership is active. */
export type Audience = 'anonymous' | 'member';

export function visibleTo<T extends { isPublic: boolean }>(items: readonly T[], audience: Audience): T[] {
  return audience === 'member' ? [...items] : items.filter((i) => i.isPublic);
}
