/**
 * CSV and XLSX uploads, with fixtures the tests build themselves: BOM, semicolons, an empty line,
 * metadata columns, unknown columns, the first sheet only, the 500-row limit (a 501-row file),
 * malformed files, the size limit, the template, and the results CSV parsed back (formula cells defused).
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { BulkLinkMessages } from '../../src/modules/bulk-links/bulk.messages';
import { paymentApp } from '../helpers/suites';
import { createJob, drain, fileBody, getRows, postBulk, resultsOf, xlsxOf } from './fixtures';

const s = paymentApp({ app: { env: { SVC_BULK_PAYLINK_MAX_FILE_BYTES: '200000' } } });

const fileError = async (name: string, content: Buffer | string) => {
  const res = await postBulk(s.ctx, s.w.caller, fileBody(name, content));
  expect(res.statusCode, res.body).toBe(422);
  return res.json().detail as { loc: unknown[]; msg: string }[];
};

describe('CSV', () => {
  it('UTF-8 with BOM, semicolons, an empty line, metadata and unknown columns', async () => {
    const csv =
      '\uFEFFAmount;currency;user_id;description;metadata.order;Colour;reference\r\n' +
      `10,50;EUR;${s.w.userId};"Grüße; with semicolon";A-1;red;ref-1\r\n` +
      '\r\n' +
      `20.00;EUR;${s.w.userId};Second;A-2;blue;ref-2\r\n` +
      ';;;;;;\r\n';
    const job = await createJob(
      s.ctx,
      s.w.caller,
      fileBody('links.csv', csv, { defaults: { project_id: s.w.projectId }, preview: true }),
    );
    expect(job).toMatchObject({ source: 'csv', file_name: 'links.csv', counts: { total: 2 } });
    expect(job.warnings).toEqual(["Unknown column 'Colour' ignored"]);
    const rows = await getRows(s.ctx, s.w.caller, job.bulk_id);
    expect(rows.map((r) => r.row_number)).toEqual([1, 2]);
    // "10,50" is not a decimal string: the paylink message, naming the value.
    expect(rows[0]!.errors).toEqual([
      { field: 'amount', value: '10,50', msg: 'Amount must be a decimal string such as "125.50"' },
    ]);
    expect(rows[1]).toMatchObject({
      status: 'valid',
      reference: 'ref-2',
      input: { amount: '20.00', currency: 'EUR', description: 'Second', 'metadata.order': 'A-2' },
    });
    expect(rows[0]!.input.description).toBe('Grüße; with semicolon');
  });

  it('comma-separated with quoted commas, expires_in_seconds read as a number', async () => {
    const csv =
      'amount,currency,user_id,project_id,description,expires_in_seconds\n' +
      `5.00,EUR,${s.w.userId},${s.w.projectId},"Hello, world",600\n`;
    const job = await createJob(s.ctx, s.w.caller, fileBody('c.CSV', csv));
    await drain(s.ctx);
    const [row] = await getRows(s.ctx, s.w.caller, job.bulk_id);
    expect(row).toMatchObject({
      status: 'created',
      input: { description: 'Hello, world', expires_in_seconds: 600 },
    });
  });

  it('501 data rows are refused at ["body","file"]; 500 are accepted', async () => {
    const line = `1.00,EUR,${s.w.userId},${s.w.projectId}\n`;
    const head = 'amount,currency,user_id,project_id\n';
    const detail = await fileError('big.csv', head + line.repeat(501));
    expect(detail).toEqual([
      { loc: ['body', 'file'], msg: BulkLinkMessages.tooManyRows, type: 'value_error' },
    ]);
    const ok = await postBulk(
      s.ctx,
      s.w.caller,
      fileBody('ok.csv', head + line.repeat(500), { preview: true }),
    );
    expect(ok.statusCode).toBe(201);
    expect(ok.json().counts).toMatchObject({ total: 500, valid: 500 });
  });

  it('malformed files: unclosed quote, not UTF-8, no header, empty', async () => {
    const unparseable = [{ loc: ['body', 'file'], msg: BulkLinkMessages.unparseable, type: 'value_error' }];
    expect(await fileError('q.csv', 'amount,currency\n"10.00,EUR\n')).toEqual(unparseable);
    expect(
      await fileError('l.csv', Buffer.from([0x61, 0x6d, 0x6f, 0x75, 0x6e, 0x74, 0x0a, 0xff, 0xfe, 0x0a])),
    ).toEqual(unparseable);
    expect(await fileError('n.csv', `10.00,EUR,${s.w.userId}\n`)).toEqual(unparseable);
    expect(await fileError('e.csv', '\n\n')).toEqual(unparseable);
    expect(await fileError('h.csv', 'amount,currency\n')).toEqual([
      { loc: ['body', 'file'], msg: BulkLinkMessages.noRows, type: 'value_error' },
    ]);
  });

  it('file name, base64 and size checks', async () => {
    expect((await fileError('links.txt', 'amount\n1.00\n'))[0]).toMatchObject({
      loc: ['body', 'file', 'file_name'],
      msg: BulkLinkMessages.fileType,
    });
    const bad = await postBulk(s.ctx, s.w.caller, { file: { file_name: 'a.csv', content_base64: '***' } });
    expect(bad.json().detail[0]).toMatchObject({
      loc: ['body', 'file', 'content_base64'],
      msg: BulkLinkMessages.notBase64,
    });
    const huge = await fileError('huge.csv', `amount\n${'1.00\n'.repeat(50_000)}`);
    expect(huge).toEqual([
      { loc: ['body', 'file'], msg: BulkLinkMessages.fileTooLarge(200000), type: 'value_error' },
    ]);
  });

  it('the template is the header row', async () => {
    const res = await s.ctx.app.inject({
      url: '/api/v1/checkout/paylink/bulk/template.csv',
      headers: s.w.caller.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(parse(res.body)).toEqual([
      [
        'amount',
        'currency',
        'user_id',
        'business_customer_id',
        'email',
        'project_id',
        'description',
        'expires_in_seconds',
        'reference',
      ],
    ]);
  });
});

describe('XLSX', () => {
  it('reads the first sheet only, numbers as text, metadata columns', async () => {
    const buf = await xlsxOf([
      ['amount', 'currency', 'user_id', 'project_id', 'metadata.batch', 'reference'],
      [12.5, 'EUR', s.w.userId, s.w.projectId, 'B7', 'x-1'],
      [],
      ['3.00', 'EUR', s.w.userId, s.w.projectId, 'B8', 'x-2'],
    ]);
    const job = await createJob(s.ctx, s.w.caller, fileBody('links.xlsx', buf));
    expect(job).toMatchObject({ source: 'xlsx', counts: { total: 2, pending: 2 } });
    await drain(s.ctx);
    const rows = await getRows(s.ctx, s.w.caller, job.bulk_id);
    expect(rows.map((r) => [r.status, r.input.amount, r.input['metadata.batch']])).toEqual([
      ['created', '12.5', 'B7'],
      ['created', '3.00', 'B8'],
    ]);
  });

  it('501 rows are refused; a broken workbook is unparseable', async () => {
    const rows: unknown[][] = [['amount', 'currency', 'user_id', 'project_id']];
    for (let i = 0; i < 501; i++) rows.push(['1.00', 'EUR', s.w.userId, s.w.projectId]);
    expect(await fileError('big.xlsx', await xlsxOf(rows))).toEqual([
      { loc: ['body', 'file'], msg: BulkLinkMessages.tooManyRows, type: 'value_error' },
    ]);
    const good = await xlsxOf([['amount'], ['1.00']]);
    const broken = Buffer.concat([good.subarray(0, 200), Buffer.alloc(300, 7)]);
    expect(await fileError('broken.xlsx', broken)).toEqual([
      { loc: ['body', 'file'], msg: BulkLinkMessages.unparseable, type: 'value_error' },
    ]);
  });
});

describe('results CSV', () => {
  it('input columns plus status, transaction_id, checkout_url, errors; formulas defused; status filter', async () => {
    const job = await createJob(s.ctx, s.w.caller, {
      rows: [
        {
          amount: '4.00',
          user_id: s.w.userId,
          description: '=HYPERLINK("http://evil")',
          reference: '@ref',
          'metadata.note': '+1',
        },
        { amount: '-5', user_id: s.w.userId, reference: 'neg' },
      ],
      defaults: { project_id: s.w.projectId, currency: 'EUR' },
    });
    await drain(s.ctx);
    const { res, records } = await resultsOf(s.ctx, s.w.caller, job.bulk_id);
    expect(res.headers['content-type']).toContain('text/csv');
    const header = Object.keys(records[0]!);
    expect(header.slice(-4)).toEqual(['status', 'transaction_id', 'checkout_url', 'errors']);
    expect(header).toEqual(
      expect.arrayContaining(['amount', 'user_id', 'description', 'reference', 'metadata.note']),
    );
    const rows = await getRows(s.ctx, s.w.caller, job.bulk_id);
    expect(records[0]).toMatchObject({
      amount: '4.00',
      description: `'=HYPERLINK("http://evil")`,
      reference: "'@ref",
      'metadata.note': "'+1",
      status: 'created',
      transaction_id: rows[0]!.transaction_id,
      checkout_url: rows[0]!.checkout_url,
      errors: '',
    });
    expect(records[1]).toMatchObject({
      amount: "'-5",
      status: 'invalid',
      transaction_id: '',
      checkout_url: '',
    });
    expect(records[1]!.errors).toBe('amount ("-5"): Amount must be greater than 0');
    const onlyInvalid = await resultsOf(s.ctx, s.w.caller, job.bulk_id, 'failed,invalid');
    expect(onlyInvalid.records.map((r) => r.reference)).toEqual(['neg']);
    const badFilter = await s.ctx.app.inject({
      url: `/api/v1/checkout/paylink/bulk/${job.bulk_id}/results.csv?status=nope`,
      headers: s.w.caller.headers,
    });
    expect(badFilter.statusCode).toBe(422);
  });
});
