// Picks a user of the application by username, for forms whose API takes the user's id (a ban
// of type user): the owner types part of a name and chooses among the matches.
import { useEffect, useState } from 'preact/hooks';
import { appPath, get } from '../api.js';
import type { User } from '../types.js';
import { ErrorBanner } from './error-banner.js';
import { useLoad } from './use-load.js';

/** Matches offered at a time; typing more narrows them. */
const MATCHES = 20;

export function UserPicker({ appId, value, onChange }: { appId: string; value: string; onChange: (userId: string) => void }) {
  const [query, setQuery] = useState('');
  const users = useLoad(() => get<User[]>(appPath(appId, `/users?query=${encodeURIComponent(query.trim())}&limit=${MATCHES}&offset=0`)), [appId, query]);
  const matches = users.data ?? [];
  // The choice follows the matches: the first one until the owner picks another.
  useEffect(() => {
    if (!matches.some((u) => u.id === value)) onChange(matches[0]?.id ?? '');
  }, [users.data]);
  return (
    <>
      <label class="field">
        <span>Find user</span>
        <input name="user_query" type="search" value={query} placeholder="Part of a username" onInput={(e) => setQuery(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>User</span>
        <select name="user" value={value} required onChange={(e) => onChange(e.currentTarget.value)}>
          {matches.length === 0 && <option value="">{users.data ? 'No user matches' : 'Loading…'}</option>}
          {matches.map((u) => (
            <option key={u.id} value={u.id}>
              {u.username}
            </option>
          ))}
        </select>
      </label>
      <ErrorBanner error={users.error} />
    </>
  );
}
