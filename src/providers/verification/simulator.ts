/**
 * The sandbox verification provider: a deterministic vendor simulator behind the
 * VerificationProvider port. It keeps its sessions (and the results it produced, encrypted) in
 * its own table and reports every change as an HMAC-signed notification POSTed through the
 * service's real `/api/v1/providers/verification/notifications` route, so signature checking and
 * the result fetch are always exercised.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sandboxVerificationSessions } from '../../db/schema/index';
import type { Clock } from '../../shared/clock';
import { decrypt, encrypt } from '../../shared/crypto';
import { newId, randomToken } from '../../shared/ids';
import { signProviderPayload, verifyProviderSignature } from '../signature';
import {
  type CreateVerificationInput,
  type DocumentRef,
  type DownloadedFile,
  RECORD_STATUSES,
  type SimulatedChecks,
  type SimulatedOutcome,
  VERIFICATION_SIGNATURE_HEADER,
  type VerificationAttachContext,
  type VerificationNotification,
  type VerificationProvider,
  VerificationProviderError,
  type VerificationResult,
} from './port';
import { SANDBOX_DOCUMENTS, samplePdf, sandboxFile } from './sandbox-files';

type Row = typeof sandboxVerificationSessions.$inferSelect;

export interface SandboxVerificationOptions {
  secret: string;
  encryptionKey: Buffer;
}

const digits = (ref: string, n: number) =>
  String(BigInt(`0x${createHash('sha256').update(ref).digest('hex').slice(0, 15)}`)).slice(0, n);

export class SandboxVerificationProvider implements VerificationProvider {
  readonly name = 'sandbox';
  private ctx: VerificationAttachContext | null = null;

  constructor(private readonly opts: SandboxVerificationOptions) {}

  attach(ctx: VerificationAttachContext): void {
    this.ctx = ctx;
  }

  private get db(): Db {
    if (!this.ctx) throw new VerificationProviderError('sandbox provider is not attached to the service');
    return this.ctx.db;
  }

  private get clock(): Clock {
    if (!this.ctx) throw new VerificationProviderError('sandbox provider is not attached to the service');
    return this.ctx.clock;
  }

  async createSession(input: CreateVerificationInput): Promise<{ providerRef: string }> {
    const providerRef = `vs_${randomToken(12)}`;
    const s = input.subject;
    await this.db.insert(sandboxVerificationSessions).values({
      providerRef,
      kind: s.kind,
      level: input.level,
      checks: input.checks,
      subject: {
        first_name: s.firstName ?? null,
        last_name: s.lastName ?? null,
        email: s.email,
        company_name: s.companyName ?? null,
        registration_number: s.registrationNumber ?? null,
        country: s.country ?? null,
        external_id: input.verificationId,
      },
    });
    return { providerRef };
  }

  async fetchResult(providerRef: string): Promise<VerificationResult | null> {
    const s = await this.find(providerRef);
    if (!s) return null;
    if (!s.resultEnc) return emptyResult(s, s.updatedAt);
    const r = JSON.parse(decrypt(this.opts.encryptionKey, s.resultEnc)) as VerificationResult;
    return {
      ...r,
      updatedAt: new Date(r.updatedAt),
      decisionAt: r.decisionAt ? new Date(r.decisionAt) : null,
    };
  }

  async fetchDocument(providerRef: string, fileRole: string): Promise<DownloadedFile | null> {
    const r = await this.fetchResult(providerRef);
    if (!r?.documents.some((d) => d.file_role === fileRole)) return null;
    const f = sandboxFile(fileRole);
    return f ? { fileName: f.fileName, contentType: f.contentType, bytes: f.bytes } : null;
  }

  async fetchQuestionnaireFile(providerRef: string, qfileId: string): Promise<DownloadedFile | null> {
    const r = await this.fetchResult(providerRef);
    const files = (r?.sofQuestionnaire?.files ?? []) as { qfile_id: string; file_name: string }[];
    const f = files.find((x) => x.qfile_id === qfileId);
    if (!f) return null;
    return {
      fileName: f.file_name,
      contentType: 'application/pdf',
      bytes: samplePdf(`Sandbox ${f.file_name}`),
    };
  }

  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): VerificationNotification | null {
    const h = headers[VERIFICATION_SIGNATURE_HEADER];
    if (!verifyProviderSignature(this.opts.secret, rawBody, Array.isArray(h) ? h[0] : h, this.clock.now()))
      return null;
    return parseNotification(rawBody);
  }

  async simulate(providerRef: string, outcome: SimulatedOutcome, checks?: SimulatedChecks): Promise<void> {
    const s = await this.find(providerRef);
    if (!s) throw new VerificationProviderError('unknown verification session');
    const now = this.clock.now();
    const revision = s.revision + 1;
    const result = buildResult(s, outcome, checks, now, revision);
    await this.db
      .update(sandboxVerificationSessions)
      .set({
        status: outcome,
        revision,
        resultEnc: encrypt(this.opts.encryptionKey, JSON.stringify(result)),
        updatedAt: now,
      })
      .where(eq(sandboxVerificationSessions.providerRef, providerRef));
    await this.notify({ providerRef, status: outcome, revision, occurredAt: now });
  }

  private async find(providerRef: string): Promise<Row | null> {
    const [s] = await this.db
      .select()
      .from(sandboxVerificationSessions)
      .where(eq(sandboxVerificationSessions.providerRef, providerRef));
    return s ?? null;
  }

  private async notify(n: { providerRef: string; status: string; revision: number; occurredAt: Date }) {
    if (!this.ctx) throw new VerificationProviderError('sandbox provider is not attached to the service');
    const rawBody = JSON.stringify({
      event_id: newId(),
      verification_ref: n.providerRef,
      status: n.status,
      revision: n.revision,
      occurred_at: n.occurredAt.toISOString(),
    });
    const res = await this.ctx.deliver(rawBody, {
      'content-type': 'application/json',
      [VERIFICATION_SIGNATURE_HEADER]: signProviderPayload(this.opts.secret, rawBody, this.clock.now()),
    });
    if (res.statusCode >= 300)
      throw new VerificationProviderError(
        `notification rejected with ${res.statusCode}: ${res.body.slice(0, 200)}`,
      );
  }
}

/** The vendor's notification format: `{event_id, verification_ref, status, revision, occurred_at}`. */
export function parseNotification(rawBody: string): VerificationNotification | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return null;
  }
  if (
    !body ||
    typeof body.event_id !== 'string' ||
    typeof body.verification_ref !== 'string' ||
    typeof body.status !== 'string' ||
    typeof body.occurred_at !== 'string'
  )
    return null;
  const occurredAt = new Date(body.occurred_at);
  if (Number.isNaN(occurredAt.getTime())) return null;
  return {
    eventId: body.event_id,
    providerRef: body.verification_ref,
    status: body.status,
    revision: Number.isInteger(body.revision) ? (body.revision as number) : 0,
    occurredAt,
  };
}

const isRecordStatus = (status: string): status is (typeof RECORD_STATUSES)[number] =>
  (RECORD_STATUSES as readonly string[]).includes(status);

function emptyResult(s: Row, at: Date): VerificationResult {
  return {
    providerRef: s.providerRef,
    status: isRecordStatus(s.status) ? s.status : 'unknown',
    revision: s.revision,
    updatedAt: at,
    decisionAt: null,
    dataTrusted: false,
    identity: null,
    checks: {},
    sofQuestionnaire: null,
    documents: [],
    company: null,
  };
}

const STATUS_OF: Record<SimulatedOutcome, { check: string; poa: string; score: [number, number] }> = {
  approved: { check: 'passed', poa: 'approved', score: [0.97, 0.93] },
  declined: { check: 'failed', poa: 'declined', score: [0.21, 0.34] },
  in_review: { check: 'review', poa: 'review', score: [0.62, 0.58] },
  expired: { check: 'not_completed', poa: 'not_completed', score: [0, 0] },
};

function doc(role: string): DocumentRef {
  const d = SANDBOX_DOCUMENTS[role]!;
  return { file_role: role, file_name: d.fileName, content_type: d.contentType };
}

/** Which checks ran: the tester's choice when given, else every check of the level (AML with 0 hits). */
function ranChecks(levelChecks: string[], checks?: SimulatedChecks) {
  if (checks)
    return {
      liveness: !!checks.liveness,
      faceMatch: !!checks.face_match,
      nfc: !!checks.nfc,
      poa: !!checks.poa,
      amlHits: typeof checks.aml_hits === 'number' ? checks.aml_hits : null,
    };
  return {
    liveness: levelChecks.includes('liveness'),
    faceMatch: levelChecks.includes('face_match'),
    nfc: levelChecks.includes('nfc'),
    poa: levelChecks.includes('poa'),
    amlHits: levelChecks.includes('aml') ? 0 : null,
  };
}

function amlHits(n: number, name: string): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    hit_id: `hit_${i + 1}`,
    name,
    list: i % 2 === 0 ? 'pep' : 'sanctions',
    source: 'Sandbox watchlist',
    match_score: 0.8,
  }));
}

export function buildResult(
  s: Row,
  outcome: SimulatedOutcome,
  checks: SimulatedChecks | undefined,
  now: Date,
  revision: number,
): VerificationResult {
  const base = emptyResult(s, now);
  const result: VerificationResult = {
    ...base,
    status: outcome,
    revision,
    decisionAt: outcome === 'approved' || outcome === 'declined' ? now : null,
    dataTrusted: outcome === 'approved',
  };
  // The applicant never finished: nothing was extracted.
  if (outcome === 'expired') return result;
  const st = STATUS_OF[outcome];
  const ran = ranChecks(s.checks, checks);
  const sub = s.subject;
  if (s.kind === 'kyb') {
    const company = sub.company_name ?? 'Sandbox Company Ltd';
    result.company = {
      companyName: company,
      registrationNumber: sub.registration_number ?? `SB${digits(s.providerRef, 8)}`,
      registrationCountry: sub.country ?? 'GB',
      companyType: 'private_limited_company',
      incorporationDate: '2015-03-02',
      registryStatus: outcome === 'declined' ? 'dissolved' : 'active',
      registryDetails: s.checks.includes('registry')
        ? {
            registry: 'Sandbox Companies Registry',
            registered_address: '1 Registry Lane, London EC1A 1AA',
            industry_codes: ['62012'],
          }
        : null,
      keyPeople: s.checks.includes('key_people')
        ? [
            { name: 'Alex Director', role: 'director', nationality: 'GB' },
            { name: 'Sam Owner', role: 'ubo', ownership_percentage: 75, nationality: 'GB' },
          ]
        : null,
    };
    if (ran.amlHits !== null)
      result.checks.aml = {
        status: ran.amlHits > 0 ? 'potential_match' : 'clear',
        totalHits: ran.amlHits,
        hits: amlHits(ran.amlHits, company),
      };
    result.documents = [doc('certificate_of_incorporation'), doc('register_extract')];
    return result;
  }
  const first = sub.first_name ?? 'Jane';
  const last = sub.last_name ?? 'Doe';
  result.identity = {
    firstName: first,
    lastName: last,
    fullName: `${first} ${last}`,
    dateOfBirth: '1990-04-12',
    nationality: 'GB',
    documentType: 'passport',
    documentIssuingCountry: 'GB',
    documentExpiry: '2031-06-30',
    gender: 'unspecified',
    documentNumber: `P${digits(s.providerRef, 8)}`,
  };
  result.documents = [doc('passport')];
  if (ran.liveness) {
    result.checks.liveness = { status: st.check, score: st.score[0] };
    result.documents.push(doc('selfie'));
  }
  if (ran.faceMatch) result.checks.faceMatch = { status: st.check, score: st.score[1] };
  if (ran.nfc) result.checks.nfc = { status: st.check };
  if (ran.poa) {
    result.checks.poa = {
      status: st.poa,
      details: {
        address_line1: '221B Baker Street',
        city: 'London',
        postal_code: 'NW1 6XE',
        country: 'GB',
        document_type: 'utility_bill',
        issued_at: '2025-12-01',
      },
    };
    result.documents.push(doc('proof_of_address'));
  }
  if (ran.amlHits !== null)
    result.checks.aml = {
      status: ran.amlHits > 0 ? 'potential_match' : 'clear',
      totalHits: ran.amlHits,
      hits: amlHits(ran.amlHits, `${first} ${last}`),
    };
  if (s.checks.includes('sof_questionnaire'))
    result.sofQuestionnaire = {
      source_of_funds: 'employment_income',
      occupation: 'Software engineer',
      annual_income: '50000-100000',
      expected_monthly_volume: '1000-5000',
      files: [{ qfile_id: `qf_${digits(s.providerRef, 10)}`, file_name: 'payslip.pdf' }],
    };
  return result;
}
