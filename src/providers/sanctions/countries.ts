/**
 * Country names as the lists spell them (OFAC, UK and UN give names; the EU gives ISO codes) to
 * ISO 3166 alpha-2. The English region names come from the runtime's CLDR data (Intl.DisplayNames);
 * the list-specific spellings below were read in the lists' files (docs/vendors/sanctions-lists.md).
 * A name not known here is dropped: the country then neither raises nor lowers a score.
 */

const key = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim();

const ALIASES: Record<string, string> = {
  'korea north': 'KP',
  'north korea': 'KP',
  'democratic people s republic of korea': 'KP',
  'korea democratic people s republic of': 'KP',
  'korea south': 'KR',
  'republic of korea': 'KR',
  'democratic republic of the congo': 'CD',
  'congo democratic republic': 'CD',
  'congo democratic republic of the': 'CD',
  'republic of the congo': 'CG',
  burma: 'MM',
  myanmar: 'MM',
  'iran islamic republic of': 'IR',
  'syrian arab republic': 'SY',
  'russian federation': 'RU',
  'venezuela bolivarian republic of': 'VE',
  'bolivia plurinational state of': 'BO',
  'lao people s democratic republic': 'LA',
  'united republic of tanzania': 'TZ',
  'republic of moldova': 'MD',
  turkiye: 'TR',
  turkey: 'TR',
  'viet nam': 'VN',
  'palestinian territories': 'PS',
  'state of palestine': 'PS',
  'west bank': 'PS',
  gaza: 'PS',
  'ivory coast': 'CI',
  'cote d ivoire': 'CI',
  'united states of america': 'US',
  'united kingdom of great britain and northern ireland': 'GB',
  'bosnia herzegovina': 'BA',
  'the gambia': 'GM',
  'czech republic': 'CZ',
  'north macedonia': 'MK',
  'the former yugoslav republic of macedonia': 'MK',
};

/** Withdrawn or exceptionally reserved codes that CLDR names after their successor (SU "Russia", BU "Myanmar"…). */
const NOT_CURRENT = new Set([
  'AN',
  'BU',
  'CS',
  'DD',
  'EU',
  'EZ',
  'FX',
  'NT',
  'QO',
  'SU',
  'TP',
  'UK',
  'UN',
  'YU',
  'ZR',
]);

let table: Map<string, string> | null = null;

function build(): Map<string, string> {
  const map = new Map<string, string>();
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  for (let a = 65; a <= 90; a++)
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = names.of(code);
      if (name && name !== code && !NOT_CURRENT.has(code)) map.set(key(name), code);
    }
  for (const [name, code] of Object.entries(ALIASES)) map.set(key(name), code);
  return map;
}

/** ISO alpha-2 for a list's country name (or an alpha-2 code), null when unknown. */
export function countryCode(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return null; // the EU's "00": unknown
  if (/^[A-Za-z]{2}$/.test(v)) return v.toUpperCase();
  table ??= build();
  return table.get(key(v)) ?? null;
}
