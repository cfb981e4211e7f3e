/**
 * Sanctions lists benchmark (`npm run bench:sanctions`, also part of `npm run bench`): files of the
 * real lists' sizes and shape, generated in each published format (OFAC SDN 17,000 entries and the
 * consolidated list 450, EU 6,200, UK 6,400, UN 1,000: sizes in docs/vendors/sanctions-lists.md),
 * each loaded the way the job loads it (parse, then a new version written to a fresh database,
 * DATABASE_URL's server or PGlite, and made current) and indexed the way a node screens; then the match
 * time per name over every list at once, against a plain exact lookup of the normalized name in a Map.
 * Prints load time and heap per list, and the per-name times and their ratio.
 * Options (env): BENCH_SANCTIONS_QUERIES (default 2,000), BENCH_SANCTIONS_SCALE (default 1).
 */
import { createHash } from 'node:crypto';
import { LIST_PARSERS } from '../src/providers/sanctions/mapping';
import { NameIndex, normalizeName } from '../src/providers/sanctions/matching';
import type { ListEntry, SanctionsListId, ScreenParty } from '../src/providers/sanctions/port';
import { writeVersion } from '../src/providers/sanctions/store';
import { openBenchDatabase } from './api';

const SCALE = Number(process.env.BENCH_SANCTIONS_SCALE ?? 1);
const QUERIES = Number(process.env.BENCH_SANCTIONS_QUERIES ?? 2000);

const SIZES: Record<SanctionsListId, number> = {
  ofac_sdn: 17_000,
  ofac_consolidated: 450,
  eu_fsf: 6_200,
  uk_sanctions_list: 6_400,
  un_sc: 1_000,
};

// A deterministic generator: names from syllables, so token frequencies look like real names
// (many shared given names, mostly distinct family names), and Cyrillic forms for some entries.
let seed = 42;
const rnd = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
const SYL = [
  'al',
  'an',
  'ar',
  'ba',
  'da',
  'el',
  'fa',
  'ga',
  'ha',
  'is',
  'ka',
  'la',
  'ma',
  'na',
  'or',
  'pa',
  'ra',
  'sa',
  'ta',
  'va',
  'ya',
  'za',
  'ko',
  'mi',
  'ni',
  'ro',
  'se',
  'to',
  'vi',
  'yu',
];
const GIVEN = Array.from({ length: 300 }, () => `${pick(SYL)}${pick(SYL)}${pick(['', 'n', 'd', 'r', 'm'])}`);
const family = () => `${pick(SYL)}${pick(SYL)}${pick(SYL)}${pick(['ov', 'ev', 'in', 'i', 'an', 'enko', ''])}`;
const cap = (s: string) => s.toUpperCase();
const CYR: Record<string, string> = {
  a: 'а',
  b: 'б',
  d: 'д',
  e: 'е',
  f: 'ф',
  g: 'г',
  h: 'х',
  i: 'и',
  k: 'к',
  l: 'л',
  m: 'м',
  n: 'н',
  o: 'о',
  p: 'п',
  r: 'р',
  s: 'с',
  t: 'т',
  u: 'у',
  v: 'в',
  y: 'й',
  z: 'з',
};
const cyr = (s: string) => [...s.toLowerCase()].map((c) => CYR[c] ?? c).join('');
const COUNTRIES = [
  'Russia',
  'Iran',
  'Syria',
  'Iraq',
  'Belarus',
  'Venezuela',
  'Cuba',
  'China',
  'Lebanon',
  'Yemen',
];
const ISO: Record<string, string> = {
  Russia: 'RU',
  Iran: 'IR',
  Syria: 'SY',
  Iraq: 'IQ',
  Belarus: 'BY',
  Venezuela: 'VE',
  Cuba: 'CU',
  China: 'CN',
  Lebanon: 'LB',
  Yemen: 'YE',
};

interface Gen {
  id: string;
  person: boolean;
  first: string;
  last: string;
  aliases: { first: string; last: string; weak: boolean }[];
  year: number;
  country: string;
}

function generate(n: number, prefix: string): Gen[] {
  return Array.from({ length: n }, (_, i) => {
    const person = rnd() < 0.65;
    const first = person ? `${pick(GIVEN)} ${rnd() < 0.5 ? pick(GIVEN) : ''}`.trim() : '';
    const last = person
      ? family()
      : `${family()} ${pick(['TRADING', 'SHIPPING', 'BANK', 'HOLDING', 'GROUP', 'INDUSTRIES'])} ${pick(['LLC', 'LTD', 'JSC', ''])}`.trim();
    const aliases = Array.from({ length: Math.floor(rnd() * 4) }, () => ({
      first: person ? pick(GIVEN) : '',
      last: rnd() < 0.5 ? `${last}${pick(['a', 'e', ''])}` : family(),
      weak: rnd() < 0.15,
    }));
    return {
      id: `${prefix}${i + 1}`,
      person,
      first,
      last,
      aliases,
      year: 1940 + Math.floor(rnd() * 60),
      country: pick(COUNTRIES),
    };
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function ofacXml(g: Gen[]): string {
  const rows = g.map(
    (e) =>
      `<sdnEntry><uid>${e.id}</uid>${e.first ? `<firstName>${esc(e.first)}</firstName>` : ''}<lastName>${esc(cap(e.last))}</lastName><sdnType>${e.person ? 'Individual' : 'Entity'}</sdnType><programList><program>SDGT</program></programList><akaList>${e.aliases.map((a, j) => `<aka><uid>${e.id}${j}</uid><type>a.k.a.</type><category>${a.weak ? 'weak' : 'strong'}</category><lastName>${esc(cap(a.last))}</lastName>${a.first ? `<firstName>${esc(a.first)}</firstName>` : ''}</aka>`).join('')}</akaList>${e.person ? `<nationalityList><nationality><uid>${e.id}9</uid><country>${e.country}</country><mainEntry>true</mainEntry></nationality></nationalityList><dateOfBirthList><dateOfBirthItem><uid>${e.id}8</uid><dateOfBirth>12 Jan ${e.year}</dateOfBirth><mainEntry>true</mainEntry></dateOfBirthItem></dateOfBirthList>` : `<addressList><address><uid>${e.id}7</uid><city>City</city><country>${e.country}</country></address></addressList>`}</sdnEntry>`,
  );
  return `<?xml version="1.0" standalone="yes"?>\n<sdnList xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML"><publshInformation><Publish_Date>11/02/2026</Publish_Date><Record_Count>${g.length}</Record_Count></publshInformation>\n${rows.join('\n')}\n</sdnList>\n`;
}

function euXml(g: Gen[]): string {
  const rows = g.map(
    (e) =>
      `<sanctionEntity designationDetails="" unitedNationId="" euReferenceNumber="EU.${e.id}" logicalId="${e.id}"><regulation regulationType="regulation" organisationType="council" publicationDate="2026-01-01" entryIntoForceDate="2026-01-01" numberTitle="2026/1" programme="RUS" logicalId="${e.id}1"/><subjectType code="${e.person ? 'person' : 'enterprise'}" classificationCode="${e.person ? 'P' : 'E'}"/><nameAlias firstName="${esc(e.first)}" middleName="" lastName="${esc(e.last)}" wholeName="${esc(`${e.first} ${e.last}`.trim())}" function="" gender="" title="" nameLanguage="" strong="true" regulationLanguage="en" logicalId="${e.id}2"/>` +
      (e.person
        ? `<nameAlias firstName="" middleName="" lastName="" wholeName="${cyr(`${e.first} ${e.last}`)}" function="" gender="" title="" nameLanguage="RU" strong="true" regulationLanguage="en" logicalId="${e.id}3"/>`
        : '') +
      e.aliases
        .map(
          (a, j) =>
            `<nameAlias firstName="" middleName="" lastName="" wholeName="${esc(`${a.first} ${a.last}`.trim())}" function="" gender="" title="" nameLanguage="" strong="${!a.weak}" regulationLanguage="en" logicalId="${e.id}4${j}"/>`,
        )
        .join('') +
      `<citizenship region="" countryIso2Code="${ISO[e.country]}" countryDescription="${e.country.toUpperCase()}" regulationLanguage="en" logicalId="${e.id}5"/>` +
      (e.person
        ? `<birthdate circa="false" calendarType="GREGORIAN" birthdate="${e.year}-01-12" year="${e.year}" regulationLanguage="en" logicalId="${e.id}6"/>`
        : '') +
      '</sanctionEntity>',
  );
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<export xmlns="http://eu.europa.ec/fpi/fsd/export" generationDate="2026-11-03T18:40:51.758+01:00" globalFileId="1">\n${rows.join('\n')}\n</export>\n`;
}

function ukXml(g: Gen[]): string {
  const rows = g.map(
    (e) =>
      `<Designation><LastUpdated>01/10/2026</LastUpdated><DateDesignated>15/03/2022</DateDesignated><UniqueID>${e.id}</UniqueID><Names><Name>${e.first ? `<Name1>${esc(e.first)}</Name1>` : ''}<Name6>${esc(cap(e.last))}</Name6><NameType>Primary Name</NameType></Name>${e.aliases.map((a) => `<Name>${a.first ? `<Name1>${esc(a.first)}</Name1>` : ''}<Name6>${esc(cap(a.last))}</Name6><NameType>Alias</NameType><AliasStrength>${a.weak ? 'Low quality a.k.a' : 'Good quality a.k.a'}</AliasStrength></Name>`).join('')}</Names>${e.person ? `<NonLatinNames><NonLatinName><NameNonLatinScript>${cyr(`${e.first} ${e.last}`)}</NameNonLatinScript><NonLatinScriptLanguage>Russian</NonLatinScriptLanguage></NonLatinName></NonLatinNames>` : ''}<RegimeName>Russia</RegimeName><IndividualEntityShip>${e.person ? 'Individual' : 'Entity'}</IndividualEntityShip><SanctionsImposed>Asset freeze</SanctionsImposed>${e.person ? `<IndividualDetails><Individual><DOBs><DOB>12/01/${e.year}</DOB></DOBs><Nationalities><Nationality>${e.country}</Nationality></Nationalities></Individual></IndividualDetails>` : `<Addresses><Address><AddressCountry>${e.country}</AddressCountry></Address></Addresses>`}</Designation>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>\n<Designations><DateGenerated>04/11/2026</DateGenerated>\n${rows.join('\n')}\n</Designations>\n`;
}

function unXml(g: Gen[]): string {
  const ind = g.filter((e) => e.person);
  const ent = g.filter((e) => !e.person);
  const alias = (tag: string, e: Gen) =>
    e.aliases
      .map(
        (a) =>
          `<${tag}><QUALITY>${a.weak ? 'Low' : 'Good'}</QUALITY><ALIAS_NAME>${esc(`${a.first} ${a.last}`.trim())}</ALIAS_NAME></${tag}>`,
      )
      .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<CONSOLIDATED_LIST dateGenerated="2026-11-05T00:00:09.554Z"><INDIVIDUALS>\n${ind
    .map(
      (e) =>
        `<INDIVIDUAL><DATAID>${e.id}</DATAID><VERSIONNUM>1</VERSIONNUM><FIRST_NAME>${esc(cap(e.first))}</FIRST_NAME><SECOND_NAME>${esc(cap(e.last))}</SECOND_NAME><UN_LIST_TYPE>Al-Qaida</UN_LIST_TYPE><REFERENCE_NUMBER>QDi.${e.id}</REFERENCE_NUMBER><LISTED_ON>2010-01-01</LISTED_ON><NATIONALITY><VALUE>${e.country}</VALUE></NATIONALITY><LIST_TYPE><VALUE>UN List</VALUE></LIST_TYPE>${alias('INDIVIDUAL_ALIAS', e)}<INDIVIDUAL_ADDRESS><COUNTRY>${e.country}</COUNTRY></INDIVIDUAL_ADDRESS><INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>EXACT</TYPE_OF_DATE><YEAR>${e.year}</YEAR></INDIVIDUAL_DATE_OF_BIRTH></INDIVIDUAL>`,
    )
    .join('\n')}\n</INDIVIDUALS><ENTITIES>\n${ent
    .map(
      (e) =>
        `<ENTITY><DATAID>${e.id}</DATAID><VERSIONNUM>1</VERSIONNUM><FIRST_NAME>${esc(cap(e.last))}</FIRST_NAME><UN_LIST_TYPE>Al-Qaida</UN_LIST_TYPE><REFERENCE_NUMBER>QDe.${e.id}</REFERENCE_NUMBER><LISTED_ON>2011-01-01</LISTED_ON>${alias('ENTITY_ALIAS', e)}<ENTITY_ADDRESS><COUNTRY>${e.country}</COUNTRY></ENTITY_ADDRESS></ENTITY>`,
    )
    .join('\n')}\n</ENTITIES></CONSOLIDATED_LIST>\n`;
}

const WRITERS: Record<SanctionsListId, (g: Gen[]) => string> = {
  ofac_sdn: ofacXml,
  ofac_consolidated: ofacXml,
  eu_fsf: euXml,
  uk_sanctions_list: ukXml,
  un_sc: unXml,
};

const heap = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

export interface SanctionsBenchResult {
  lists: {
    list: string;
    entries: number;
    names: number;
    fileMb: number;
    parseMs: number;
    storeMs: number;
    indexMs: number;
    heapMb: number;
  }[];
  queries: number;
  matchUsPerName: number;
  exactUsPerName: number;
  candidatesPerName: number;
  engine: string;
}

export async function runSanctionsBench(): Promise<SanctionsBenchResult> {
  const env: Record<string, string | undefined> = {};
  const { database, cleanup } = await openBenchDatabase(env, 'svc_bench_sanctions');
  await database.migrate();
  const lists: SanctionsBenchResult['lists'] = [];
  const indexes: NameIndex[] = [];
  const all: Gen[] = [];
  const exact = new Map<string, string>();
  try {
    for (const list of Object.keys(SIZES) as SanctionsListId[]) {
      const g = generate(Math.round(SIZES[list] * SCALE), `${list.slice(0, 2)}`);
      all.push(...g);
      const xml = WRITERS[list](g);
      const before = heap();
      let t = performance.now();
      const parsed = LIST_PARSERS[list](xml);
      const parseMs = performance.now() - t;
      t = performance.now();
      await writeVersion(
        database.db,
        new Date(),
        {
          list,
          version: `bench#${list}`,
          publishedAt: parsed.publishedAt,
          contentSha256: createHash('sha256').update(xml).digest('hex'),
          entries: parsed.entries,
        },
        null,
      );
      const storeMs = performance.now() - t;
      t = performance.now();
      const index = new NameIndex(parsed.entries);
      const indexMs = performance.now() - t;
      indexes.push(index);
      for (const e of parsed.entries as ListEntry[])
        for (const n of e.names) exact.set(normalizeName(n.name), e.id);
      lists.push({
        list,
        entries: parsed.entries.length,
        names: index.nameCount,
        fileMb: Buffer.byteLength(xml) / 1024 / 1024,
        parseMs,
        storeMs,
        indexMs,
        heapMb: (heap() - before) / 1024 / 1024,
      });
    }
    // Half the queries are listed names with a typo and the order changed, half are not listed.
    const queries: ScreenParty[] = Array.from({ length: QUERIES }, (_, i) => {
      if (i % 2 === 0) {
        const e = pick(all);
        const last = e.last.length > 5 ? `${e.last.slice(0, 3)}${e.last.slice(4)}` : e.last;
        return { name: `${last} ${e.first}`.trim() };
      }
      return { name: `${pick(GIVEN)} ${family()}x` };
    });
    const warm = queries.slice(0, 100);
    for (const q of warm) for (const ix of indexes) ix.best(q, 85);
    let t = performance.now();
    let candidates = 0;
    for (const q of queries) for (const ix of indexes) ix.best(q, 85);
    const matchMs = performance.now() - t;
    for (const q of queries) for (const ix of indexes) candidates += ix.candidateCount(q.name);
    const normalized = queries.map((q) => q.name);
    t = performance.now();
    let found = 0;
    for (let r = 0; r < 20; r++) for (const q of normalized) if (exact.get(normalizeName(q))) found++;
    const exactMs = (performance.now() - t) / 20;
    if (found < 0) console.log(found);
    return {
      lists,
      queries: QUERIES,
      matchUsPerName: (matchMs * 1000) / QUERIES,
      exactUsPerName: (exactMs * 1000) / QUERIES,
      candidatesPerName: candidates / QUERIES,
      engine: database.engine,
    };
  } finally {
    await database.close();
    await cleanup();
  }
}

export function formatSanctionsBench(r: SanctionsBenchResult): string {
  const rows = r.lists.map(
    (l) =>
      `| ${l.list} | ${l.entries} | ${l.names} | ${l.fileMb.toFixed(1)} | ${l.parseMs.toFixed(0)} | ${l.storeMs.toFixed(0)} | ${l.indexMs.toFixed(0)} | ${l.heapMb.toFixed(1)} |`,
  );
  const total = r.lists.reduce((n, l) => n + l.entries, 0);
  return [
    `Load (${r.engine}): parse the file, write the version to the database and make it current, build the node's index.`,
    '',
    '| List | Entries | Names | File (MB) | Parse (ms) | Store (ms) | Index (ms) | Heap (MB) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Match over all ${total} entries: ${r.matchUsPerName.toFixed(1)} µs per name (${r.candidatesPerName.toFixed(0)} names scored per query of ${r.queries}); ` +
      `exact Map lookup of the normalized name: ${r.exactUsPerName.toFixed(2)} µs; ratio ${(r.matchUsPerName / r.exactUsPerName).toFixed(0)}x.`,
    `Heap after load: ${mb(process.memoryUsage().heapUsed)} MB.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatSanctionsBench(await runSanctionsBench()));
}
