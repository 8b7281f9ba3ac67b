import { useState } from 'preact/hooks';
import { appPath, get } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { BulkAdjust } from '../components/bulk-adjust.js';
import { DataTable } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, Empty, TextField } from '../components/fields.js';
import { Link } from '../components/link.js';
import { MembershipBadge, TimeoutBadge } from '../components/membership.js';
import { PAGE_SIZE, Pager } from '../components/pager.js';
import { useLoad } from '../components/use-load.js';
import { formatDateTime } from '../format.js';
import { userHref } from '../router.js';
import type { User } from '../types.js';

export function UsersPage({ app }: AppPageProps) {
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  // One more than a page: whether a next page exists, without counting them all.
  const users = useLoad(() => get<User[]>(appPath(app.id, `/users?query=${encodeURIComponent(query)}&limit=${PAGE_SIZE + 1}&offset=${page * PAGE_SIZE}`)), [app.id, query, page]);
  const rows = (users.data ?? []).slice(0, PAGE_SIZE);

  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const allOnPage = rows.length > 0 && rows.every((u) => selected.has(u.id));
  const togglePage = () => {
    const next = new Set(selected);
    rows.forEach((u) => (allOnPage ? next.delete(u.id) : next.add(u.id)));
    setSelected(next);
  };
  const search = (e: Event) => {
    e.preventDefault();
    setPage(0);
    setQuery(typed.trim());
  };

  return (
    <>
      <h1>Users</h1>
      <Card>
        <form class="toolbar" onSubmit={search} role="search">
          <TextField label="Search" name="query" type="search" value={typed} onInput={setTyped} placeholder="Username or license code" />
          <button type="submit" class="btn">
            Search
          </button>
        </form>
        <ErrorBanner error={users.error} />
        {notice && (
          <div class="banner banner-success" role="status">
            {notice}
          </div>
        )}
        {users.data && rows.length === 0 && <Empty>{query ? 'No user matches.' : 'No users yet.'}</Empty>}
        {rows.length > 0 && (
          <DataTable headers={[<input type="checkbox" aria-label="Select all on this page" checked={allOnPage} onChange={togglePage} />, 'Username', 'Membership', 'Devices', 'Signed up']}>
            {rows.map((u) => (
              <tr key={u.id}>
                <td class="select-col">
                  <input type="checkbox" aria-label={`Select ${u.username}`} checked={selected.has(u.id)} onChange={() => toggle(u.id)} />
                </td>
                <td>
                  <Link href={userHref(app.id, u.id)}>{u.username}</Link>
                  {u.credential_type === 'license_code' && <span class="muted"> (license)</span>}
                </td>
                <td>
                  <MembershipBadge user={u} /> <TimeoutBadge user={u} />
                </td>
                <td>
                  {u.registered_devices.length} / {u.allowed_number_of_devices}
                  <span class="phone-only"> devices</span>
                </td>
                <td>{formatDateTime(u.created_at)}</td>
              </tr>
            ))}
          </DataTable>
        )}
        <Pager page={page} pages={null} hasNext={(users.data?.length ?? 0) > PAGE_SIZE} onPage={setPage} />
      </Card>
      {selected.size > 0 && (
        <BulkAdjust
          appId={app.id}
          userIds={[...selected]}
          onDone={(n) => {
            setNotice(`${n} user${n === 1 ? '' : 's'} adjusted.`);
            setSelected(new Set());
            void users.reload();
          }}
        />
      )}
    </>
  );
}
