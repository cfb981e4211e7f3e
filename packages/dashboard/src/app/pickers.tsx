/**
 * Choosing a project, payer, business customer or opco by name instead of typing its id: a search
 * box (the list endpoint's `?q=`) over a list of matches. Also the project and payer choices the
 * create forms share (payment link, recurring payment, schedule), with a way out when none exists.
 */
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useSession } from '../session';
import { Select, useLoad } from '../ui/kit';
import { Choice, Input } from './form-kit';

interface Project {
  project_id: string;
  project_name: string;
  is_frozen: boolean;
}
interface User {
  user_id: string;
  email: string;
}

/** `value` once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms = 250): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = window.setTimeout(() => setV(value), ms);
    return () => window.clearTimeout(t);
  }, [value, ms]);
  return v;
}

interface Kind {
  path: string;
  key: string;
  id: string;
  label(row: Record<string, unknown>): string;
  keep?(row: Record<string, unknown>): boolean;
}

const KINDS = {
  project: {
    path: '/projects',
    key: 'projects',
    id: 'project_id',
    label: (r) => `${r.project_name}${r.is_frozen ? ' (frozen)' : ''}`,
  },
  payer: {
    path: '/kyc/lists',
    key: 'users',
    id: 'user_id',
    label: (r) => {
      const name = [r.first_name, r.last_name].filter(Boolean).join(' ');
      return name ? `${r.email} — ${name}` : String(r.email);
    },
  },
  business: {
    path: '/kyb/businesses',
    key: 'business_customers',
    id: 'business_customer_id',
    label: (r) => String(r.company_name),
  },
  opco: {
    path: '/opcos',
    key: 'opcos',
    id: 'opco_id',
    label: (r) => `${r.name} (${String(r.status).replaceAll('_', ' ')})`,
  },
} satisfies Record<string, Kind>;

export interface PickerProps {
  label: string;
  value: string;
  onChange(id: string): void;
  error?: string;
  /** The first option, meaning "none" or "any" (default "Any"). */
  emptyLabel?: string;
  name?: string;
}

/** A search box and the matching records as a list to pick from. */
function SearchPicker(p: PickerProps & { kind: Kind }) {
  const { api } = useSession();
  const [find, setFind] = useState('');
  const q = useDebounced(find.trim());
  const list = useLoad(
    () =>
      api.get<Record<string, Record<string, unknown>[]>>(p.kind.path, {
        query: { page_size: 50, q: q || undefined },
      }),
    [api, q, p.kind.path],
  );
  const rows = (list.data?.[p.kind.key] ?? []).filter((r) => !p.kind.keep || p.kind.keep(r));
  const options: [string, string][] = rows.map((r) => [String(r[p.kind.id]), p.kind.label(r)]);
  // The chosen record stays listed while a search hides it.
  if (p.value && !options.some(([id]) => id === p.value)) options.unshift([p.value, `Selected (${p.value})`]);
  const note = list.error
    ? 'The list could not be loaded; try again in a moment.'
    : list.data
      ? `${rows.length === 0 ? 'No match' : `${rows.length} shown`}${q ? ` for “${q}”` : ''}.`
      : 'Loading…';
  return (
    <div className="picker">
      <Input
        label={`Search ${p.label.toLowerCase()}`}
        name={`${p.name ?? p.kind.id}_search`}
        value={find}
        onChange={setFind}
        type="search"
      />
      <Choice
        label={p.label}
        name={p.name ?? p.kind.id}
        value={p.value}
        onChange={p.onChange}
        error={p.error}
        hint={note}
        options={[['', p.emptyLabel ?? 'Any'], ...options]}
      />
    </div>
  );
}

export function ProjectPicker(p: PickerProps) {
  return <SearchPicker {...p} kind={KINDS.project} />;
}
export function PayerPicker(p: PickerProps) {
  return <SearchPicker {...p} kind={KINDS.payer} />;
}
export function BusinessCustomerPicker(p: PickerProps) {
  return <SearchPicker {...p} kind={KINDS.business} />;
}
/** `bindable`: only opcos a project may be bound to (not rejected or deactivated). */
export function OpcoPicker(p: PickerProps & { bindable?: boolean }) {
  const kind: Kind = p.bindable
    ? { ...KINDS.opco, keep: (r) => r.status !== 'rejected' && r.status !== 'deactivated' }
    : KINDS.opco;
  return <SearchPicker {...p} kind={kind} />;
}

/** Loads the projects and payers once; `projectId`/`userId` default to the first of each. */
export function useProjectPayer(chosen: { project_id: string; user_id: string }) {
  const { api } = useSession();
  const projects = useLoad(
    () => api.get<{ projects: Project[] }>('/projects', { query: { page_size: 200 } }),
    [api],
  );
  const users = useLoad(() => api.get<{ users: User[] }>('/kyc/lists', { query: { page_size: 200 } }), [api]);
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
