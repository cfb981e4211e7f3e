/** List pages: filters and page kept in the URL (the table itself is ui/table.tsx). */
import { useSearchParams } from 'react-router';
import { Select } from './kit';

/** The URL's values for `keys` (the API's query) and a setter that resets the page on a filter change. */
export function useUrlFilters(keys: readonly string[]) {
  const [params, setParams] = useSearchParams();
  const query = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? undefined]));
  const setFilter = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };
  return { query, key: params.toString(), value: (k: string) => params.get(k) ?? '', setFilter };
}

/** `pick(key, label, options)`: a select bound to one URL filter, "Any" first. */
export function urlPicker(f: ReturnType<typeof useUrlFilters>) {
  return (k: string, label: string, options: readonly string[]) => (
    <Select
      label={label}
      name={k}
      value={f.value(k)}
      onChange={(v) => f.setFilter(k, v)}
      options={['', ...options]}
    />
  );
}
