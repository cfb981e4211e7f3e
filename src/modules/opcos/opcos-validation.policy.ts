/**
 * Rules of an opco body beyond its schema: the type-dependent required parts (400, the spec's
 * messages), and field checks that need code (422 with the field's loc): IBAN and BIC checksums,
 * the MCC catalogue, the logo being a real base64 image.
 */
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { badRequest, ValidationError, type ValidationIssue } from '../../shared/errors';
import { M } from '../../shared/messages';
import { isKnownMcc } from './mcc-catalogue.policy';
import type { OpcoType } from './opcos.schemas';

export const MAX_LOGO_BYTES = 512 * 1024;

interface TypeDependentParts {
  opco_type: OpcoType | null;
  sole_trader: unknown;
  ubos: unknown[] | null;
  directors: unknown[] | null;
  signatories: unknown[] | null;
}

/** The spec's 400s: null opco_type, missing sole_trader, missing ubos/directors/signatories. */
export function checkTypeRules(o: TypeDependentParts): OpcoType {
  if (o.opco_type === null) throw badRequest(M.opcoTypeNull);
  if (o.opco_type === 'licensed_tpp_sole_trader') {
    if (!o.sole_trader) throw badRequest(M.soleTraderRequired);
  } else {
    const missing = (v: unknown[] | null) => !v || v.length === 0;
    if (missing(o.ubos) || missing(o.directors) || missing(o.signatories)) throw badRequest(M.ubosRequired);
  }
  return o.opco_type;
}

const IMAGE_SIGNATURES: { mime: string; test: (b: Buffer) => boolean }[] = [
  {
    mime: 'image/png',
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { mime: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mime: 'image/gif', test: (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')) },
  {
    mime: 'image/webp',
    test: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

/** Returns the problem with a logo, or null when it is a base64 PNG, JPEG, GIF or WebP image. */
export function logoProblem(logo: string): string | null {
  let data = logo.trim();
  let declared: string | null = null;
  const m = /^data:(image\/[a-z0-9.+-]+);base64,/i.exec(data);
  if (m) {
    declared = m[1]!.toLowerCase();
    data = data.slice(m[0].length);
  }
  data = data.replace(/\s+/g, '');
  if (data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    return 'Logo must be a base64-encoded image';
  }
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length > MAX_LOGO_BYTES) return `Logo must be at most ${MAX_LOGO_BYTES / 1024} KiB`;
  const kind = IMAGE_SIGNATURES.find((s) => s.test(bytes));
  if (!kind) return 'Logo must be a PNG, JPEG, GIF or WebP image';
  if (declared && declared !== kind.mime && !(declared === 'image/jpg' && kind.mime === 'image/jpeg')) {
    return `Logo data is ${kind.mime} but is declared as ${declared}`;
  }
  return null;
}

export interface FieldValues {
  settlement_iban?: string;
  settlement_bic?: string | null;
  mcc?: string;
  logo?: string | null;
}

/** Field checks (422); returns the normalized IBAN and BIC. */
export function checkFields(v: FieldValues): { iban?: string; bic?: string | null } {
  const issues: ValidationIssue[] = [];
  const out: { iban?: string; bic?: string | null } = {};
  if (v.settlement_iban !== undefined) {
    const iban = electronicFormatIBAN(v.settlement_iban) ?? '';
    if (!isValidIBAN(iban)) {
      issues.push({ loc: ['body', 'settlement_iban'], msg: 'Invalid IBAN', type: 'value_error' });
    }
    out.iban = iban;
  }
  if (v.settlement_bic !== undefined) {
    const bic = v.settlement_bic === null ? null : v.settlement_bic.replace(/\s+/g, '').toUpperCase();
    if (bic !== null && !isValidBIC(bic)) {
      issues.push({ loc: ['body', 'settlement_bic'], msg: 'Invalid BIC', type: 'value_error' });
    }
    out.bic = bic;
  }
  if (v.mcc !== undefined && !isKnownMcc(v.mcc)) {
    issues.push({ loc: ['body', 'mcc'], msg: 'Unknown merchant category code', type: 'value_error' });
  }
  if (v.logo !== undefined && v.logo !== null) {
    const problem = logoProblem(v.logo);
    if (problem) issues.push({ loc: ['body', 'logo'], msg: problem, type: 'value_error' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}
