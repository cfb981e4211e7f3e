/** The parsers of the published formats, over the fixtures written in each format (test/fixtures/sanctions). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIST_PARSERS, ListFormatError, parseDob } from '../../src/providers/sanctions/mapping';
import { dobCheck, normalizeTokens } from '../../src/providers/sanctions/matching';

const fixture = (f: string) => readFileSync(new URL(`../fixtures/sanctions/${f}`, import.meta.url), 'utf8');

describe('published formats', () => {
  it('OFAC SDN.XML: names with their strength, dates of birth, countries, kinds, publication date', () => {
    const l = LIST_PARSERS.ofac_sdn(fixture('ofac-sdn-v1.xml'));
    expect(l.publishedAt).toBe('2026-11-02');
    expect(l.entries.map((e) => [e.id, e.kind])).toEqual([
      ['100', 'individual'],
      ['101', 'entity'],
      ['102', 'individual'],
      ['103', 'vessel'],
    ]);
    expect(l.entries[0]).toEqual({
      id: '100',
      kind: 'individual',
      names: [
        { name: 'Vladimir Petrovich IVANOV', strength: 'primary' },
        { name: 'Vladimir IVANOFF', strength: 'strong' },
        { name: 'VOVA', strength: 'weak' },
      ],
      dobs: ['1961-01-12'],
      countries: ['RU'],
    });
    expect(l.entries[1]!.countries).toEqual(['AE']);
    expect(l.entries[2]!.dobs).toEqual(['1968/1972']); // circa 1970
  });

  it('OFAC consolidated: a DOB range is a window of years', () => {
    const l = LIST_PARSERS.ofac_consolidated(fixture('ofac-consolidated.xml'));
    expect(l.entries[1]!.dobs).toEqual(['1958/1962']);
  });

  it('EU FSF: Cyrillic and Greek names beside the Latin ones, strong="false" is weak, "00" is no country', () => {
    const l = LIST_PARSERS.eu_fsf(fixture('eu-fsf.xml'));
    expect(l.publishedAt).toBe('2026-11-03T18:40:51.758+01:00');
    expect(l.entries[0]!.names).toEqual([
      { name: 'Aleksandr Sergeyevich Volkov', strength: 'primary' },
      { name: 'Александр Сергеевич Волков', strength: 'strong' },
      { name: 'Sasha', strength: 'weak' },
    ]);
    expect(l.entries[0]).toMatchObject({ kind: 'individual', dobs: ['1968-07-04'], countries: ['RU'] });
    expect(l.entries[1]).toMatchObject({ kind: 'entity', countries: ['AZ'] });
    expect(l.entries[2]).toMatchObject({ dobs: ['1980'], countries: ['CY'] });
  });

  it('UK Sanctions List: primary name variation, low quality alias, non-Latin name, DOB day first', () => {
    const l = LIST_PARSERS.uk_sanctions_list(fixture('uk-sanctions-list.xml'));
    expect(l.publishedAt).toBe('2026-11-04');
    expect(l.entries[0]).toEqual({
      id: 'RUS9001',
      kind: 'individual',
      names: [
        { name: 'Igor SMIRNOV', strength: 'primary' },
        { name: 'Igor SMIRNOFF', strength: 'primary' },
        { name: 'Gosha', strength: 'weak' },
        { name: 'Игорь Смирнов', strength: 'strong' },
      ],
      dobs: ['1972-02-14'],
      countries: ['RU'],
    });
    expect(l.entries[1]).toMatchObject({ kind: 'entity', countries: ['BY'] });
  });

  it('UN SC: original script, Low quality alias, YEAR-only DOB, entities', () => {
    const l = LIST_PARSERS.un_sc(fixture('un-consolidated.xml'));
    expect(l.publishedAt).toBe('2026-11-05T00:00:09.554Z');
    expect(l.entries[0]!.names.map((n) => n.strength)).toEqual(['primary', 'strong', 'weak', 'strong']);
    expect(l.entries[0]).toMatchObject({ id: '6909001', dobs: ['1960'], countries: ['IQ'] });
    expect(l.entries[1]).toMatchObject({ id: '6909100', kind: 'entity', countries: ['PK'] });
  });

  it('refuses a truncated file, a miscounted one, the wrong root and an empty list', () => {
    expect(() => LIST_PARSERS.ofac_sdn(fixture('ofac-sdn-truncated.xml'))).toThrow(ListFormatError);
    expect(() => LIST_PARSERS.ofac_sdn(fixture('ofac-sdn-miscount.xml'))).toThrow(/Record_Count says 9/);
    expect(() => LIST_PARSERS.eu_fsf(fixture('ofac-sdn-v1.xml'))).toThrow(/expected a <export> document/);
    expect(() => LIST_PARSERS.uk_sanctions_list('<Designations></Designations>')).toThrow(/no entries/);
    expect(() => LIST_PARSERS.un_sc('')).toThrow(ListFormatError);
  });

  it('dates of birth as the lists write them; normalization', () => {
    expect(parseDob('05 Mar 1975')).toEqual(['1975-03-05']);
    expect(parseDob('Jan 1960')).toEqual(['1960-01']);
    expect(parseDob('00/00/1960')).toEqual(['1960']);
    expect(parseDob('00/03/1960')).toEqual(['1960-03']);
    expect(normalizeTokens('GARCÍA LÓPEZ, José-María Ltd.')).toEqual(['garcia', 'lopez', 'jose', 'maria']);
    expect(normalizeTokens('Щербаков Юрий')).toEqual(['shcherbakov', 'iurii']);
    expect(normalizeTokens('Παπαδόπουλος')).toEqual(['papadopoylos']);
  });

  it('approximate dates of birth are windows of years (review finding 3)', () => {
    // OFAC: `circa` and `YYYY to YYYY` (SDN.XML dateOfBirth text).
    expect(parseDob('circa 1960')).toEqual(['1958/1962']);
    expect(parseDob('circa 12 Jan 1960')).toEqual(['1958/1962']);
    expect(parseDob('1958 to 1962')).toEqual(['1958/1962']);
    expect(parseDob('1958 - 1962')).toEqual(['1958/1962']);
    expect(parseDob('1962 to 1958')).toEqual([]); // backwards: unreadable, dropped
    // EU FSF: circa="true" around a year or a full date, yearRangeFrom/yearRangeTo, a month.
    const eu = LIST_PARSERS.eu_fsf(fixture('eu-fsf-dob.xml'));
    expect(eu.entries.map((e) => [e.id, e.dobs])).toEqual([
      ['400', ['1964/1968']],
      ['401', ['1971/1973']],
      ['402', ['1957/1961', '1961-03']],
    ]);
    // UN: TYPE_OF_DATE APPROXIMATELY / BETWEEN / EXACT (DATE or YEAR).
    const un = LIST_PARSERS.un_sc(fixture('un-variants.xml'));
    expect(un.entries.map((e) => [e.id, e.dobs])).toEqual([
      ['6909200', ['1963/1967']],
      ['6909201', ['1970/1974']],
      ['6909202', ['1975-03-05']],
      ['6909203', ['1981', '1983']],
      ['6909204', ['1940/1944']],
    ]);
  });

  it("date-of-birth agreement: the party's date inside the entry's window, year, month or day", () => {
    expect(dobCheck('1960-05-05', ['1958/1962'])).toBe('agrees');
    expect(dobCheck('1962-12-31', ['1958/1962'])).toBe('agrees');
    expect(dobCheck('1963-01-01', ['1958/1962'])).toBe('differs');
    expect(dobCheck('1960', ['1958/1962'])).toBe('agrees');
    expect(dobCheck('1961-01-12', ['1961-01-12'])).toBe('agrees');
    expect(dobCheck('1961-01-13', ['1961-01-12'])).toBe('differs');
    expect(dobCheck('1961', ['1961-01-12'])).toBe('agrees');
    expect(dobCheck('1961-03-09', ['1961-03'])).toBe('agrees');
    expect(dobCheck('1961-04-09', ['1961-03'])).toBe('differs');
    expect(dobCheck('1982-06-01', ['1981', '1983'])).toBe('differs');
    expect(dobCheck('1983-06-01', ['1981', '1983'])).toBe('agrees');
    // Versions stored before windows hold a range as its years: the same answer.
    expect(dobCheck('1960-05-05', ['1958', '1959', '1960', '1961', '1962'])).toBe('agrees');
    expect(dobCheck(null, ['1960'])).toBeNull();
    expect(dobCheck('1960-01-01', [])).toBeNull();
  });
});
