/**
 * TRP's vocabulary <-> the port's, in one place (docs/vendors/trp.md cites each field):
 * - the spec's Party (src/modules/travel-rule) <-> IVMS 101 (2020 edition, as TRP 3.x carries it:
 *   `originator`, `beneficiary`, `originatingVASP`, camelCase fields);
 * - our decimal amounts <-> TRP's integer amount in the asset's lowest denomination;
 * - the three TRP messages: transfer inquiry, inquiry resolution (`approved` / `rejected`),
 *   transfer confirmation (`txid` / `canceled`).
 * Nothing is invented: a Party field IVMS cannot carry without a partner field we do not have
 * (a date of birth without its place) is left out, and documented.
 */
import type { TransferMessage } from '../port';

export const TRP_API_VERSION = '3.2.1';

// ---- IVMS 101 ------------------------------------------------------------------------------

export type NationalIdentifierType =
  | 'ARNU'
  | 'CCPT'
  | 'RAID'
  | 'DRLC'
  | 'FIIN'
  | 'TXID'
  | 'SOCS'
  | 'IDCD'
  | 'LEIX'
  | 'MISC';
export const NATIONAL_ID_TYPES: readonly NationalIdentifierType[] = [
  'ARNU',
  'CCPT',
  'RAID',
  'DRLC',
  'FIIN',
  'TXID',
  'SOCS',
  'IDCD',
  'LEIX',
  'MISC',
];

/** Our free-text identifier types that name an IVMS code; anything else is IVMS `MISC` (unspecified). */
const ID_ALIASES: Record<string, NationalIdentifierType> = {
  passport: 'CCPT',
  drivers_license: 'DRLC',
  driving_licence: 'DRLC',
  tax_id: 'TXID',
  social_security: 'SOCS',
  national_id: 'IDCD',
  identity_card: 'IDCD',
  id_card: 'IDCD',
  lei: 'LEIX',
  alien_registration: 'ARNU',
  registration_authority: 'RAID',
  foreign_investment: 'FIIN',
};

export function ivmsIdType(type: string): NationalIdentifierType {
  const upper = type.trim().toUpperCase();
  const code = NATIONAL_ID_TYPES.find((c) => c === upper);
  return code ?? ID_ALIASES[type.trim().toLowerCase()] ?? 'MISC';
}

export interface IvmsAddress {
  addressType: 'HOME' | 'BIZZ' | 'GEOG';
  addressLine?: string[];
  postCode?: string;
  townName: string;
  country: string;
}
export interface IvmsNationalId {
  nationalIdentifier: string;
  nationalIdentifierType: NationalIdentifierType;
  countryOfIssue?: string;
}
export interface IvmsNaturalPerson {
  name: {
    nameIdentifier: { primaryIdentifier: string; secondaryIdentifier?: string; nameIdentifierType: 'LEGL' }[];
  };
  geographicAddress?: IvmsAddress[];
  nationalIdentification?: IvmsNationalId;
  customerIdentification?: string;
  dateAndPlaceOfBirth?: { dateOfBirth: string; placeOfBirth: string };
}
export interface IvmsLegalPerson {
  name: { nameIdentifier: { legalPersonName: string; legalPersonNameIdentifierType: 'LEGL' }[] };
  geographicAddress?: IvmsAddress[];
  nationalIdentification?: IvmsNationalId;
  customerNumber?: string;
  countryOfRegistration?: string;
}
export type IvmsPerson = { naturalPerson: IvmsNaturalPerson } | { legalPerson: IvmsLegalPerson };

export interface Ivms101 {
  originator: { originatorPersons: IvmsPerson[]; accountNumber: string[] };
  beneficiary: { beneficiaryPersons: IvmsPerson[]; accountNumber: string[] };
  originatingVASP: { originatingVASP: { legalPerson: IvmsLegalPerson } };
}

const s = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function address(p: Record<string, unknown>, type: 'HOME' | 'BIZZ'): IvmsAddress[] | undefined {
  const a = obj(p.address);
  const street = s(a?.street);
  const town = s(a?.city);
  const country = s(a?.country);
  // IVMS 101 (C7) needs an address line (or a street name with a building); our street is free
  // text, so it goes as the address line. Without a street, a town and a country we send none.
  if (!a || !street || !town || !country) return undefined;
  return [
    {
      addressType: type,
      addressLine: [street],
      ...(s(a.postal_code) ? { postCode: s(a.postal_code) } : {}),
      townName: town,
      country,
    },
  ];
}

function nationalId(p: Record<string, unknown>): IvmsNationalId | undefined {
  const n = obj(p.national_identifier);
  const value = s(n?.value);
  if (!n || !value) return undefined;
  const type = ivmsIdType(s(n.type) ?? '');
  // A legal person's identifier is RAID/MISC/LEIX/TXID with a registration authority unless LEIX
  // (IVMS 101 C8/C9), and never a country of issue; we have no registration authority, so a legal
  // person carries its LEI only.
  if (p.type === 'legal')
    return type === 'LEIX' ? { nationalIdentifier: value, nationalIdentifierType: 'LEIX' } : undefined;
  return {
    nationalIdentifier: value,
    nationalIdentifierType: type,
    // An LEI names its own issuer: no country of issue.
    ...(type !== 'LEIX' && s(n.country) ? { countryOfIssue: s(n.country) } : {}),
  };
}

/**
 * Why the originator cannot go out as IVMS 101 (C1/C4: an originator needs an address, a customer
 * id, a national identifier or a date and place of birth), or null.
 */
export function originatorProblem(originator: Record<string, unknown>): string | null {
  const person = toIvmsPerson(originator);
  const p = 'naturalPerson' in person ? person.naturalPerson : person.legalPerson;
  const has =
    p.geographicAddress ||
    p.nationalIdentification ||
    ('customerIdentification' in p && p.customerIdentification) ||
    ('customerNumber' in p && p.customerNumber) ||
    ('dateAndPlaceOfBirth' in p && p.dateAndPlaceOfBirth);
  return has ? null : ORIGINATOR_INCOMPLETE;
}

export const ORIGINATOR_INCOMPLETE =
  'The originator needs an address with street, city and country, a customer_id, a national_identifier (for a legal person: its LEI) or date_of_birth with place_of_birth for the TRP network (IVMS 101)';

/** One of our parties as an IVMS person. */
export function toIvmsPerson(p: Record<string, unknown>): IvmsPerson {
  const id = nationalId(p);
  if (p.type === 'legal')
    return {
      legalPerson: {
        name: {
          nameIdentifier: [{ legalPersonName: s(p.legal_name) ?? '', legalPersonNameIdentifierType: 'LEGL' }],
        },
        ...(address(p, 'BIZZ') ? { geographicAddress: address(p, 'BIZZ') } : {}),
        ...(id ? { nationalIdentification: id } : {}),
        ...(s(p.customer_id) ? { customerNumber: s(p.customer_id) } : {}),
      },
    };
  const dob = s(p.date_of_birth);
  const pob = s(p.place_of_birth);
  return {
    naturalPerson: {
      name: {
        nameIdentifier: [
          {
            primaryIdentifier: s(p.last_name) ?? '',
            ...(s(p.first_name) ? { secondaryIdentifier: s(p.first_name) } : {}),
            nameIdentifierType: 'LEGL',
          },
        ],
      },
      ...(address(p, 'HOME') ? { geographicAddress: address(p, 'HOME') } : {}),
      ...(id ? { nationalIdentification: id } : {}),
      ...(s(p.customer_id) ? { customerIdentification: s(p.customer_id) } : {}),
      // IVMS carries the date of birth only with the place of birth.
      ...(dob && pob ? { dateAndPlaceOfBirth: { dateOfBirth: dob, placeOfBirth: pob } } : {}),
    },
  };
}

/** The IVMS 101 payload of an inquiry. */
export function toIvms(msg: Pick<TransferMessage, 'originator' | 'beneficiary' | 'originatorVasp'>): Ivms101 {
  const vasp = msg.originatorVasp;
  return {
    originator: {
      originatorPersons: [toIvmsPerson(msg.originator)],
      accountNumber: [String(msg.originator.account_number ?? '')],
    },
    beneficiary: {
      beneficiaryPersons: [toIvmsPerson(msg.beneficiary)],
      accountNumber: [String(msg.beneficiary.account_number ?? '')],
    },
    originatingVASP: {
      originatingVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: vasp.name, legalPersonNameIdentifierType: 'LEGL' }] },
          ...(vasp.lei
            ? { nationalIdentification: { nationalIdentifier: vasp.lei, nationalIdentifierType: 'LEIX' } }
            : {}),
          ...(vasp.country ? { countryOfRegistration: vasp.country } : {}),
        },
      },
    },
  };
}

/** The street of an IVMS address: its address lines, else its street name and building number. */
function streetOf(a: Record<string, unknown>): string | undefined {
  const lines = Array.isArray(a.addressLine) ? a.addressLine.map(s).filter(Boolean) : [];
  if (lines.length > 0) return lines.join(', ');
  const street = s(a.streetName);
  return street && s(a.buildingNumber) ? `${street} ${s(a.buildingNumber)}` : street;
}

/** An IVMS person as one of our parties (fields IVMS has and we do not are dropped). */
export function fromIvmsPerson(person: unknown, accountNumber: string | undefined): Record<string, unknown> {
  const p = obj(person);
  const np = obj(p?.naturalPerson);
  const lp = obj(p?.legalPerson);
  const src = np ?? lp ?? {};
  const addr = obj((Array.isArray(src.geographicAddress) ? src.geographicAddress : [])[0]);
  const id = obj(src.nationalIdentification);
  const common: Record<string, unknown> = {
    account_number: accountNumber ?? '',
    ...(addr && s(addr.townName) && s(addr.country)
      ? {
          address: {
            ...(streetOf(addr) ? { street: streetOf(addr) } : {}),
            city: s(addr.townName),
            ...(s(addr.postCode) ? { postal_code: s(addr.postCode) } : {}),
            country: s(addr.country),
          },
        }
      : {}),
    ...(id && s(id.nationalIdentifier)
      ? {
          national_identifier: {
            type: s(id.nationalIdentifierType) ?? 'MISC',
            value: s(id.nationalIdentifier),
            ...(s(id.countryOfIssue) ? { country: s(id.countryOfIssue) } : {}),
          },
        }
      : {}),
  };
  const names = Array.isArray(obj(src.name)?.nameIdentifier)
    ? (obj(src.name)!.nameIdentifier as unknown[])
    : [];
  const first = obj(names[0]);
  if (lp)
    return {
      type: 'legal',
      legal_name: s(first?.legalPersonName) ?? '',
      ...common,
      ...(s(lp.customerNumber) ? { customer_id: s(lp.customerNumber) } : {}),
    };
  const birth = obj(np?.dateAndPlaceOfBirth);
  return {
    type: 'natural',
    first_name: s(first?.secondaryIdentifier) ?? '',
    last_name: s(first?.primaryIdentifier) ?? '',
    ...common,
    ...(s(birth?.dateOfBirth) ? { date_of_birth: s(birth?.dateOfBirth) } : {}),
    ...(s(birth?.placeOfBirth) ? { place_of_birth: s(birth?.placeOfBirth) } : {}),
    ...(s(np?.customerIdentification) ? { customer_id: s(np?.customerIdentification) } : {}),
  };
}

/** The originating VASP's legal name and LEI, when the payload names them. */
export function originatingVaspOf(ivms: Record<string, unknown>): {
  name: string | null;
  lei: string | null;
  country: string | null;
} {
  const lp = obj(obj(obj(ivms.originatingVASP)?.originatingVASP)?.legalPerson);
  const names = Array.isArray(obj(lp?.name)?.nameIdentifier)
    ? (obj(lp!.name)!.nameIdentifier as unknown[])
    : [];
  const id = obj(lp?.nationalIdentification);
  return {
    name: s(obj(names[0])?.legalPersonName) ?? null,
    lei: id && s(id.nationalIdentifierType) === 'LEIX' ? (s(id.nationalIdentifier) ?? null) : null,
    country: s(lp?.countryOfRegistration) ?? null,
  };
}

// ---- Amounts -------------------------------------------------------------------------------

export class AmountError extends Error {}

/** `1.5` with 8 decimals -> `150000000`; more fraction digits than the asset has is an error. */
export function toBaseUnits(amount: string, decimals: number): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!m) throw new AmountError(`not a decimal amount: ${amount}`);
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) throw new AmountError(`more than ${decimals} decimals`);
  const digits = `${m[1]}${frac.padEnd(decimals, '0')}`.replace(/^0+(?=\d)/, '');
  return digits;
}

/** `150000000` with 8 decimals -> `1.5`. */
export function fromBaseUnits(units: string, decimals: number): string {
  if (!/^\d+$/.test(units)) throw new AmountError('not an integer amount');
  const padded = units.padStart(decimals + 1, '0');
  const int = padded.slice(0, padded.length - decimals).replace(/^0+(?=\d)/, '');
  const frac = padded.slice(padded.length - decimals).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

// ---- Messages ------------------------------------------------------------------------------

export interface Inquiry {
  asset: { dti: string };
  /** Digits of the integer amount in the lowest denomination (a JSON number on the wire). */
  amount: string;
  callback: string;
  IVMS101: Ivms101 | Record<string, unknown>;
}

/**
 * The inquiry's JSON. TRP's amount is a JSON integer in the lowest denomination, which can exceed
 * 2^53 (wei): it is written as the exact digits, never through a JS number.
 */
export function inquiryJson(q: Inquiry): string {
  const marker = '"__trp_amount__"';
  return JSON.stringify({
    asset: q.asset,
    amount: '__trp_amount__',
    callback: q.callback,
    IVMS101: q.IVMS101,
  }).replace(marker, q.amount);
}

/** Reads an inquiry body; the top-level integer amount is kept as its exact digits. Null when malformed. */
export function parseInquiry(raw: string): Inquiry | null {
  // The top-level "amount" (IVMS has no field of that name) as a string before JSON.parse sees it.
  const quoted = raw.replace(/("amount"\s*:\s*)(\d+)(\s*[,}])/, '$1"$2"$3');
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(quoted) as Record<string, unknown>;
  } catch {
    return null;
  }
  const asset = obj(b.asset);
  if (!asset || typeof asset.dti !== 'string') return null;
  if (typeof b.amount !== 'string' || !/^\d+$/.test(b.amount) || /^0+$/.test(b.amount)) return null;
  if (typeof b.callback !== 'string') return null;
  const ivms = obj(b.IVMS101);
  if (!ivms) return null;
  return { asset: { dti: asset.dti }, amount: b.amount, callback: b.callback, IVMS101: ivms };
}

export type Resolution = { approved: { address: string; callback: string } } | { rejected: string };

export function parseResolution(raw: string): Resolution | null {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!b || typeof b !== 'object') return null;
  const approved = obj(b.approved);
  if (approved && !('rejected' in b)) {
    if (typeof approved.address !== 'string' || typeof approved.callback !== 'string') return null;
    return { approved: { address: approved.address, callback: approved.callback } };
  }
  if (typeof b.rejected === 'string' && !('approved' in b)) return { rejected: b.rejected };
  return null;
}

export type Confirmation = { txid: string } | { canceled: string | null };

export function parseConfirmation(raw: string): Confirmation | null {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof b.txid === 'string' && b.txid && !('canceled' in b)) return { txid: b.txid };
  if ('canceled' in b && !('txid' in b) && (b.canceled === null || typeof b.canceled === 'string'))
    return { canceled: b.canceled as string | null };
  return null;
}
