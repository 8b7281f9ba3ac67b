// The body of a bulk adjustment, within the API's rules: minutes (extend or reduce) never with a
// lifetime grant, never a grant and a revoke together, and always one of them.

export type AdjustMode = 'extend' | 'reduce' | 'grant' | 'revoke';

export function adjustmentBody(mode: AdjustMode, minutes: number, alsoRevoke: boolean, reason: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (mode === 'extend' || mode === 'reduce') {
    body['minutes'] = mode === 'reduce' ? -minutes : minutes;
    if (alsoRevoke) body['revoke_lifetime'] = true;
  }
  if (mode === 'grant') body['grant_lifetime'] = true;
  if (mode === 'revoke') body['revoke_lifetime'] = true;
  if (reason.trim()) body['reason'] = reason.trim();
  return body;
}
