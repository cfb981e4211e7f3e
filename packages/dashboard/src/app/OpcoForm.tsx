/**
 * Create an opco, or edit one in draft: every field of POST /opcos, the sole trader's details or
 * the UBOs, directors and signatories (rows added and removed), the MCC from the API's catalogue,
 * and the API's field errors next to the fields they name.
 */
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type ApiBody, type ApiData, allows, useApiMutation, useApiQuery } from '../query';
import { useSession } from '../session';
import { Page } from '../ui/kit';
import { QueryError, QueryView, Skeleton } from '../ui/states';
import { Choice, FormError, fieldErrorsOf, Group, Input } from './form-kit';
import {
  emptyPerson,
  PeopleRows,
  type Person,
  type PersonBody,
  personBody,
  personFromApi,
} from './opco-people';

export const OPCO_TYPES: [string, string][] = [
  ['licensed_tpp_non_sole_trader_private', 'Private company (UBOs, directors, signatories)'],
  ['licensed_tpp_sole_trader', 'Sole trader'],
];
const USE_CASES = [
  'AIS: Accounting package integration',
  'AIS: Cash flow management',
  'AIS: Credit risk analysis',
  'AIS: Customer onboarding / verification',
  'AIS: Personal finance management',
  'PIS: eCommerce merchant payment',
  'PIS: Funding an account',
  'PIS: In store merchant payment',
  'PIS: Paying a bill',
  'PIS: Paying off debt',
];

type OpcoRecord = ApiData<'get', '/opcos/{opco_id}'>;
type OpcoBody = ApiBody<'post', '/opcos'>;

interface Draft {
  opco_type: string;
  name: string;
  domain: string;
  country_code: string;
  legal_entity_name: string;
  registration_number: string;
  primary_use_case: string;
  settlement_iban: string;
  settlement_bic: string;
  mcc: string;
  mcc_subtype: string;
  logo: string;
  parent_sub_tpp_id: string;
  st_fullName: string;
  st_address: string;
  st_dateOfBirth: string;
  ubos: Person[];
  directors: Person[];
  signatories: Person[];
}

const blank: Draft = {
  opco_type: 'licensed_tpp_non_sole_trader_private',
  name: '',
  domain: '',
  country_code: '',
  legal_entity_name: '',
  registration_number: '',
  // What a shop taking payments picks; the other use cases stay a choice away.
  primary_use_case: 'PIS: eCommerce merchant payment',
  settlement_iban: '',
  settlement_bic: '',
  mcc: '',
  mcc_subtype: '',
  logo: '',
  parent_sub_tpp_id: '',
  st_fullName: '',
  st_address: '',
  st_dateOfBirth: '',
  ubos: [emptyPerson()],
  directors: [emptyPerson()],
  signatories: [emptyPerson()],
};

function fromApi(o: OpcoRecord): Draft {
  const rows = (v: PersonBody[] | null) => (v?.length ? v.map(personFromApi) : [emptyPerson()]);
  return {
    opco_type: o.opco_type,
    name: o.name,
    domain: o.domain,
    country_code: o.country_code,
    legal_entity_name: o.legal_entity_name ?? '',
    registration_number: o.registration_number,
    primary_use_case: o.primary_use_case,
    settlement_iban: o.settlement_iban,
    settlement_bic: o.settlement_bic ?? '',
    mcc: o.mcc,
    mcc_subtype: o.mcc_subtype ?? '',
    logo: o.logo ?? '',
    parent_sub_tpp_id: o.parent_sub_tpp_id ?? '',
    st_fullName: o.sole_trader?.fullName ?? '',
    st_address: o.sole_trader?.address ?? '',
    st_dateOfBirth: o.sole_trader?.dateOfBirth ?? '',
    ubos: rows(o.ubos),
    directors: rows(o.directors),
    signatories: rows(o.signatories),
  };
}

/** The request body: trimmed text, `null` for an emptied optional field, only the parts the type needs. */
function toBody(d: Draft): OpcoBody {
  const opt = (v: string) => v.trim() || null;
  const sole = d.opco_type === 'licensed_tpp_sole_trader';
  return {
    // Both come from a list of the API's own values (OPCO_TYPES, USE_CASES).
    opco_type: d.opco_type as OpcoBody['opco_type'],
    name: d.name.trim(),
    domain: d.domain.trim(),
    country_code: d.country_code.trim().toUpperCase(),
    legal_entity_name: opt(d.legal_entity_name),
    registration_number: d.registration_number.trim(),
    primary_use_case: d.primary_use_case as OpcoBody['primary_use_case'],
    settlement_iban: d.settlement_iban.trim(),
    settlement_bic: opt(d.settlement_bic),
    mcc: d.mcc,
    mcc_subtype: opt(d.mcc_subtype),
    logo: opt(d.logo),
    parent_sub_tpp_id: opt(d.parent_sub_tpp_id),
    sole_trader: sole
      ? {
          fullName: d.st_fullName.trim(),
          address: d.st_address.trim(),
          dateOfBirth: d.st_dateOfBirth,
        }
      : null,
    ubos: sole ? null : d.ubos.map(personBody),
    directors: sole ? null : d.directors.map(personBody),
    signatories: sole ? null : d.signatories.map(personBody),
  };
}

/** The MCC catalogue as a filter box over a list: 700-odd codes are too many to scroll. */
function MccPicker(p: { value: string; onChange(v: string): void; error?: string }) {
  const codes = useApiQuery('/opcos/mcc-codes');
  const [find, setFind] = useState('');
  const all = codes.data?.mcc_codes ?? [];
  const needle = find.trim().toLowerCase();
  const matches = all.filter(
    (c) => !needle || c.id.startsWith(needle) || c.description.toLowerCase().includes(needle),
  );
  const current = all.find((c) => c.id === p.value);
  const shown = current && !matches.includes(current) ? [current, ...matches] : matches;
  return (
    <div className="mcc-picker">
      <QueryError error={codes.error} what="the merchant categories" retry={() => codes.refetch()} />
      <Input
        label="Find a merchant category"
        name="mcc_search"
        value={find}
        onChange={setFind}
        hint="Type words of the activity (restaurants, software) or the first digits of the code."
      />
      {codes.data ? (
        <Choice
          label="Merchant category code (MCC)"
          name="mcc"
          value={p.value}
          onChange={p.onChange}
          error={p.error}
          hint={`${matches.length} of ${all.length} categories match.`}
          options={[
            ['', 'Choose a category'],
            ...shown.map((c) => [c.id, `${c.id} — ${c.description}`] as [string, string]),
          ]}
        />
      ) : (
        <Skeleton what="the categories" lines={1} />
      )}
    </div>
  );
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

export function OpcoFormPage() {
  const { id } = useParams();
  if (!id) return <OpcoEditor initial={null} />;
  return <EditOpco id={id} />;
}

function EditOpco({ id }: { id: string }) {
  const { can } = useSession();
  const q = useApiQuery('/opcos/{opco_id}', { path: { opco_id: id } });
  if (!q.data)
    return (
      <Page title="Edit opco">
        <QueryView q={q} what="the opco" lines={6}>
          {() => null}
        </QueryView>
      </Page>
    );
  if (allows(q.data, 'edit')) return <OpcoEditor initial={q.data} />;
  return (
    <Page title={`Edit opco ${q.data.name}`}>
      <p>
        {can('opcos.write')
          ? `This opco is ${q.data.status.replaceAll('_', ' ')}: only a draft can be edited.`
          : 'Your role cannot create or edit opcos.'}{' '}
        <Link to={`/opcos/${q.data.opco_id}`}>Back to the opco</Link>
      </p>
    </Page>
  );
}

/** Sandbox only: values that pass every check, so a first opco takes seconds to try. */
function testValues(cur: Draft): Draft {
  const person = (fullName: string, extra: Partial<Person> = {}): Person => ({
    ...emptyPerson(),
    fullName,
    dateOfBirth: '1980-04-12',
    address: '1 High Street, London',
    nationality: 'GB',
    ...extra,
  });
  return {
    ...cur,
    opco_type: 'licensed_tpp_non_sole_trader_private',
    name: cur.name || 'Test Shop',
    legal_entity_name: 'Test Shop Ltd',
    registration_number: '12345678',
    country_code: 'GB',
    domain: 'shop.example.com',
    primary_use_case: 'PIS: eCommerce merchant payment',
    settlement_iban: 'GB33BUKB20201555555555',
    settlement_bic: 'BUKBGB22',
    mcc: '5999',
    ubos: [person('Alex Owner', { ownershipPercentage: '100' })],
    directors: [person('Alex Owner', { role: 'Director' })],
    signatories: [person('Alex Owner', { email: 'alex@shop.example.com' })],
  };
}

/**
 * The API's schema words for two fields, said as a person would: the merchant category is picked
 * from a list (its 4-digit pattern means nothing to the reader).
 */
function friendlier(errs: Record<string, string>): Record<string, string> {
  const out = { ...errs };
  if (out.mcc && /format|Required/.test(out.mcc)) out.mcc = 'Choose a merchant category';
  for (const [key, noun] of [
    ['ubos', 'owner'],
    ['directors', 'director'],
    ['signatories', 'signatory'],
  ] as const)
    if (out[key] && /valid (null|array)|at least/.test(out[key])) out[key] = `Add at least one ${noun}`;
  return out;
}

function OpcoEditor({ initial }: { initial: OpcoRecord | null }) {
  const { can, me } = useSession();
  const navigate = useNavigate();
  const [d, setD] = useState<Draft>(() => (initial ? fromApi(initial) : blank));
  const create = useApiMutation('post', '/opcos', { invalidate: ['/opcos'] });
  const update = useApiMutation('patch', '/opcos/{opco_id}', { invalidate: ['/opcos'] });
  const save = initial ? update : create;
  const errs = friendlier(fieldErrorsOf(save.error));
  const set = (k: keyof Draft) => (v: string) => setD((cur) => ({ ...cur, [k]: v }));
  const text = (
    k: keyof Draft & keyof typeof errs,
    label: string,
    extra: Partial<Parameters<typeof Input>[0]> = {},
  ) => <Input label={label} name={k} value={d[k] as string} onChange={set(k)} error={errs[k]} {...extra} />;
  const sole = d.opco_type === 'licensed_tpp_sole_trader';
  const title = initial ? `Edit opco ${initial.name}` : 'New opco';
  if (!can('opcos.write')) return <Page title={title}>Your role cannot create or edit opcos.</Page>;

  return (
    <Page title={title}>
      <p>
        <Link to={initial ? `/opcos/${initial.opco_id}` : '/opcos'}>
          {initial ? 'Back to the opco' : 'Back to opcos and projects'}
        </Link>
      </p>
      <p className="hint">
        An opco is the operating company payments are taken for. It is saved as a draft; nothing goes to the
        payment network until you submit it.
      </p>
      {me?.environment === 'sandbox' && !initial ? (
        <button type="button" className="secondary" onClick={() => setD(testValues)}>
          Fill with test values
        </button>
      ) : null}
      <form
        aria-label="Opco"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const body = toBody(d);
          const done = { onSuccess: (saved: OpcoRecord) => navigate(`/opcos/${saved.opco_id}`) };
          if (initial) update.mutate({ path: { opco_id: initial.opco_id }, body }, done);
          else create.mutate({ body }, done);
        }}
      >
        <Group title="Company">
          <Choice
            label="Legal form"
            name="opco_type"
            value={d.opco_type}
            onChange={set('opco_type')}
            options={OPCO_TYPES}
            error={errs.opco_type}
          />
          {text('name', 'Opco name', { required: true })}
          {text('legal_entity_name', 'Full legal entity name (optional)')}
          {text('registration_number', 'Company registration number', { required: true })}
          {text('country_code', 'Country code', {
            required: true,
            hint: 'Where the merchant operates, for example GB or DE.',
          })}
          {text('domain', 'Web domain', { required: true, placeholder: 'shop.example.com' })}
          <Choice
            label="Primary use case"
            name="primary_use_case"
            value={d.primary_use_case}
            onChange={set('primary_use_case')}
            options={USE_CASES}
            error={errs.primary_use_case}
          />
          <MccPicker value={d.mcc} onChange={set('mcc')} error={errs.mcc} />
          {text('mcc_subtype', 'MCC sub-type (optional)')}
        </Group>
        <Group title="Settlement account">
          {text('settlement_iban', 'Settlement IBAN', {
            required: true,
            placeholder: 'GB33BUKB20201555555555',
          })}
          {text('settlement_bic', 'Settlement BIC (optional)')}
        </Group>
        <Group title="Network and branding">
          {text('parent_sub_tpp_id', 'Parent Sub-TPP ID (optional)', {
            hint: 'Only when this opco sits under another one in a hierarchy.',
          })}
          <LogoInput value={d.logo} onChange={set('logo')} error={errs.logo} />
        </Group>
        {sole ? (
          <Group title="Sole trader">
            <Input
              label="Full name"
              name="sole_trader.fullName"
              value={d.st_fullName}
              onChange={set('st_fullName')}
              error={errs['sole_trader.fullName'] ?? errs.sole_trader}
              required
            />
            <Input
              label="Address"
              name="sole_trader.address"
              value={d.st_address}
              onChange={set('st_address')}
              error={errs['sole_trader.address']}
              required
            />
            <Input
              label="Date of birth"
              name="sole_trader.dateOfBirth"
              type="date"
              value={d.st_dateOfBirth}
              onChange={set('st_dateOfBirth')}
              error={errs['sole_trader.dateOfBirth']}
              required
            />
          </Group>
        ) : (
          <>
            <PeopleRows
              title="Ultimate beneficial owners"
              noun="owner"
              field="ubos"
              rows={d.ubos}
              onChange={(ubos) => setD((cur) => ({ ...cur, ubos }))}
              errors={errs}
              ownership
            />
            <PeopleRows
              title="Directors"
              noun="director"
              field="directors"
              rows={d.directors}
              onChange={(directors) => setD((cur) => ({ ...cur, directors }))}
              errors={errs}
            />
            <PeopleRows
              title="Signatories"
              noun="signatory"
              field="signatories"
              rows={d.signatories}
              onChange={(signatories) => setD((cur) => ({ ...cur, signatories }))}
              errors={errs}
            />
          </>
        )}
        <FormError error={save.error} fields={errs} />
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : initial ? 'Save draft' : 'Create draft opco'}
        </button>
      </form>
    </Page>
  );
}

function LogoInput(p: { value: string; onChange(v: string): void; error?: string }) {
  return (
    <div className={p.error ? 'field invalid' : 'field'}>
      <label htmlFor="opco-logo">Logo (optional)</label>
      <input
        id="opco-logo"
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        aria-describedby="opco-logo-hint"
        aria-invalid={p.error ? true : undefined}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          p.onChange(file ? await readAsDataUrl(file) : '');
        }}
      />
      <small id="opco-logo-hint" className="hint">
        {p.value ? 'A logo is attached. ' : ''}PNG, JPEG, GIF or WebP, 512 KiB at most.
      </small>
      {p.value ? (
        <button type="button" className="secondary" onClick={() => p.onChange('')}>
          Remove logo
        </button>
      ) : null}
      {p.error ? <small className="field-error">{p.error}</small> : null}
    </div>
  );
}
