/**
 * `contract.request.completed`: the merchant's signal that a request is done and, with a `payment`,
 * where to send the payer. A request without `payment` emits it in the completing transaction. With
 * one, the payment link is made through the paylink use case, whose bank call runs outside any
 * database transaction, so the event is emitted in the transaction that records the link (or
 * `payment.error`) on the request: it always carries `transaction_id` and `checkout_url` (null only
 * with `payment.error`). The completion commits `payment_due`, so a crash before that transaction
 * is caught up by the worker and the event is never lost; its dedup key makes it once only.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { contractDocuments } from '../../../db/schema/index';
import { emitEvent } from '../../../outbox/emit';
import { participantsOf, type RequestRow } from './requests.repo';

export interface CompletedPayment {
  transactionId: string | null;
  checkoutUrl: string | null;
}

/** The sealed documents of a completed request, in template order. */
function signedOf(db: DbOrTx, requestId: string) {
  return db
    .select({
      id: contractDocuments.id,
      fileName: contractDocuments.fileName,
      sha256: contractDocuments.sha256,
    })
    .from(contractDocuments)
    .where(and(eq(contractDocuments.requestId, requestId), eq(contractDocuments.kind, 'signed')))
    .orderBy(asc(contractDocuments.position));
}

/** Emits the event for a completed request `r` (its row as committed, with the certificate). */
export async function emitRequestCompleted(
  tx: DbOrTx,
  r: RequestRow,
  payment: CompletedPayment,
  occurredAt: Date,
): Promise<void> {
  const [ps, signed] = await Promise.all([participantsOf(tx, r.id), signedOf(tx, r.id)]);
  await emitEvent(tx, {
    clientId: r.clientId,
    type: 'contract.request.completed',
    data: {
      contract_request_id: r.id,
      flow_id: r.flowId,
      title: r.title,
      external_reference: r.externalReference,
      completed_at: (r.completedAt ?? occurredAt).toISOString(),
      participants: ps.map((p) => ({
        participant_id: p.id,
        role: p.role,
        email: p.email,
        name: p.name,
        completed_at: p.completedAt?.toISOString() ?? null,
      })),
      documents: signed.map((d) => ({
        document_id: d.id,
        file_name: d.fileName,
        sha256: d.sha256,
        download_path: `/api/v1/contracts/requests/${r.id}/documents/${d.id}`,
      })),
      certificate_sha256: r.certificateSha256,
      transaction_id: payment.transactionId,
      checkout_url: payment.checkoutUrl,
    },
    occurredAt,
    dedupKey: `contract-request:${r.id}:completed-event`,
  });
}
