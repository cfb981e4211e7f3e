/**
 * Download operations are documented under the media type they really answer, so a generated
 * client reads CSV, JSON Lines or PDF bytes instead of parsing them as JSON. The setup file checks
 * every successful answer of every test file against its documented media types
 * (test/helpers/status-recorder.ts); this file fetches the downloads that are cheap to produce and
 * compares the document with the real Content-Type directly.
 */
import { describe, expect, it } from 'vitest';
import { createJob, rowFor } from '../bulk-links/fixtures';
import { createTemplate } from '../contracts/fixtures';
import { mediaTypeOf } from '../helpers/status-recorder';
import { paymentApp } from '../helpers/suites';

const s = paymentApp();

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: { type?: string } }> }> }>
  >;
};
const doc = () => s.ctx.app.swagger() as unknown as Doc;
const documentedTypes = (path: string) =>
  Object.keys(doc().paths[`/api/v1${path}`]!.get!.responses['200']!.content ?? {});

describe('download media types', () => {
  it('no GET operation documents a string body (a file) as application/json alone', () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc().paths)) {
      const content = item.get?.responses['200']?.content ?? {};
      const types = Object.keys(content);
      if (
        types.length === 1 &&
        types[0] === 'application/json' &&
        content[types[0]]!.schema.type === 'string'
      )
        wrong.push(path);
    }
    expect(wrong).toEqual([]);
  });

  it('each download answers a media type its operation documents', async () => {
    const job = await createJob(s.ctx, s.w.caller, { rows: [rowFor(s.w)], preview: true });
    const template = await createTemplate(s.ctx, s.w.caller);
    const downloads: [documentPath: string, url: string, expected: string][] = [
      ['/checkout/paylink/bulk/template.csv', '/checkout/paylink/bulk/template.csv', 'text/csv'],
      [
        '/checkout/paylink/bulk/{bulk_id}/results.csv',
        `/checkout/paylink/bulk/${job.bulk_id}/results.csv`,
        'text/csv',
      ],
      ['/activity-logs/export', '/activity-logs/export?format=csv', 'text/csv'],
      ['/activity-logs/export', '/activity-logs/export?format=jsonl', 'application/x-ndjson'],
      [
        '/contracts/templates/{template_id}/document',
        `/contracts/templates/${template.template_id}/document`,
        'application/pdf',
      ],
    ];
    for (const [documentPath, url, expected] of downloads) {
      const res = await s.ctx.app.inject({ url: `/api/v1${url}`, headers: s.w.caller.headers });
      expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
      const real = mediaTypeOf(res.headers['content-type']);
      expect(real, url).toBe(expected);
      expect(documentedTypes(documentPath), url).toContain(real);
    }
    expect(documentedTypes('/activity-logs/export').sort()).toEqual(['application/x-ndjson', 'text/csv']);
  });
});
