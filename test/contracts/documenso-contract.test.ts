/**
 * The Documenso adapter against the Documenso stand-in (no service): every request it sends and
 * every JSON answer the stand-in gives is checked against the stored copy of Documenso's v2 OpenAPI
 * document (test/standins/documenso/openapi); the envelope it creates (recipients, roles, fields by
 * page percentages, no Documenso email), the snapshot it reads, the hand-over URL, the sealed PDFs,
 * cancel, the recipient replaced on a correction, the webhook secret, and the failure modes: 429 with
 * Retry-After and 503 retried for reads, a 500 on create not repeated, a slow answer past the
 * deadline, a refused document, and the `svc_upstream_*` metrics.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DocumensoEsign } from '../../src/providers/esign/documenso/adapter';
import { DocumensoClient } from '../../src/providers/esign/documenso/client';
import {
  type EnvelopeField,
  type EnvelopeInput,
  EsignNotReadyError,
  EsignProviderError,
} from '../../src/providers/esign/port';
import { checkRequest, checkResponse } from '../standins/documenso/openapi-check';
import {
  type DocumensoStandin,
  STANDIN_API_KEY,
  STANDIN_WEBHOOK_SECRET,
  startDocumensoStandin,
} from '../standins/documenso/server';
import { makePdf } from './fixtures';

let standin: DocumensoStandin;
let metrics: Registry;
let adapter: DocumensoEsign;
let pdf: Buffer;

function build(timeoutMs = 2000) {
  metrics = new Registry();
  const config = {
    apiUrl: standin.url,
    apiKey: STANDIN_API_KEY,
    webhookSecret: STANDIN_WEBHOOK_SECRET,
    timeoutMs,
    maxAttempts: 3,
    maxRetryAfterMs: 5000,
    breakerFailures: 50,
    breakerCooldownMs: 1000,
    reconcileSeconds: 600,
  };
  const log = pino({ level: 'silent' });
  const client = new DocumensoClient(config, { metrics, log, backoffMs: 1, sleep: async () => {} });
  return new DocumensoEsign(client, config, log);
}

const sig = (role: string, page = 1, x = 0.1): EnvelopeField => ({
  fieldId: `${role}_sig`,
  role,
  type: 'signature',
  page,
  x,
  y: 0.8,
  width: 0.3,
  height: 0.05,
  required: true,
  label: null,
  prefill: null,
});

function input(tag: string, extra: Partial<EnvelopeInput> = {}): EnvelopeInput {
  return {
    requestId: `req-${tag}`,
    title: `Agreement ${tag}`,
    documents: [
      {
        fileName: 'agreement.pdf',
        sha256: 'x',
        content: pdf,
        fields: [
          sig('client'),
          sig('company', 2, 0.55),
          {
            ...sig('client'),
            fieldId: 'note',
            type: 'text',
            page: 1,
            y: 0.3,
            required: false,
            label: 'Note',
            prefill: 'Net 30',
          },
        ],
      },
    ],
    participants: [
      {
        participantId: 'p-client',
        role: 'client',
        kind: 'signer',
        signingOrder: 1,
        name: 'Cleo',
        email: `cleo${tag}@example.com`,
      },
      {
        participantId: 'p-company',
        role: 'company',
        kind: 'signer',
        signingOrder: 2,
        name: 'Cory',
        email: `cory${tag}@example.com`,
      },
      {
        participantId: 'p-viewer',
        role: 'auditor',
        kind: 'viewer',
        signingOrder: 1,
        name: 'Vic',
        email: `vic${tag}@example.com`,
      },
    ],
    cc: [{ name: 'Carla', email: `carla${tag}@example.com` }],
    redirectUrl: null,
    ...extra,
  };
}

const counter = (kind: string) =>
  metrics
    .getSingleMetric('svc_upstream_errors_total')
    ?.get()
    .then(
      (m) => m.values.find((v) => v.labels.upstream === 'documenso' && v.labels.kind === kind)?.value ?? 0,
    );

beforeAll(async () => {
  standin = await startDocumensoStandin({ webhookUrl: null });
  pdf = Buffer.from(await makePdf(2), 'base64');
});
afterAll(() => standin?.close());
beforeEach(() => {
  adapter = build();
  standin.control.problems.length = 0;
  standin.control.setDown(false);
  standin.control.setDelayMs(0);
});

describe('Documenso adapter against the stand-in', () => {
  it('creates and distributes the envelope: roles, fields by percentage, no Documenso email, recipients matched', async () => {
    const res = await adapter.createEnvelope(input('a'));
    expect(res.accepted).toBe(true);
    if (!res.accepted) return;
    const e = standin.control.store.envelope(res.ref);
    expect(e.status).toBe('PENDING');
    expect(e.meta).toMatchObject({
      distributionMethod: 'NONE',
      signingOrder: 'PARALLEL',
      envelopeExpirationPeriod: { disabled: true },
    });
    expect(e.externalId).toBe('req-a');
    // Our viewer is a CC there (a Documenso VIEWER would have to act before sealing).
    expect(e.recipients.map((r) => [r.email, r.role, r.expiresAt])).toEqual([
      ['cleoa@example.com', 'SIGNER', null],
      ['corya@example.com', 'SIGNER', null],
      ['vica@example.com', 'CC', null],
      ['carlaa@example.com', 'CC', null],
    ]);
    expect(res.recipients).toEqual([
      { participantId: 'p-client', ref: String(e.recipients[0]!.id) },
      { participantId: 'p-company', ref: String(e.recipients[1]!.id) },
      { participantId: 'p-viewer', ref: String(e.recipients[2]!.id) },
    ]);
    const companySig = e.fields.find((f) => f.recipientId === e.recipients[1]!.id)!;
    expect(companySig).toMatchObject({
      type: 'SIGNATURE',
      page: 2,
      positionX: 55,
      positionY: 80,
      width: 30,
      height: 5,
    });
    const note = e.fields.find((f) => f.type === 'TEXT')!;
    expect(note.fieldMeta).toMatchObject({ type: 'text', text: 'Net 30', readOnly: true, label: 'Note' });
    const ops = standin.control.requests.slice(-3).map((r) => `${r.method} ${r.path}`);
    expect(ops).toEqual([`POST /envelope/create`, `GET /envelope/${res.ref}`, 'POST /envelope/distribute']);
    expect(standin.control.problems).toEqual([]);
  });

  it('reads the envelope as a snapshot; hands over at the signing URL; seals once the signers signed, the viewer never acting', async () => {
    const res = await adapter.createEnvelope(input('b'));
    if (!res.accepted) throw new Error('refused');
    const [client, company, viewer] = res.recipients!.map((x) => Number(x.ref));
    const url = await adapter.hosted.signingUrl(res.ref, String(client));
    const token = standin.control.store.envelope(res.ref).recipients[0]!.token;
    expect(url).toBe(`${standin.appUrl}/sign/${token}`);
    await standin.control.open(res.ref, client!);
    await standin.control.sign(res.ref, client!);
    let snap = await adapter.hosted.readEnvelope(res.ref);
    expect(snap.status).toBe('pending');
    expect(snap.recipients.find((r) => r.ref === String(client))).toMatchObject({
      viewed: true,
      completed: true,
    });
    expect(snap.recipients).toHaveLength(4); // the viewer and the copy are CCs: they act on nothing
    expect(snap.recipients.find((r) => r.ref === String(viewer))).toMatchObject({
      viewed: false,
      completed: false,
    });
    // The viewer opens Documenso's page (through our hand-over): read as viewed, never as signed.
    const vtoken = standin.control.store.envelope(res.ref).recipients[2]!.token;
    expect((await fetch(`${standin.appUrl}/sign/${vtoken}`)).status).toBe(200);
    snap = await adapter.hosted.readEnvelope(res.ref);
    expect(snap.recipients.find((r) => r.ref === String(viewer))).toMatchObject({
      viewed: true,
      completed: false,
    });
    await expect(adapter.hosted.sealedDocuments(res.ref)).rejects.toBeInstanceOf(EsignNotReadyError);
    await standin.control.sign(res.ref, company!);
    // The viewer never acted: the envelope is sealed all the same.
    snap = await adapter.hosted.readEnvelope(res.ref);
    expect(snap.status).toBe('completed');
    const sealed = await adapter.hosted.sealedDocuments(res.ref);
    expect(sealed).toHaveLength(1);
    expect(sealed[0]!.equals(standin.control.store.envelope(res.ref).items[0]!.signed!)).toBe(true);
    expect(standin.control.problems).toEqual([]);
  });

  it('a rejection carries its reason; a void cancels, a second void changes nothing; a 404 is never read as cancelled', async () => {
    const res = await adapter.createEnvelope(input('c'));
    if (!res.accepted) throw new Error('refused');
    await standin.control.reject(res.ref, Number(res.recipients![0]!.ref), 'Wrong address');
    const snap = await adapter.hosted.readEnvelope(res.ref);
    expect(snap.status).toBe('rejected');
    expect(snap.recipients[0]).toMatchObject({ declined: true, declineReason: 'Wrong address' });
    const other = await adapter.createEnvelope(input('d'));
    if (!other.accepted) throw new Error('refused');
    await adapter.voidEnvelope(other.ref, 'Sent by mistake');
    expect(standin.control.store.envelope(other.ref).status).toBe('CANCELLED');
    await adapter.voidEnvelope(other.ref, 'Sent by mistake');
    await adapter.voidEnvelope(res.ref, 'Too late'); // already rejected: left as it is
    // Deleted there, or not visible to this key: the two look alike (404), so nothing final is
    // concluded; the read fails (retried later) and is counted.
    standin.control.store.envelope(other.ref).deletedAt = new Date().toISOString();
    await expect(adapter.hosted.readEnvelope(other.ref)).rejects.toBeInstanceOf(EsignProviderError);
    expect(await counter('not_found')).toBe(1);
    expect(standin.control.problems).toEqual([]);
  });

  it('a corrected participant gets a new Documenso recipient: the old link stops working, the fields are placed again', async () => {
    const res = await adapter.createEnvelope(input('e'));
    if (!res.accepted) throw new Error('refused');
    const old = standin.control.store.envelope(res.ref).recipients[1]!;
    const ref = await adapter.hosted.replaceRecipient(
      res.ref,
      String(old.id),
      {
        participantId: 'p-company',
        role: 'company',
        kind: 'signer',
        signingOrder: 2,
        name: 'Cora',
        email: 'cora@example.com',
      },
      [{ documentIndex: 0, field: sig('company', 2, 0.55) }],
    );
    const e = standin.control.store.envelope(res.ref);
    expect(e.recipients.some((r) => r.id === old.id)).toBe(false);
    expect(standin.control.store.byToken(old.token)).toBeNull();
    expect((await fetch(`${standin.appUrl}/sign/${old.token}`)).status).toBe(404);
    const fresh = e.recipients.find((r) => String(r.id) === ref)!;
    expect(fresh).toMatchObject({ email: 'cora@example.com', name: 'Cora', role: 'SIGNER' });
    expect(
      e.fields.filter((f) => f.recipientId === fresh.id).map((f) => [f.type, f.page, f.positionX]),
    ).toEqual([['SIGNATURE', 2, 55]]);
    // A retry after the fields failed reuses the recipient created before them (none left without fields).
    const cory2 = {
      participantId: 'p-company',
      role: 'company',
      kind: 'signer' as const,
      signingOrder: 2,
      name: 'Cory',
      email: 'cory2@example.com',
    };
    standin.control.failNext({ status: 500, count: 1, path: /^\/envelope\/field\/create-many$/ });
    await expect(
      adapter.hosted.replaceRecipient(res.ref, ref, cory2, [
        { documentIndex: 0, field: sig('company', 2, 0.55) },
      ]),
    ).rejects.toBeInstanceOf(EsignProviderError);
    const again = await adapter.hosted.replaceRecipient(res.ref, ref, cory2, [
      { documentIndex: 0, field: sig('company', 2, 0.55) },
    ]);
    const after = standin.control.store.envelope(res.ref);
    expect(after.recipients.filter((r) => r.email === 'cory2@example.com').map((r) => String(r.id))).toEqual([
      again,
    ]);
    expect(after.fields.filter((f) => String(f.recipientId) === again)).toHaveLength(1);
    expect(standin.control.problems).toEqual([]);
  });

  it('a document Documenso refuses (a signer without a signature field) is not accepted, and its draft is removed', async () => {
    const i = input('f');
    i.documents[0]!.fields = i.documents[0]!.fields.filter((f) => f.role !== 'company');
    const before = standin.control.store.envelopes.size;
    const res = await adapter.createEnvelope(i);
    expect(res).toEqual({ accepted: false, ref: null, reason: 'Document could not be processed' });
    const drafts = [...standin.control.store.envelopes.values()].slice(before);
    expect(drafts.map((d) => d.deletedAt !== null)).toEqual([true]);
  });

  it('429 with Retry-After and 503 are retried for reads; a 500 on create is not repeated', async () => {
    const res = await adapter.createEnvelope(input('g'));
    if (!res.accepted) throw new Error('refused');
    standin.control.failNext({ status: 429, count: 1, retryAfter: '1', path: /^\/envelope\/envelope_/ });
    standin.control.failNext({ status: 503, count: 1, path: /^\/envelope\/envelope_/ });
    const n = standin.control.requests.length;
    expect((await adapter.hosted.readEnvelope(res.ref)).status).toBe('pending');
    expect(standin.control.requests.slice(n).map((r) => r.status)).toEqual([429, 503, 200]);
    standin.control.failNext({ status: 500, count: 1, path: /^\/envelope\/create$/ });
    const m = standin.control.requests.length;
    await expect(adapter.createEnvelope(input('h'))).rejects.toBeInstanceOf(EsignProviderError);
    expect(standin.control.requests.slice(m).map((r) => `${r.path} ${r.status}`)).toEqual([
      '/envelope/create 500',
    ]);
    expect(await counter('server')).toBe(1);
  });

  it('an answer slower than the deadline fails as a timeout; Documenso down fails; every call is measured', async () => {
    adapter = build(150);
    const res = await adapter.createEnvelope(input('i'));
    if (!res.accepted) throw new Error('refused');
    standin.control.setDelayMs(400);
    await expect(adapter.hosted.readEnvelope(res.ref)).rejects.toBeInstanceOf(EsignProviderError);
    expect(await counter('timeout')).toBe(1);
    standin.control.setDelayMs(0);
    standin.control.setDown(true);
    await expect(adapter.hosted.signingUrl(res.ref, res.recipients![0]!.ref)).rejects.toBeInstanceOf(
      EsignProviderError,
    );
    const durations = await metrics.getSingleMetric('svc_upstream_request_duration_seconds')!.get();
    const ops = new Set(durations.values.map((v) => `${v.labels.operation}`));
    expect([...ops]).toEqual(
      expect.arrayContaining([
        'envelope.create',
        'envelope.get',
        'envelope.distribute',
        'envelope.recipient.get',
      ]),
    );
  });

  it('a 200-day contract: Documenso never expires the links first (a recipient past 3 months still signs)', async () => {
    const store = standin.control.store;
    const realNow = store.now;
    try {
      const res = await adapter.createEnvelope(input('x200'));
      if (!res.accepted) throw new Error('refused');
      const [client, company] = res.recipients!.map((x) => Number(x.ref));
      // Without the period, Documenso's default (3 months) would apply: the stand-in does the same.
      const bare = store.create(
        {
          type: 'DOCUMENT',
          title: 'bare',
          recipients: [{ email: 'b@example.com', name: 'B', role: 'APPROVER' }],
        },
        [{ fileName: 'a.pdf', content: pdf }],
      );
      store.distribute(bare);
      const in3Months = new Date(realNow());
      in3Months.setUTCMonth(in3Months.getUTCMonth() + 3);
      expect(Math.abs(Date.parse(bare.recipients[0]!.expiresAt!) - in3Months.getTime())).toBeLessThan(60_000);
      const later = new Date(realNow().getTime() + 200 * 86_400_000);
      store.now = () => later;
      expect(store.canAct(bare, bare.recipients[0]!)).toBe(false);
      const snap = await adapter.hosted.readEnvelope(res.ref);
      expect(snap.recipients.map((r) => r.expiresAt)).toEqual([null, null, null, null]);
      await standin.control.sign(res.ref, client!);
      await standin.control.sign(res.ref, company!);
      expect((await adapter.hosted.readEnvelope(res.ref)).status).toBe('completed');
      expect(standin.control.problems).toEqual([]);
    } finally {
      store.now = realNow;
    }
  });

  it("the stand-in keeps Documenso's rule: a VIEWER who has not marked the document viewed holds the seal", async () => {
    const store = standin.control.store;
    const e = store.create(
      {
        type: 'DOCUMENT',
        title: 'viewer rule',
        recipients: [
          { email: 'a@example.com', name: 'A', role: 'APPROVER' },
          { email: 'v@example.com', name: 'V', role: 'VIEWER' },
          { email: 'c@example.com', name: 'C', role: 'CC' },
        ],
      },
      [{ fileName: 'a.pdf', content: pdf }],
    );
    store.distribute(e);
    expect(await store.sign(e, e.recipients[0]!, {})).toBe(false);
    expect(e.status).toBe('PENDING');
    expect(await store.sign(e, e.recipients[1]!, {})).toBe(true);
    expect(e.status).toBe('COMPLETED');
  });

  it("a plan limit (400 with Documenso's app code) is an outage, retried later, not a refused document", async () => {
    for (const appCode of ['LIMIT_EXCEEDED', 'RECIPIENT_LIMIT_EXCEEDED', 'ENVELOPE_ITEM_LIMIT_EXCEEDED']) {
      standin.control.failNext({ status: 400, count: 1, path: /^\/envelope\/create$/, appCode });
      const err = await adapter.createEnvelope(input(`lim${appCode}`)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EsignProviderError);
      expect((err as Error).message).toContain(appCode);
    }
    expect(await counter('limit_exceeded')).toBe(3);
    // Another 400 is still the document refused.
    standin.control.failNext({
      status: 400,
      count: 1,
      path: /^\/envelope\/create$/,
      appCode: 'INVALID_BODY',
    });
    expect(await adapter.createEnvelope(input('lim-other'))).toEqual({
      accepted: false,
      ref: null,
      reason: 'Document could not be processed',
    });
  });

  it("a team's default recipient who would have to act is refused (draft removed); a default CC is accepted", async () => {
    const store = standin.control.store;
    try {
      store.defaultRecipients = [{ email: 'legal@example.com', name: 'Legal', role: 'SIGNER' }];
      const before = store.envelopes.size;
      await expect(adapter.createEnvelope(input('dr1'))).rejects.toThrow(/did not send/);
      const drafts = [...store.envelopes.values()].slice(before);
      expect(drafts.map((d) => [d.status, d.deletedAt !== null])).toEqual([['DRAFT', true]]);
      store.defaultRecipients = [{ email: 'archive@example.com', name: 'Archive', role: 'CC' }];
      const res = await adapter.createEnvelope(input('dr2'));
      expect(res.accepted).toBe(true);
    } finally {
      store.defaultRecipients = [];
    }
  });

  it('a viewer replaced twice (the first answer lost) leaves one CC, not two', async () => {
    const res = await adapter.createEnvelope(input('v2'));
    if (!res.accepted) throw new Error('refused');
    const viewerRef = res.recipients![2]!.ref;
    const vera = {
      participantId: 'p-viewer',
      role: 'auditor',
      kind: 'viewer' as const,
      signingOrder: 1,
      name: 'Vera',
      email: 'vera@example.com',
    };
    const first = await adapter.hosted.replaceRecipient(res.ref, viewerRef, vera, []);
    // The job did not hear the answer and runs again with the old ref.
    const again = await adapter.hosted.replaceRecipient(res.ref, viewerRef, vera, []);
    expect(again).toBe(first);
    const e = standin.control.store.envelope(res.ref);
    expect(
      e.recipients.filter((r) => r.email === 'vera@example.com').map((r) => [String(r.id), r.role]),
    ).toEqual([[first, 'CC']]);
    expect(standin.control.problems).toEqual([]);
  });

  it('a void that finds the envelope COMPLETED there is logged as an error and counted', async () => {
    const res = await adapter.createEnvelope(input('vc'));
    if (!res.accepted) throw new Error('refused');
    const [client, company] = res.recipients!.map((x) => Number(x.ref));
    await standin.control.sign(res.ref, client!);
    await standin.control.sign(res.ref, company!);
    await adapter.voidEnvelope(res.ref, 'Expired');
    expect(standin.control.store.envelope(res.ref).status).toBe('COMPLETED');
    expect(await counter('completed_at_vendor')).toBe(1);
  });

  it('the reference check refuses what the document does not allow', () => {
    expect(checkRequest('POST', '/envelope/cancel', { reason: 'x' })).toMatch(
      /must have required property 'envelopeId'/,
    );
    expect(
      checkRequest('POST', '/envelope/create', {
        payload: { type: 'DOCUMENT', title: 't', recipients: [{ email: 'a@b.c', name: 'A', role: 'OWNER' }] },
      }),
    ).toMatch(/recipients\/0\/role/);
    expect(checkRequest('POST', '/envelope/nope', {})).toMatch(/No operation/);
    expect(checkResponse('GET', '/envelope/envelope_x', 200, { id: 'x' })).toMatch(
      /must have required property/,
    );
    expect(checkResponse('POST', '/envelope/cancel', 200, { success: true })).toBeNull();
  });

  it('webhooks: the secret in X-Documenso-Secret (constant-time), the envelope named is a hint; others ignored', () => {
    const body = JSON.stringify({
      event: 'DOCUMENT_SIGNED',
      payload: { id: 1, envelopeId: 'envelope_abc' },
      createdAt: 'x',
      webhookEndpoint: 'y',
    });
    const parse = (headers: Record<string, string>, raw = body) =>
      adapter.inbound.parse({ rawBody: raw, headers });
    expect(parse({})).toEqual({ type: 'refused', status: 401 });
    expect(parse({ 'x-documenso-secret': 'wrong' })).toEqual({ type: 'refused', status: 401 });
    expect(parse({ 'x-documenso-secret': '' })).toEqual({ type: 'refused', status: 401 });
    expect(parse({ 'x-documenso-secret': STANDIN_WEBHOOK_SECRET })).toEqual({
      type: 'hint',
      hint: { envelopeRef: 'envelope_abc' },
    });
    const template = JSON.stringify({ event: 'TEMPLATE_CREATED', payload: { envelopeId: 'envelope_t' } });
    expect(parse({ 'x-documenso-secret': STANDIN_WEBHOOK_SECRET }, template)).toEqual({ type: 'ignored' });
    expect(parse({ 'x-documenso-secret': STANDIN_WEBHOOK_SECRET }, '{"x":1}')).toEqual({
      type: 'ignored',
      keys: ['x'],
    });
    expect(adapter.verifyNotification()).toBeNull();
  });

  it('has the reconcile part (lost webhooks): live envelopes are read again after the bound', () => {
    expect(adapter.reconcile).toEqual({ afterSeconds: 600 });
  });
});
