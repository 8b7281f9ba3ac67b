// Tables: one markup for every list (rows stack on phones, see styles.css), and the client-side
// paging of lists the API returns whole.
import type { ComponentChildren, VNode } from 'preact';
import { Empty } from './fields.js';
import { Pager, usePage } from './pager.js';

export function DataTable({ headers, children }: { headers: ComponentChildren[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {headers.map((h, i) => (
              <th key={i}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

interface PagedTableProps<T> {
  /** null while loading. */
  items: T[] | null;
  headers: ComponentChildren[];
  empty: string;
  row: (item: T) => VNode;
}

/** A list the API returns whole, a page at a time, with a line saying when there is nothing. */
export function PagedTable<T>({ items, headers, empty, row }: PagedTableProps<T>) {
  const { rows, page, pages, setPage } = usePage(items ?? []);
  if (items && items.length === 0) return <Empty>{empty}</Empty>;
  return (
    <>
      {rows.length > 0 && <DataTable headers={headers}>{rows.map(row)}</DataTable>}
      <Pager page={page} pages={pages} onPage={setPage} />
    </>
  );
}

/** A row's last cell: its own buttons, then the destructive one (which asks before acting). */
export function RowActions({ children, onDelete, deleteLabel = 'Delete' }: { children?: ComponentChildren; onDelete?: (() => void) | undefined; deleteLabel?: string }) {
  return (
    <td class="row-actions">
      {children}
      {onDelete && (
        <button type="button" class="btn btn-small btn-danger" onClick={onDelete}>
          {deleteLabel}
        </button>
      )}
    </td>
  );
}

export function RowButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" class="btn btn-small" onClick={onClick}>
      {label}
    </button>
  );
}
