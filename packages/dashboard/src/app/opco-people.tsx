/** The opco's people (UBOs, directors, signatories): one row per person, added and removed in place. */
import type { ApiBody } from '../query';
import { Group, Input } from './form-kit';

/** A person as the API takes and returns it. */
export type PersonBody = NonNullable<ApiBody<'post', '/opcos'>['ubos']>[number];

export interface Person {
  key: string;
  fullName: string;
  dateOfBirth: string;
  address: string;
  nationality: string;
  email: string;
  ownershipPercentage: string;
  role: string;
}

export const emptyPerson = (): Person => ({
  key: crypto.randomUUID(),
  fullName: '',
  dateOfBirth: '',
  address: '',
  nationality: '',
  email: '',
  ownershipPercentage: '',
  role: '',
});

export function personFromApi(p: PersonBody): Person {
  const s = (k: keyof PersonBody) => (p[k] === undefined ? '' : String(p[k]));
  return {
    key: crypto.randomUUID(),
    fullName: s('fullName'),
    dateOfBirth: s('dateOfBirth'),
    address: s('address'),
    nationality: s('nationality'),
    email: s('email'),
    ownershipPercentage: s('ownershipPercentage'),
    role: s('role'),
  };
}

/** The API's person object: empty optional fields left out; the share as a number (a percentage, not money). */
export function personBody(p: Person): PersonBody {
  const out: PersonBody = { fullName: p.fullName.trim() };
  for (const k of ['dateOfBirth', 'address', 'email', 'role'] as const) if (p[k].trim()) out[k] = p[k].trim();
  if (p.nationality.trim()) out.nationality = p.nationality.trim().toUpperCase();
  if (p.ownershipPercentage.trim()) out.ownershipPercentage = Number(p.ownershipPercentage.trim());
  return out;
}

export function PeopleRows(p: {
  title: string;
  noun: string;
  field: string;
  rows: Person[];
  onChange(rows: Person[]): void;
  errors: Record<string, string>;
  ownership?: boolean;
}) {
  const update = (i: number, k: keyof Person) => (v: string) =>
    p.onChange(p.rows.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  const err = (i: number, k: string) => p.errors[`${p.field}.${i}.${k}`];
  return (
    <Group title={p.title} hint={p.errors[p.field]}>
      {p.rows.map((r, i) => {
        const n = `${p.noun} ${i + 1}`;
        return (
          <fieldset key={r.key} className="person">
            <legend>{n[0]!.toUpperCase() + n.slice(1)}</legend>
            <Input
              label={`Full name of ${n}`}
              name={`${p.field}.${i}.fullName`}
              value={r.fullName}
              onChange={update(i, 'fullName')}
              error={err(i, 'fullName')}
              required
            />
            <Input
              label={`Date of birth of ${n}`}
              name={`${p.field}.${i}.dateOfBirth`}
              type="date"
              value={r.dateOfBirth}
              onChange={update(i, 'dateOfBirth')}
              error={err(i, 'dateOfBirth')}
            />
            <Input
              label={`Address of ${n}`}
              name={`${p.field}.${i}.address`}
              value={r.address}
              onChange={update(i, 'address')}
              error={err(i, 'address')}
            />
            <Input
              label={`Nationality of ${n}`}
              name={`${p.field}.${i}.nationality`}
              value={r.nationality}
              onChange={update(i, 'nationality')}
              error={err(i, 'nationality')}
              hint="Country code, for example GB."
            />
            <Input
              label={`Email of ${n}`}
              name={`${p.field}.${i}.email`}
              type="email"
              value={r.email}
              onChange={update(i, 'email')}
              error={err(i, 'email')}
            />
            {p.ownership ? (
              <Input
                label={`Ownership % of ${n}`}
                name={`${p.field}.${i}.ownershipPercentage`}
                value={r.ownershipPercentage}
                onChange={update(i, 'ownershipPercentage')}
                error={err(i, 'ownershipPercentage')}
                inputMode="decimal"
              />
            ) : null}
            <Input
              label={`Position of ${n}`}
              name={`${p.field}.${i}.role`}
              value={r.role}
              onChange={update(i, 'role')}
              error={err(i, 'role')}
            />
            {p.rows.length > 1 ? (
              <button
                type="button"
                className="secondary"
                onClick={() => p.onChange(p.rows.filter((_, j) => j !== i))}
              >
                Remove {n}
              </button>
            ) : null}
          </fieldset>
        );
      })}
      <button type="button" className="secondary" onClick={() => p.onChange([...p.rows, emptyPerson()])}>
        Add {p.noun}
      </button>
    </Group>
  );
}
