// Pagination: client-side over a list the API returns whole, and the controls shared with the
// server-side pagination of users.
import { useEffect, useState } from 'preact/hooks';

export const PAGE_SIZE = 20;

export function usePage<T>(items: T[], size = PAGE_SIZE): { rows: T[]; page: number; pages: number; setPage: (p: number) => void } {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  useEffect(() => {
    if (page > pages - 1) setPage(pages - 1);
  }, [page, pages]);
  const current = Math.min(page, pages - 1);
  return { rows: items.slice(current * size, (current + 1) * size), page: current, pages, setPage };
}

interface PagerProps {
  page: number;
  /** Known page count, or null when only "is there a next page" is known (server-side). */
  pages: number | null;
  hasNext?: boolean;
  onPage: (page: number) => void;
}

export function Pager({ page, pages, hasNext, onPage }: PagerProps) {
  const next = pages === null ? Boolean(hasNext) : page < pages - 1;
  if (page === 0 && !next) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="btn btn-small" disabled={page === 0} onClick={() => onPage(page - 1)}>
        ‹ Previous
      </button>
      <span>
        Page {page + 1}
        {pages !== null && ` of ${pages}`}
      </span>
      <button type="button" class="btn btn-small" disabled={!next} onClick={() => onPage(page + 1)}>
        Next ›
      </button>
    </nav>
  );
}
