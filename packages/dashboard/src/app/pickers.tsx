/**
 * Choosing a project, payer, business customer or opco by name instead of typing its id: a search
 * box (the list endpoint's `?q=`) over a list of matches. Also the project and payer choices the
 * create forms share (payment link, recurring payment, schedule), with a way out when none exists.
 */
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { allows, useApiQuery } from '../query';
import { useSession } from '../session';
import { Select } from '../ui/kit';
import { Choice, Input } from './form-kit';

/** `value` once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms = 250): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = window.setTimeout(() => setV(value), ms);
    return () => window.clearTimeout(t);
  }, [value, ms]);
  return v;
}

export interface PickerProps {
  label: string;
  value: string;
  onChange(id: string): void;
  error?: string;
  /** The first option, meaning "none" or "any" (default "Any"). */
  emptyLabel?: string;
  name?: string;
}

interface Found {
  rows: [string, string][] | undefined;
  error: unknown;
}

/** The search box's text and the query it settles on. */
function useSearchText() {
  const [text, setText] = useState('');
  return { text, setText, q: useDebounced(text.trim()) };
}

/** The search box and the records found for it, as a list to pick from. */
function SearchPicker(
  p: PickerProps & { idName: string; search: ReturnType<typeof useSearchText>; found: Found },
) {
  const { text, setText, q } = p.search;
  const found = p.found;
  const options = [...(found.rows ?? [])];
  // The chosen record stays listed while a search hides it.
  if (p.value && !options.some(([id]) => id === p.value)) options.unshift([p.value, `Selected (${p.value})`]);
  const n = found.rows?.length ?? 0;
  const note = found.error
    ? 'The list could not be loaded; try again in a moment.'
    : found.rows
      ? `${n === 0 ? 'No match' : `${n} shown`}${q ? ` for “${q}”` : ''}.`
      : 'Loading…';
  return (
    <div className="picker">
      <Input
        label={`Search ${p.label.toLowerCase()}`}
        name={`${p.name ?? p.idName}_search`}
        value={text}
        onChange={setText}
        type="search"
      />
      <Choice
        label={p.label}
        name={p.name ?? p.idName}
        value={p.value}
        onChange={p.onChange}
        error={p.error}
        hint={note}
        options={[['', p.emptyLabel ?? 'Any'], ...options]}
      />
    </div>
  );
}

const PAGE = 50;
const search = (q: string) => ({ page_size: PAGE, ...(q ? { q } : {}) });

function useProjects(q: string, enabled: boolean): Found {
  const r = useApiQuery('/projects', { query: search(q), keep: true, enabled });
  return {
    error: r.error,
    rows: r.data?.projects.map((x) => [x.project_id, `${x.project_name}${x.is_frozen ? ' (frozen)' : ''}`]),
  };
}
function usePayers(q: string, enabled: boolean): Found {
  const r = useApiQuery('/kyc/lists', { query: search(q), keep: true, enabled });
  return {
    error: r.error,
    rows: r.data?.users.map((u) => {
      const name = [u.first_name, u.last_name].filter(Boolean).join(' ');
      return [u.user_id, name ? `${u.email} — ${name}` : u.email];
    }),
  };
}
function useBusinesses(q: string, enabled: boolean): Found {
  const r = useApiQuery('/kyb/businesses', { query: search(q), keep: true, enabled });
  return {
    error: r.error,
    rows: r.data?.business_customers.map((b) => [b.business_customer_id, b.company_name]),
  };
}
function useOpcos(q: string, bindable: boolean, enabled: boolean): Found {
  const r = useApiQuery('/opcos', { query: search(q), keep: true, enabled });
  return {
    error: r.error,
    rows: r.data?.opcos
      .filter((o) => !bindable || allows(o, 'add_project'))
      .map((o) => [o.opco_id, `${o.name} (${o.status.replaceAll('_', ' ')})`]),
  };
}

/** For a role that may not list the records: the id typed in, as before pickers. */
function IdBox(p: PickerProps & { idName: string }) {
  return (
    <Input
      label={`${p.label} ID`}
      name={p.name ?? p.idName}
      value={p.value}
      onChange={(v) => p.onChange(v.trim())}
      error={p.error}
    />
  );
}

export function ProjectPicker(p: PickerProps) {
  const allowed = useSession().can('projects.read');
  const search = useSearchText();
  const found = useProjects(search.q, allowed);
  if (!allowed) return <IdBox {...p} idName="project_id" />;
  return <SearchPicker {...p} idName="project_id" search={search} found={found} />;
}
export function PayerPicker(p: PickerProps) {
  const allowed = useSession().can('kyc.users.read');
  const search = useSearchText();
  const found = usePayers(search.q, allowed);
  if (!allowed) return <IdBox {...p} idName="user_id" />;
  return <SearchPicker {...p} idName="user_id" search={search} found={found} />;
}
export function BusinessCustomerPicker(p: PickerProps) {
  const allowed = useSession().can('kyb.businesses.read');
  const search = useSearchText();
  const found = useBusinesses(search.q, allowed);
  if (!allowed) return <IdBox {...p} idName="business_customer_id" />;
  return <SearchPicker {...p} idName="business_customer_id" search={search} found={found} />;
}
/** `bindable`: only opcos the caller may put a project under (the opco's `add_project`). */
export function OpcoPicker({ bindable = false, ...p }: PickerProps & { bindable?: boolean }) {
  const allowed = useSession().can('opcos.read');
  const search = useSearchText();
  const found = useOpcos(search.q, bindable, allowed);
  if (!allowed) return <IdBox {...p} idName="opco_id" />;
  return <SearchPicker {...p} idName="opco_id" search={search} found={found} />;
}

/** The projects and payers; `projectId`/`userId` default to the first of each. */
export function useProjectPayer(chosen: { project_id: string; user_id: string }) {
  // Polled: a project or payer added elsewhere (another tab, the API) shows up while the form is open,
  // and a list another page cached a moment ago is not trusted for long.
  const projects = useApiQuery('/projects', { query: { page_size: 200 }, poll: 5000 });
  const users = useApiQuery('/kyc/lists', { query: { page_size: 200 }, poll: 5000 });
  return {
    error: projects.error ?? users.error,
    loaded: Boolean(projects.data && users.data),
    projects: projects.data?.projects ?? [],
    users: users.data?.users ?? [],
    projectId: chosen.project_id || projects.data?.projects[0]?.project_id || '',
    userId: chosen.user_id || users.data?.users[0]?.user_id || '',
  };
}

export function ProjectPayerFields(props: {
  pp: ReturnType<typeof useProjectPayer>;
  onProject(v: string): void;
  onPayer(v: string): void;
}) {
  const { pp } = props;
  return (
    <>
      {pp.loaded && pp.projects.length === 0 ? (
        <p className="notice" data-testid="no-project">
          No project yet: payments are taken in a project. <Link to="/projects/new">Create a project</Link>
        </p>
      ) : (
        <Select
          label="Project"
          name="project_id"
          value={pp.projectId}
          onChange={props.onProject}
          options={pp.projects.map((p) => [p.project_id, p.project_name] as [string, string])}
        />
      )}
      {pp.loaded && pp.users.length === 0 ? (
        <p className="notice" data-testid="no-payer">
          No payer yet: a payment link is made out to a payer. <Link to="/payers/new">Add a payer</Link>
        </p>
      ) : (
        <Select
          label="Payer"
          name="user_id"
          value={pp.userId}
          onChange={props.onPayer}
          options={pp.users.map((u) => [u.user_id, u.email] as [string, string])}
        />
      )}
    </>
  );
}
