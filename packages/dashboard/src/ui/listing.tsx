/** Pieces of a list page: a filter select bound to the URL, and the error / loading / loaded states. */
import type { ReactNode } from 'react';
import { ErrorBox, Select } from './kit';
import type { useUrlFilters } from './list';
import { Skeleton } from './states';

/** A select whose value is the URL's `name` filter; the first option is "Any". */
export function FilterSelect(props: {
  f: ReturnType<typeof useUrlFilters>;
  name: string;
  label: string;
  options: readonly string[];
}) {
  const { f, name } = props;
  return (
    <Select
      label={props.label}
      name={name}
      value={f.value(name)}
      onChange={(v) => f.setFilter(name, v)}
      options={['', ...props.options]}
    />
  );
}

/**
 * For `useLoad` states (pages not yet on query.ts): the API's error, a skeleton until the first
 * answer, then `children(data)`. Pages on query.ts use `QueryView` (ui/states.tsx).
 */
export function Loaded<T>(props: {
  state: { data: T | null; error: unknown };
  children(data: T): ReactNode;
}) {
  const { data, error } = props.state;
  return (
    <>
      <ErrorBox error={error} />
      {data ? props.children(data) : error ? null : <Skeleton />}
    </>
  );
}
