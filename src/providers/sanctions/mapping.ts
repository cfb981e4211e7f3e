/**
 * The published formats, read into list entries (docs/vendors/sanctions-lists.md cites the source of
 * every element used here). Parsing is strict: a file that is not well-formed XML (a truncated
 * download), has the wrong root, disagrees with its own record count (OFAC) or has too many records
 * without an id or a name throws, so the loader keeps the last good snapshot.
 *
 * - OFAC SDN.XML and CONSOLIDATED.XML (Sanctions List Service): `sdnList` > `sdnEntry` (`uid`,
 *   `firstName`, `lastName`, `sdnType`, `akaList/aka` with `category` strong|weak,
 *   `dateOfBirthList/dateOfBirthItem/dateOfBirth`, `nationalityList`, `citizenshipList`,
 *   `addressList/address/country`); `publshInformation/Publish_Date` (MM/DD/YYYY) and `Record_Count`.
 * - EU FSF XML 1.1: `export@generationDate` > `sanctionEntity@logicalId` (`subjectType@code`,
 *   `nameAlias@wholeName|firstName|middleName|lastName@strong`, `birthdate@birthdate|year`,
 *   `citizenship@countryIso2Code`, `address@countryIso2Code`).
 * - UK Sanctions List XML (FCDO): `Designations` (`DateGenerated` dd/mm/yyyy) > `Designation`
 *   (`UniqueID`, `IndividualEntityShip`, `Names/Name` with `Name1`-`Name6`, `NameType`,
 *   `AliasStrength`; `NonLatinNames/NonLatinName/NameNonLatinScript`; `DOB`; `Nationality`;
 *   `AddressCountry`).
 * - UN SC consolidated XML: `CONSOLIDATED_LIST@dateGenerated` > `INDIVIDUALS/INDIVIDUAL` and
 *   `ENTITIES/ENTITY` (`DATAID`, `FIRST_NAME`-`FOURTH_NAME`, `NAME_ORIGINAL_SCRIPT`,
 *   `*_ALIAS` with `QUALITY` Good|Low and `ALIAS_NAME`, `INDIVIDUAL_DATE_OF_BIRTH` with
 *   `TYPE_OF_DATE` EXACT|APPROXIMATELY|BETWEEN, `DATE`, `YEAR`, `FROM_YEAR`/`TO_YEAR`, `NATIONALITY/VALUE`, `*_ADDRESS/COUNTRY`).
 */
import { SaxesParser } from 'saxes';
import { countryCode } from './countries';
import type { EntryKind, ListEntry, ListName, ParsedList, SanctionsListId } from './port';

export class ListFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListFormatError';
  }
}

interface XNode {
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
  text: string;
}

const local = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * Streams the document and hands every element named in `records` (as a small tree) to `onRecord`;
 * elements outside records are given to `onTop` when they close directly under the root or one level
 * below (publication dates and counts). Throws ListFormatError when the XML is not well-formed.
 */
function streamRecords(
  xml: string,
  root: string,
  records: ReadonlySet<string>,
  onRecord: (node: XNode) => void,
  onTop: (node: XNode) => void,
): Record<string, string> {
  const parser = new SaxesParser({ xmlns: false, position: false });
  const stack: XNode[] = [];
  let capture: XNode[] | null = null; // the open elements of the record being read
  const topOpen: XNode[] = []; // open elements outside records, one or two levels under the root
  let rootAttrs: Record<string, string> | null = null;
  let error: Error | null = null;
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.on('opentag', (tag) => {
    const node: XNode = {
      name: local(tag.name),
      attrs: tag.attributes as Record<string, string>,
      children: [],
      text: '',
    };
    if (stack.length === 0) {
      if (node.name !== root) throw new ListFormatError(`expected a <${root}> document, got <${node.name}>`);
      rootAttrs = node.attrs;
    }
    if (capture) {
      capture[capture.length - 1]!.children.push(node);
      capture.push(node);
    } else if (records.has(node.name)) capture = [node];
    stack.push(node);
    if (!capture && stack.length >= 2 && stack.length <= 3) topOpen.push(node);
  });
  parser.on('text', (t) => {
    if (capture) capture[capture.length - 1]!.text += t;
    else if (topOpen.length > 0) topOpen[topOpen.length - 1]!.text += t;
  });
  parser.on('closetag', () => {
    const node = stack.pop()!;
    if (capture) {
      capture.pop();
      if (capture.length === 0) {
        capture = null;
        onRecord(node);
      }
      return;
    }
    if (topOpen[topOpen.length - 1] === node) {
      topOpen.pop();
      const parent = topOpen[topOpen.length - 1];
      if (parent) parent.children.push(node);
      else onTop(node);
    }
  });
  try {
    parser.write(xml).close();
  } catch (e) {
    if (e instanceof ListFormatError) throw e;
    throw new ListFormatError(`not well-formed XML: ${(e as Error).message}`);
  }
  if (error) throw new ListFormatError(`not well-formed XML: ${(error as Error).message}`);
  if (!rootAttrs) throw new ListFormatError(`expected a <${root}> document, got an empty file`);
  return rootAttrs;
}

const kids = (n: XNode | undefined, name: string) => (n ? n.children.filter((c) => c.name === name) : []);
const kid = (n: XNode | undefined, name: string) => n?.children.find((c) => c.name === name);
const txt = (n: XNode | undefined) => (n ? n.text.replace(/\s+/g, ' ').trim() : '');
const kidText = (n: XNode | undefined, name: string) => txt(kid(n, name));

/** Every descendant named `name` (depth first). */
function all(n: XNode, name: string, out: XNode[] = []): XNode[] {
  for (const c of n.children) {
    if (c.name === name) out.push(c);
    all(c, name, out);
  }
  return out;
}

const joinName = (...parts: string[]) =>
  parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join(' ');

const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

/** How far either side of its year an approximate date of birth reaches ("circa", UN APPROXIMATELY). */
export const CIRCA_YEARS = 2;

/** A window of years, inclusive, as stored: `1958/1962`. */
export const yearWindow = (from: number, to: number): string[] =>
  Number.isInteger(from) && Number.isInteger(to) && from > 1000 && to >= from && to - from <= 60
    ? [from === to ? String(from) : `${from}/${to}`]
    : [];

/** A date of birth written as approximate: the window of years around it. */
function circa(dates: string[]): string[] {
  return dates.flatMap((d) => {
    const y = Number(d.slice(0, 4));
    return d.includes('/') ? [d] : yearWindow(y - CIRCA_YEARS, y + CIRCA_YEARS);
  });
}

/**
 * Dates of birth as the lists write them: `12 Jan 1960`, `Jan 1960`, `1960`, `1960-01-12`,
 * `12/01/1960` (day first), `00/00/1960`, and the approximate ones: `circa 1960` (a window of
 * CIRCA_YEARS either side, `1958/1962`) and `1958 to 1962` (`1958/1962`). Stored as `YYYY-MM-DD`,
 * `YYYY-MM`, `YYYY` or a window of years `YYYY/YYYY`.
 */
export function parseDob(raw: string): string[] {
  const s = raw.trim();
  if (!s) return [];
  if (/^(?:circa|ca\.?|c\.|approx(?:imately|\.)?|about)\s+/i.test(s))
    return circa(parseDob(s.replace(/^\S+\s+/, '')));
  let m = /^(\d{4})\s*(?:to|-|–)\s*(\d{4})$/.exec(s);
  if (m) return yearWindow(Number(m[1]), Number(m[2]));
  m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (m) return [`${m[1]}-${m[2]}-${m[3]}`];
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (m) {
    const [d, mo, y] = [Number(m[1]), Number(m[2]), m[3]!];
    if (d > 0 && mo > 0) return [`${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`];
    return mo > 0 ? [`${y}-${String(mo).padStart(2, '0')}`] : [y];
  }
  m = /^(\d{1,2}) ([A-Za-z]{3})[a-z]* (\d{4})$/.exec(s);
  if (m && MONTHS[m[2]!.toLowerCase()])
    return [`${m[3]}-${MONTHS[m[2]!.toLowerCase()]}-${m[1]!.padStart(2, '0')}`];
  m = /^([A-Za-z]{3})[a-z]* (\d{4})$/.exec(s);
  if (m && MONTHS[m[1]!.toLowerCase()]) return [`${m[2]}-${MONTHS[m[1]!.toLowerCase()]}`];
  m = /(\d{4})\s*(?:to|-|–)\s*(\d{4})/.exec(s);
  if (m) return yearWindow(Number(m[1]), Number(m[2]));
  return [...s.matchAll(/\b(\d{4})\b/g)].map((x) => x[1]!);
}

/**
 * An EU `birthdate` element: `circa="true"` makes its date or year a window; `yearRangeFrom` /
 * `yearRangeTo` are a window; else the full `birthdate`, or `year` with `monthOfYear` (or `month`).
 */
export function euBirthdate(a: Record<string, string>): string[] {
  const from = a.yearRangeFrom?.trim();
  const to = a.yearRangeTo?.trim();
  if (from && to) return yearWindow(Number(from), Number(to));
  const month = Number(a.monthOfYear || a.month || 0);
  const dates = a.birthdate?.trim()
    ? parseDob(a.birthdate)
    : a.year?.trim()
      ? month >= 1 && month <= 12
        ? [`${a.year.trim()}-${String(month).padStart(2, '0')}`]
        : parseDob(a.year)
      : [];
  return a.circa === 'true' ? circa(dates) : dates;
}

/**
 * A UN `INDIVIDUAL_DATE_OF_BIRTH`: `TYPE_OF_DATE` EXACT (`DATE` or `YEAR`), APPROXIMATELY (a window
 * around `DATE` or `YEAR`) or BETWEEN (`FROM_YEAR`-`TO_YEAR`).
 */
export function unDateOfBirth(type: string, date: string, year: string, from: string, to: string): string[] {
  if (from && to) return yearWindow(Number(from), Number(to));
  const dates = date ? parseDob(date) : year ? parseDob(year) : [];
  return /^approx/i.test(type) ? circa(dates) : dates;
}

const countries = (values: string[]) => [
  ...new Set(values.map(countryCode).filter((c): c is string => c !== null)),
];

function finish(entries: ListEntry[], skipped: number, publishedAt: string | null): ParsedList {
  if (entries.length === 0) throw new ListFormatError('the file has no entries');
  // A few odd records are tolerated (and dropped); more means the file is not what we think.
  if (skipped > Math.max(5, entries.length * 0.01))
    throw new ListFormatError(`${skipped} records without an id or a name`);
  return { publishedAt, entries };
}

/** `MM/DD/YYYY` (OFAC) to ISO. */
function usDate(s: string): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s.trim());
  return m ? `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}` : null;
}

/** `DD/MM/YYYY` (UK) to ISO. */
function ukDate(s: string): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s.trim());
  return m
    ? `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`
    : /^\d{4}-\d{2}-\d{2}/.test(s)
      ? s.trim()
      : null;
}

// ---------------------------------------------------------------------------------------------
// OFAC SDN.XML / CONSOLIDATED.XML

const OFAC_KINDS: Record<string, EntryKind> = {
  individual: 'individual',
  entity: 'entity',
  vessel: 'vessel',
  aircraft: 'aircraft',
};

export function parseOfacXml(xml: string): ParsedList {
  const entries: ListEntry[] = [];
  let skipped = 0;
  let publishDate: string | null = null;
  let recordCount: number | null = null;
  streamRecords(
    xml,
    'sdnList',
    new Set(['sdnEntry']),
    (e) => {
      const id = kidText(e, 'uid');
      const primary = joinName(kidText(e, 'firstName'), kidText(e, 'lastName'));
      if (!id || !primary) {
        skipped++;
        return;
      }
      const names: ListName[] = [{ name: primary, strength: 'primary' }];
      for (const aka of all(e, 'aka')) {
        const name = joinName(kidText(aka, 'firstName'), kidText(aka, 'lastName'));
        if (name)
          names.push({
            name,
            strength: kidText(aka, 'category').toLowerCase() === 'weak' ? 'weak' : 'strong',
          });
      }
      entries.push({
        id,
        kind: OFAC_KINDS[kidText(e, 'sdnType').toLowerCase()] ?? 'other',
        names,
        dobs: all(e, 'dateOfBirth').flatMap((d) => parseDob(txt(d))),
        countries: countries([
          ...all(e, 'nationality').map((n) => kidText(n, 'country')),
          ...all(e, 'citizenship').map((n) => kidText(n, 'country')),
          ...all(e, 'address').map((n) => kidText(n, 'country')),
        ]),
      });
    },
    (top) => {
      if (top.name !== 'publshInformation') return;
      publishDate = usDate(kidText(top, 'Publish_Date'));
      const count = kidText(top, 'Record_Count');
      recordCount = count ? Number(count) : null;
    },
  );
  // The file states its own size: a cut or partial list is refused even when well-formed.
  if (recordCount !== null && recordCount !== entries.length + skipped)
    throw new ListFormatError(
      `Record_Count says ${recordCount} entries, the file has ${entries.length + skipped}`,
    );
  return finish(entries, skipped, publishDate);
}

// ---------------------------------------------------------------------------------------------
// EU FSF XML

export function parseEuXml(xml: string): ParsedList {
  const entries: ListEntry[] = [];
  let skipped = 0;
  const rootAttrs = streamRecords(
    xml,
    'export',
    new Set(['sanctionEntity']),
    (e) => {
      const id = e.attrs.logicalId ?? '';
      const names: ListName[] = [];
      for (const a of kids(e, 'nameAlias')) {
        const name =
          (a.attrs.wholeName ?? '').trim() ||
          joinName(a.attrs.firstName ?? '', a.attrs.middleName ?? '', a.attrs.lastName ?? '');
        if (!name) continue;
        names.push({
          name,
          strength: names.length === 0 ? 'primary' : a.attrs.strong === 'false' ? 'weak' : 'strong',
        });
      }
      if (!id || names.length === 0) {
        skipped++;
        return;
      }
      const code = kid(e, 'subjectType')?.attrs.code ?? '';
      entries.push({
        id,
        kind: code === 'person' ? 'individual' : code === 'enterprise' ? 'entity' : 'other',
        names,
        dobs: kids(e, 'birthdate').flatMap((b) => euBirthdate(b.attrs)),
        countries: countries([
          ...kids(e, 'citizenship').map((c) => c.attrs.countryIso2Code ?? ''),
          ...kids(e, 'address').map((c) => c.attrs.countryIso2Code ?? ''),
        ]),
      });
    },
    () => {},
  );
  return finish(entries, skipped, rootAttrs.generationDate ?? null);
}

// ---------------------------------------------------------------------------------------------
// UK Sanctions List XML

const UK_KINDS: Record<string, EntryKind> = { individual: 'individual', entity: 'entity', ship: 'vessel' };

export function parseUkXml(xml: string): ParsedList {
  const entries: ListEntry[] = [];
  let skipped = 0;
  let generated: string | null = null;
  streamRecords(
    xml,
    'Designations',
    new Set(['Designation']),
    (e) => {
      const id = kidText(e, 'UniqueID');
      const primary: ListName[] = [];
      const others: ListName[] = [];
      for (const n of all(e, 'Name')) {
        const name = joinName(
          ...['Name1', 'Name2', 'Name3', 'Name4', 'Name5', 'Name6'].map((k) => kidText(n, k)),
        );
        if (!name) continue;
        const type = kidText(n, 'NameType').toLowerCase();
        if (type.startsWith('primary name')) primary.push({ name, strength: 'primary' });
        else
          others.push({
            name,
            strength: /low quality/i.test(kidText(n, 'AliasStrength')) ? 'weak' : 'strong',
          });
      }
      for (const n of all(e, 'NameNonLatinScript'))
        if (txt(n)) others.push({ name: txt(n), strength: 'strong' });
      const names = [...primary, ...others];
      if (!id || names.length === 0) {
        skipped++;
        return;
      }
      entries.push({
        id,
        kind: UK_KINDS[kidText(e, 'IndividualEntityShip').toLowerCase()] ?? 'other',
        names,
        dobs: all(e, 'DOB').flatMap((d) => parseDob(txt(d))),
        countries: countries([...all(e, 'Nationality').map(txt), ...all(e, 'AddressCountry').map(txt)]),
      });
    },
    (top) => {
      if (top.name === 'DateGenerated') generated = ukDate(txt(top));
    },
  );
  return finish(entries, skipped, generated);
}

// ---------------------------------------------------------------------------------------------
// UN Security Council consolidated XML

export function parseUnXml(xml: string): ParsedList {
  const entries: ListEntry[] = [];
  let skipped = 0;
  const rootAttrs = streamRecords(
    xml,
    'CONSOLIDATED_LIST',
    new Set(['INDIVIDUAL', 'ENTITY']),
    (e) => {
      const id = kidText(e, 'DATAID');
      const primary = joinName(
        kidText(e, 'FIRST_NAME'),
        kidText(e, 'SECOND_NAME'),
        kidText(e, 'THIRD_NAME'),
        kidText(e, 'FOURTH_NAME'),
      );
      if (!id || !primary) {
        skipped++;
        return;
      }
      const names: ListName[] = [{ name: primary, strength: 'primary' }];
      const original = kidText(e, 'NAME_ORIGINAL_SCRIPT');
      if (original) names.push({ name: original, strength: 'strong' });
      for (const a of [...kids(e, 'INDIVIDUAL_ALIAS'), ...kids(e, 'ENTITY_ALIAS')]) {
        const name = kidText(a, 'ALIAS_NAME');
        if (name) names.push({ name, strength: /^low/i.test(kidText(a, 'QUALITY')) ? 'weak' : 'strong' });
      }
      const dobs = kids(e, 'INDIVIDUAL_DATE_OF_BIRTH').flatMap((d) =>
        unDateOfBirth(
          kidText(d, 'TYPE_OF_DATE'),
          kidText(d, 'DATE'),
          kidText(d, 'YEAR'),
          kidText(d, 'FROM_YEAR'),
          kidText(d, 'TO_YEAR'),
        ),
      );
      entries.push({
        id,
        kind: e.name === 'INDIVIDUAL' ? 'individual' : 'entity',
        names,
        dobs,
        countries: countries([
          ...kids(kid(e, 'NATIONALITY'), 'VALUE').map(txt),
          ...[...kids(e, 'INDIVIDUAL_ADDRESS'), ...kids(e, 'ENTITY_ADDRESS')].map((a) =>
            kidText(a, 'COUNTRY'),
          ),
        ]),
      });
    },
    () => {},
  );
  return finish(entries, skipped, rootAttrs.dateGenerated ?? null);
}

/** The parser of each list's published format. */
export const LIST_PARSERS: Record<SanctionsListId, (xml: string) => ParsedList> = {
  ofac_sdn: parseOfacXml,
  ofac_consolidated: parseOfacXml,
  eu_fsf: parseEuXml,
  uk_sanctions_list: parseUkXml,
  un_sc: parseUnXml,
};
