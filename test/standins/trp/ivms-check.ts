/**
 * Checks a TRP IVMS 101 payload against the copied IVMS 101 JSON schema (SOURCE.md beside this
 * file): each of TRP's camelCase entities against the schema's definition of that entity.
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
  return errors;
}
