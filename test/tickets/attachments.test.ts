/**
 * Ticket attachments are typed by their bytes: pdf, png and jpeg by magic number, txt/csv/json/log
 * as UTF-8 text without NUL; spoofed names, foreign binaries, oversize files and a sixth file are 422.
 * Files of internal notes are never served on client routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { staffHeaders } from '../org/fixtures';
import { api, b64, FILES, openTicket } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let caller: TestCaller;
let other: TestCaller;
let staff: Record<string, string>;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_TICKET_MAX_ATTACHMENT_BYTES: '2048' } });
  call = api(ctx);
  caller = await createTestClient(ctx);
  other = await createTestClient(ctx);
  staff = (await staffHeaders(ctx)).headers;
});
afterAll(() => ctx.close());

const file = (file_name: string, bytes: Buffer | string) => ({ file_name, content_base64: b64(bytes) });

describe('ticket attachments', () => {
  it('accepts every allowed kind, typed from the bytes, and serves them back unchanged', async () => {
    const files = [
      file('statement.pdf', FILES.pdf),
      file('screen.png', FILES.png),
      file('photo.JPG', FILES.jpeg),
      file('notes.txt', 'Grüße — ünïcödé text\n'),
      file('export.csv', 'id,amount\n1,12.50\n'),
    ];
    const t = await openTicket(ctx, caller, { attachments: files });
    const msgs = (await call('GET', `/tickets/${t.ticket_id}/messages`, caller.headers)).json();
    const atts = msgs.messages[0].attachments as {
      attachment_id: string;
      content_type: string;
      size: number;
      file_name: string;
    }[];
    expect(atts.map((a) => [a.file_name, a.content_type])).toEqual([
      ['statement.pdf', 'application/pdf'],
      ['screen.png', 'image/png'],
      ['photo.JPG', 'image/jpeg'],
      ['notes.txt', 'text/plain; charset=utf-8'],
      ['export.csv', 'text/csv; charset=utf-8'],
    ]);
    const got = await call(
      'GET',
      `/tickets/${t.ticket_id}/attachments/${atts[0]!.attachment_id}`,
      caller.headers,
    );
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.headers['content-disposition']).toBe('attachment; filename="statement.pdf"');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(got.rawPayload, FILES.pdf)).toBe(0);
    // Replies take attachments too (json, log).
    const reply = await call('POST', `/tickets/${t.ticket_id}/messages`, caller.headers, {
      body: 'logs attached',
      attachments: [file('payload.json', '{"a":1}'), file('server.log', 'line 1\nline 2\n')],
    });
    expect(reply.json().attachments.map((a: { content_type: string }) => a.content_type)).toEqual([
      'application/json; charset=utf-8',
      'text/plain; charset=utf-8',
    ]);
    // Another client cannot reach them.
    const foreign = await call(
      'GET',
      `/tickets/${t.ticket_id}/attachments/${atts[0]!.attachment_id}`,
      other.headers,
    );
    expect(foreign.json()).toEqual({ detail: 'Ticket not found' });
    const unknown = await call('GET', `/tickets/${t.ticket_id}/attachments/${t.ticket_id}`, caller.headers);
    expect(unknown.json()).toEqual({ detail: 'Attachment not found' });
  });

  it('refuses spoofed and foreign files with the field named', async () => {
    const cases: [ReturnType<typeof file>, RegExp][] = [
      [file('invoice.pdf', FILES.png), /content is png but the file name ends in '.pdf'/],
      [file('invoice.pdf', 'just text pretending'), /content is text but the file name ends in '.pdf'/],
      [file('setup.pdf', FILES.exe), /type is not allowed/],
      [file('archive.txt', FILES.zip), /type is not allowed/],
      [file('nul.txt', Buffer.from([0x61, 0x00, 0x62])), /type is not allowed/],
      [file('latin1.txt', Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65])), /type is not allowed/],
      [file('page.html', '<html></html>'), /type is not allowed/],
      [file('big.txt', 'x'.repeat(2049)), /at most 2048 bytes/],
      [{ file_name: 'bad.txt', content_base64: '***' }, /base64/],
    ];
    for (const [f, msg] of cases) {
      const res = await call('POST', '/tickets', caller.headers, {
        subject: 'x',
        body: 'y',
        category: 'technical',
        attachments: [file('ok.txt', 'fine'), f],
      });
      expect(res.statusCode, f.file_name).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'attachments', 1, 'content_base64']);
      expect(res.json().detail[0].msg).toMatch(msg);
    }
    const six = await call('POST', '/tickets', caller.headers, {
      subject: 'x',
      body: 'y',
      category: 'technical',
      attachments: Array.from({ length: 6 }, (_, i) => file(`f${i}.txt`, 'a')),
    });
    expect(six.statusCode).toBe(422);
    // Nothing was stored by the refused requests.
    expect((await call('GET', '/tickets?q=x', caller.headers)).json().tickets).toHaveLength(0);
  });

  it('never serves an internal note\u2019s file on a client route; staff download it', async () => {
    const t = await openTicket(ctx, caller);
    const note = await call('POST', `/admin/tickets/${t.ticket_id}/messages`, staff, {
      body: 'risk memo',
      internal: true,
      attachments: [file('memo.txt', 'internal only')],
    });
    const attId = note.json().attachments[0].attachment_id;
    const client = await call('GET', `/tickets/${t.ticket_id}/attachments/${attId}`, caller.headers);
    expect(client.json()).toEqual({ detail: 'Attachment not found' });
    const viaStaff = await call('GET', `/admin/tickets/${t.ticket_id}/attachments/${attId}`, staff);
    expect(viaStaff.body).toBe('internal only');
  });
});
