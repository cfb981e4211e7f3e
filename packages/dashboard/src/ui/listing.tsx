import { Select } from './kit';
import type { useUrlFilters } from './list';

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
