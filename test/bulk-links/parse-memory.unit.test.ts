/**
 * Memory stays flat while reading the largest allowed file (SVC_BULK_PAYLINK_MAX_FILE_BYTES, 5 MiB):
 * the CSV and XLSX readers stream and stop after 501 data rows, so a file of ~60,000 rows costs about
 * what 501 rows cost. RSS is measured around each parse (sampled every 5 ms for the peak).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseBulkFile } from '../../src/modules/bulk-links/bulk-parse.service';
import { ValidationError } from '../../src/shared/errors';
import { bigXlsx } from './fixtures';

const MAX = 5 * 1024 * 1024;
const UUID = '01a2013e-0000-7000-8000-000000000000';

async function peakRssDuring<T>(fn: () => Promise<T>): Promise<{ result: T | Error; growthMb: number }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let result: T | Error;
  try {
    result = await fn();
  } catch (err) {
    result = err as Error;
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return { result, growthMb: (peak - base) / 1024 / 1024 };
}

describe('reading the largest allowed file', () => {
  it('CSV of 5 MiB (~60k rows): refused at row 501 with flat memory', async () => {
    const header = 'amount,currency,user_id,project_id,description\n';
    const line = `10.00,EUR,${UUID},${UUID},Monthly invoice\n`;
    const csv = Buffer.from(header + line.repeat(Math.floor((MAX - header.length) / line.length)));
    expect(csv.length).toBeGreaterThan(MAX - line.length);
    const { result, growthMb } = await peakRssDuring(() => parseBulkFile(csv));
    expect(result).toBeInstanceOf(ValidationError);
    expect((result as ValidationError).issues[0]!.msg).toBe(
      'Bulk payment links are limited to 500 rows per request',
    );
    console.log(`CSV ${(csv.length / 1048576).toFixed(1)} MiB: RSS growth ${growthMb.toFixed(1)} MiB`);
    expect(growthMb).toBeLessThan(48);
  });

  it('CSV of 5 MiB in 500 rows (long metadata cells): read whole with flat memory', async () => {
    const header = 'amount,currency,user_id,project_id,metadata.notes\n';
    const pad = 'x'.repeat(Math.floor(MAX / 500) - 120);
    const csv = Buffer.from(header + `10.00,EUR,${UUID},${UUID},${pad}\n`.repeat(500));
    const { result, growthMb } = await peakRssDuring(() => parseBulkFile(csv));
    expect((result as { rows: unknown[] }).rows).toHaveLength(500);
    console.log(
      `CSV 500 wide rows ${(csv.length / 1048576).toFixed(1)} MiB: RSS growth ${growthMb.toFixed(1)} MiB`,
    );
    expect(growthMb).toBeLessThan(64);
  });

  it('XLSX near 5 MiB: refused at row 501 with flat memory', async () => {
    const xlsx = await bigXlsx(
      75_000,
      (i) => ['10.00', 'EUR', UUID, UUID, `Invoice ${i} ${randomBytes(24).toString('base64')}`],
      ['amount', 'currency', 'user_id', 'project_id', 'description'],
    );
    expect(xlsx.length).toBeLessThan(MAX);
    expect(xlsx.length).toBeGreaterThan(MAX * 0.7);
    const { result, growthMb } = await peakRssDuring(() => parseBulkFile(xlsx));
    expect(result).toBeInstanceOf(ValidationError);
    expect((result as ValidationError).issues[0]!.msg).toBe(
      'Bulk payment links are limited to 500 rows per request',
    );
    console.log(`XLSX ${(xlsx.length / 1048576).toFixed(1)} MiB: RSS growth ${growthMb.toFixed(1)} MiB`);
    expect(growthMb).toBeLessThan(64);
  }, 60_000);
});
