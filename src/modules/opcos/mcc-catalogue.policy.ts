/**
 * The ISO 18245 merchant category code catalogue (981 codes, 0742 to 9950), shipped as data in
 * mcc-codes.json. Source: the MIT-licensed npm package `mcc` 2.2.0 (its `mcc_codes.json`, itself
 * compiled from the Visa merchant data standards, USDA and IRS lists); `description` is its
 * `edited_description`.
 */
import catalogue from './mcc-codes.json' with { type: 'json' };

export interface MccCode {
  id: string;
  description: string;
}

export const MCC_CODES: readonly MccCode[] = catalogue;
const BY_ID = new Map(MCC_CODES.map((c) => [c.id, c]));

export function isKnownMcc(code: string): boolean {
  return BY_ID.has(code);
}

export function findMcc(code: string): MccCode | undefined {
  return BY_ID.get(code);
}
