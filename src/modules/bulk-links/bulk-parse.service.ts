/**
 * Reading an uploaded CSV or XLSX file into rows, streamed and stopped after MAX_ROWS + 1 data rows,
 * so memory stays flat whatever the file holds. CSV: UTF-8 (BOM tolerated; invalid bytes refuse the
 * file), comma or semicolon detected from the header line, empty lines skipped. XLSX (detected by
 * content, a ZIP): the first worksheet. A header row is required.
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { ValidationError } from '../../shared/errors';
import { BulkLinkMessages } from './bulk.messages';
import { fileRowInput, MAX_ROWS, mapHeader, type RowInput } from './bulk-columns.schemas';

export interface ParsedFile {
  source: 'csv' | 'xlsx';
  columns: string[];
  rows: RowInput[];
  warnings: string[];
}

const FILE_LOC = ['body', 'file'];
const CHUNK = 64 * 1024;

class TooManyRows extends Error {}
class Unparseable extends Error {}

export function unparseableFile(): ValidationError {
  return new ValidationError([{ loc: FILE_LOC, msg: BulkLinkMessages.unparseable, type: 'value_error' }]);
}

export function tooManyRows(loc: (string | number)[]): ValidationError {
  return new ValidationError([{ loc, msg: BulkLinkMessages.tooManyRows, type: 'value_error' }]);
}

const isZip = (buf: Buffer) => buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50;

export async function parseBulkFile(buf: Buffer): Promise<ParsedFile> {
  try {
    const table = isZip(buf) ? await readXlsx(buf) : await readCsv(buf);
    return table;
  } catch (err) {
    if (err instanceof TooManyRows) throw tooManyRows(FILE_LOC);
    if (err instanceof ValidationError) throw err;
    throw unparseableFile();
  }
}

/** Collects header + data rows from a stream of cell arrays; stops after MAX_ROWS + 1 data rows. */
class TableBuilder {
  private header: ReturnType<typeof mapHeader> | null = null;
  readonly rows: RowInput[] = [];

  constructor(readonly source: 'csv' | 'xlsx') {}

  /** Returns false once the limit is passed. */
  add(cells: string[]): void {
    if (cells.every((c) => c.trim() === '')) return; // empty line
    if (!this.header) {
      this.header = mapHeader(cells);
      // A header names at least one known column; otherwise the file has none.
      if (this.header.columns.length === 0) throw new Unparseable('no header');
      return;
    }
    if (this.rows.length >= MAX_ROWS) throw new TooManyRows();
    this.rows.push(fileRowInput(this.header.positions, cells));
  }

  result(): ParsedFile {
    if (!this.header) throw new Unparseable('empty file');
    return {
      source: this.source,
      columns: this.header.columns,
      rows: this.rows,
      warnings: this.header.warnings,
    };
  }
}

/** Comma or semicolon: whichever occurs more often outside quotes in the first non-empty line. */
function detectDelimiter(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  let seen = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) {
      if (seen) break;
    } else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
    if (ch.trim() !== '') seen = true;
  }
  return semicolons > commas ? ';' : ',';
}

async function readCsv(buf: Buffer): Promise<ParsedFile> {
  // Fatal decoding: a file that is not UTF-8 is refused instead of read as replacement characters.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const first = decoder.decode(buf.subarray(0, CHUNK), { stream: buf.length > CHUNK });
  const delimiter = detectDelimiter(first);
  function* chunks() {
    yield first;
    for (let at = CHUNK; at < buf.length; at += CHUNK) {
      const end = Math.min(at + CHUNK, buf.length);
      yield decoder.decode(buf.subarray(at, end), { stream: end < buf.length });
    }
  }
  const parser = Readable.from(chunks()).pipe(
    parse({
      delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
    }),
  );
  const table = new TableBuilder('csv');
  try {
    for await (const record of parser as AsyncIterable<string[]>) table.add(record);
  } finally {
    parser.destroy();
  }
  return table.result();
}

/** A cell of exceljs as text (numbers in their shortest form, formulas by their result). */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('result' in o) return cellText(o.result);
    if (Array.isArray(o.richText))
      return o.richText.map((p) => String((p as { text?: unknown }).text ?? '')).join('');
    if ('text' in o) return cellText(o.text);
    if ('error' in o) return String(o.error);
  }
  return '';
}

async function readXlsx(buf: Buffer): Promise<ParsedFile> {
  // Loaded on first use: exceljs stays out of the memory of a node that never reads an XLSX upload.
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([buf]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  const table = new TableBuilder('xlsx');
  let sheets = 0;
  for await (const worksheet of reader) {
    sheets++;
    for await (const row of worksheet as unknown as AsyncIterable<{ values: unknown[] }>) {
      // exceljs rows are 1-based sparse arrays.
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      const cells: string[] = [];
      for (let i = 0; i < values.length; i++) cells.push(cellText(values[i]));
      table.add(cells);
    }
    break; // the first sheet only
  }
  if (sheets === 0) throw new Unparseable('no worksheet');
  return table.result();
}
