import { describe, expect, it } from 'vitest';
import { actorLabel, auditQuery, changeRows, changeValue, targetLabel } from '../../src/adapters/dashboard/src/audit.js';

describe('dashboard audit log', () => {
  it('asks for a page with the filters given, leaving out the empty ones, the cursor last', () => {
    expect(auditQuery({})).toBe('');
    expect(auditQuery({ action: ' ', actor_type: '', target_type: '', since: '' })).toBe('');
    expect(auditQuery({ action: 'user.created', actor_type: 'owner' })).toBe('?action=user.created&actor_type=owner');
    expect(auditQuery({ target_type: 'user', target_id: 'a b&c' }, { cursor: 'next/page=' })).toBe('?target_type=user&target_id=a+b%26c&cursor=next%2Fpage%3D');
    expect(auditQuery({ action: 'user.created' }, { limit: 20, cursor: 'cG9zOjQy' })).toBe('?action=user.created&limit=20&cursor=cG9zOjQy');
    expect(auditQuery({}, { limit: 20, cursor: null })).toBe('?limit=20');
    expect(auditQuery({ since: '2026-01-01T00:00:00.000Z', until: '2026-02-01T00:00:00.000Z' })).toBe('?since=2026-01-01T00%3A00%3A00.000Z&until=2026-02-01T00%3A00%3A00.000Z');
  });

  it('sends actions and target types in lower case, as the API names them; ids as typed', () => {
    expect(auditQuery({ action: ' User.Created ', target_type: 'USER', target_id: 'AbC' })).toBe('?action=user.created&target_type=user&target_id=AbC');
  });

  it('names the actor by kind, id and address, whichever are known', () => {
    expect(actorLabel({ type: 'owner', id: 'o-1', ip: '203.0.113.4' })).toBe('Owner o-1 from 203.0.113.4');
    expect(actorLabel({ type: 'admin_key', id: null, ip: '198.51.100.2' })).toBe('Admin API key from 198.51.100.2');
    expect(actorLabel({ type: 'system', id: null, ip: null })).toBe('System');
    expect(actorLabel({ type: 'end_user', id: 'u-9', ip: null })).toBe('End user u-9');
  });

  it('names the target by its label, else its type and id', () => {
    expect(targetLabel({ type: 'user', id: 'u-1', label: 'alice' })).toBe('alice');
    expect(targetLabel({ type: 'webhook', id: 'w-1', label: null })).toBe('webhook w-1');
  });

  it("uses the page's names for ids: a user's username, a license's code, the owner's email", () => {
    const names = { 'u-9': 'alice', 'l-1': 'ABCD-EFGH', 'o-1': 'owner@example.com' };
    expect(actorLabel({ type: 'end_user', id: 'u-9', ip: '203.0.113.4' }, names)).toBe('End user alice from 203.0.113.4');
    expect(actorLabel({ type: 'owner', id: 'o-1', ip: null }, names)).toBe('Owner owner@example.com');
    expect(actorLabel({ type: 'end_user', id: 'u-gone', ip: null }, names)).toBe('End user u-gone');
    expect(targetLabel({ type: 'license', id: 'l-1', label: null }, names)).toBe('ABCD-EFGH');
    // A recorded label wins: it is what the entry said when it happened.
    expect(targetLabel({ type: 'user', id: 'u-9', label: 'alice-then' }, names)).toBe('alice-then');
    expect(targetLabel({ type: 'license', id: 'l-gone', label: null }, names)).toBe('license l-gone');
  });

  it('shows each side of a change as text', () => {
    expect(changeValue(null)).toBe('—');
    expect(changeValue(undefined)).toBe('—');
    expect(changeValue('')).toBe('""');
    expect(changeValue('gold')).toBe('gold');
    expect(changeValue(30)).toBe('30');
    expect(changeValue(false)).toBe('false');
    expect(changeValue(['a', 1])).toBe('["a",1]');
    expect(changeValue({ k: 'v' })).toBe('{"k":"v"}');
  });

  it('lists changes as field, before, after; none when the entry has none', () => {
    expect(changeRows(null)).toEqual([]);
    expect(changeRows({})).toEqual([]);
    expect(changeRows({ session_ttl_seconds: [300, 900], note: [null, 'x'] })).toEqual([
      ['session_ttl_seconds', '300', '900'],
      ['note', '—', 'x'],
    ]);
  });
});
