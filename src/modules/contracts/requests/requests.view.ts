/** The contract request as the API shows it. */
import type { DbOrTx } from '../../../db/client';
import type { Deps } from '../../../deps';
import { decrypt } from '../../../shared/crypto';
import {
  type DocumentMeta,
  documentsOf,
  documentsOfMany,
  type ParticipantRow,
  participantsOf,
  participantsOfMany,
  type RequestRow,
} from './requests.repo';

/** A request row as views read it (a list page does not load the certificate PDF). */
type ViewedRequest = Omit<RequestRow, 'certificate'>;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function signingUrlOf(deps: Pick<Deps, 'secrets' | 'config'>, p: ParticipantRow): string | null {
  if (!p.tokenEnc || p.status === 'completed' || p.status === 'canceled') return null;
  return `${deps.config.publicUrl}/sign/${decrypt(deps.secrets.encryptionKey, p.tokenEnc)}`;
}

export function participantView(deps: Pick<Deps, 'secrets' | 'config'>, p: ParticipantRow) {
  return {
    participant_id: p.id,
    role: p.role,
    kind: p.kind,
    name: p.name,
    email: p.email,
    user_id: p.userId,
    business_customer_id: p.businessCustomerId,
    signing_order: p.signingOrder,
    auth: p.auth,
    status: p.status,
    signing_url: signingUrlOf(deps, p),
    viewed_at: iso(p.viewedAt),
    completed_at: iso(p.completedAt),
    declined_at: iso(p.declinedAt),
    decline_reason: p.declineReason,
  };
}

export async function requestView(deps: Pick<Deps, 'secrets' | 'config'>, db: DbOrTx, r: ViewedRequest) {
  const [ps, docs] = await Promise.all([participantsOf(db, r.id), documentsOf(db, r.id)]);
  return buildView(deps, r, ps, docs);
}

/** The views of a page of requests: two statements whatever the page size. */
export async function requestViews(
  deps: Pick<Deps, 'secrets' | 'config'>,
  db: DbOrTx,
  rows: ViewedRequest[],
) {
  const ids = rows.map((r) => r.id);
  const [ps, docs] = await Promise.all([participantsOfMany(db, ids), documentsOfMany(db, ids)]);
  const group = <T extends { requestId: string }>(items: T[]) => {
    const by = new Map<string, T[]>();
    for (const x of items) by.set(x.requestId, [...(by.get(x.requestId) ?? []), x]);
    return by;
  };
  const psBy = group(ps);
  const docsBy = group(docs);
  return rows.map((r) => buildView(deps, r, psBy.get(r.id) ?? [], docsBy.get(r.id) ?? []));
}

function buildView(
  deps: Pick<Deps, 'secrets' | 'config'>,
  r: ViewedRequest,
  ps: ParticipantRow[],
  docs: DocumentMeta[],
) {
  const completed = r.status === 'completed';
  const pay = r.payment;
  return {
    contract_request_id: r.id,
    title: r.title,
    status: r.status,
    status_reason: r.statusReason,
    flow_id: r.flowId,
    template_ids: r.templateIds,
    template_versions: r.templateVersions,
    external_reference: r.externalReference,
    delivery: r.delivery,
    expires_at: r.expiresAt.toISOString(),
    reminder_interval_days: r.reminderIntervalDays,
    next_reminder_at: iso(r.nextReminderAt),
    certificate_sha256: r.certificateSha256,
    metadata: r.metadata,
    created_at: r.createdAt.toISOString(),
    sent_at: iso(r.sentAt),
    completed_at: iso(r.completedAt),
    declined_at: iso(r.declinedAt),
    voided_at: iso(r.voidedAt),
    void_reason: r.voidReason,
    participants: ps.map((p) => participantView(deps, p)),
    cc_recipients: r.ccRecipients.map((c) => ({
      email: c.email,
      name: c.name,
      when: c.when,
      sent_at: c.sent_at ?? null,
    })),
    payment: pay
      ? {
          amount: pay.amount,
          currency: pay.currency,
          project_id: pay.project_id,
          user_id: pay.user_id,
          business_customer_id: pay.business_customer_id,
          transaction_id: pay.transaction_id,
          checkout_url: pay.checkout_url,
          error: pay.error,
        }
      : null,
    // Before completion the originals; after it the sealed ones (the originals stay downloadable by id).
    documents: docs
      .filter((d) => (completed ? d.kind === 'signed' : d.kind === 'original'))
      .map((d) => ({
        document_id: d.id,
        file_name: d.fileName,
        kind: d.kind as 'original',
        sha256: d.sha256,
        size: d.size,
      })),
  };
}
