/**
 * Checks a TRP IVMS 101 payload against the copied IVMS 101 JSON schema (SOURCE.md beside this
 * file): each of TRP's camelCase entities against the schema's definition of that entity, then the
 * IVMS 101 constraints C1/C4, C7, C8/C9 the schema cannot express.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';

const SCHEMA = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'ivms101.schema.json'), 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema({ ...SCHEMA, $id: 'ivms101' });

const ENTITIES: Record<string, string> = {
  originator: 'Originator',
  beneficiary: 'Beneficiary',
  originatingVASP: 'OriginatingVASP',
  beneficiaryVASP: 'BeneficiaryVASP',
};
const compiled = new Map<string, ValidateFunction>();

/** The schema errors of `ivms` (empty: valid); every TRP entity but beneficiaryVASP is required. */
export function ivmsErrors(ivms: Record<string, unknown>): string[] {
  const errors: string[] = [];
  for (const [key, def] of Object.entries(ENTITIES)) {
    if (!(key in ivms)) {
      if (key !== 'beneficiaryVASP') errors.push(`${key}: missing`);
      continue;
    }
    let v = compiled.get(def);
    if (!v) {
      v = ajv.getSchema(`ivms101#/definitions/${def}`)!;
      compiled.set(def, v);
    }
    if (!v(ivms[key])) for (const e of v.errors ?? []) errors.push(`${key}${e.instancePath}: ${e.message}`);
  }
  for (const key of Object.keys(ivms)) if (!(key in ENTITIES)) errors.push(`${key}: not an IVMS 101 entity`);
  return [...errors, ...constraintErrors(ivms)];
}

type Obj = Record<string, any>;
const LEGAL_ID_TYPES = new Set(['RAID', 'MISC', 'LEIX', 'TXID']);

/**
 * IVMS 101 constraints the JSON schema cannot say (as TRISA's ivms101 validate.go checks them):
 * C7 an address has an address line, or a street name with a building number or name; C1/C4 a
 * natural originator has an address, a customer id, a national id or date and place of birth; C8/C9
 * a legal person's identifier is RAID/MISC/LEIX/TXID, without a country of issue, with a
 * registration authority unless LEIX.
 */
function constraintErrors(ivms: Obj): string[] {
  const errors: string[] = [];
  const people = [
    ...((ivms.originator?.originatorPersons ?? []) as Obj[]).map(
      (p, i) => [`originator/${i}`, p, true] as const,
    ),
    ...((ivms.beneficiary?.beneficiaryPersons ?? []) as Obj[]).map(
      (p, i) => [`beneficiary/${i}`, p, false] as const,
    ),
    ['originatingVASP', ivms.originatingVASP?.originatingVASP ?? {}, false] as const,
  ];
  for (const [at, p, isOriginator] of people) {
    const np = p.naturalPerson as Obj | undefined;
    const lp = p.legalPerson as Obj | undefined;
    const person = np ?? lp ?? {};
    for (const a of (person.geographicAddress ?? []) as Obj[])
      if (!(a.addressLine?.length > 0) && !(a.streetName && (a.buildingNumber || a.buildingName)))
        errors.push(`${at}: C7 an address needs addressLine or streetName with buildingNumber/buildingName`);
    if (isOriginator && np) {
      const ok =
        (np.geographicAddress?.length ?? 0) > 0 ||
        np.customerIdentification ||
        np.nationalIdentification ||
        np.dateAndPlaceOfBirth;
      if (!ok)
        errors.push(
          `${at}: C1 the originator needs an address, customer id, national id or birth date and place`,
        );
    }
    const id = lp?.nationalIdentification as Obj | undefined;
    if (id) {
      if (!LEGAL_ID_TYPES.has(id.nationalIdentifierType))
        errors.push(`${at}: C8 legal person identifier type`);
      if (id.countryOfIssue) errors.push(`${at}: C9 no countryOfIssue for a legal person`);
      if (id.nationalIdentifierType !== 'LEIX' && !id.registrationAuthority)
        errors.push(`${at}: C9 registrationAuthority required unless LEIX`);
    }
  }
  return errors;
}
