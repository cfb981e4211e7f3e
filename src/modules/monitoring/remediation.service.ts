/**
 * What each remediation type issues besides its page link (docs/guides/monitoring.md):
 * - source_of_funds: the questionnaire, with an optional document stored with the submission;
 * - identity_reverification: a KYC (user) or KYB (business customer) link made by the kyc module's
 *   use case right after the decision commits (it calls the verification provider, so never inside
 *   the transaction); the page retries when that failed;
 * - wallet_ownership: a section 3 ownership request for counterparty.wallet, opened in the
 *   decision's own transaction.
 * How their outcomes move the remediation on is in monitoring.listeners.ts.
 */
import { and, eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import type { MonitoredTransactionInsert } from '../../db/schema/index';
import { monitoringRemediationDocuments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import type { EventBus } from '../../platform/events';
import { CHAINS, type Chain, isValidAddress } from '../../shared/chain-addresses';
import { notFound } from '../../shared/errors';
import { createVerificationLink } from '../kyc/verification.service';
import { cancelOwnershipInTx, createOwnershipInTx } from '../screening/ownership.service';
import { MonitoringMessages } from './monitoring.messages';
import type { MonitoredTransactionRow } from './monitoring.repo';
import { findMonitored, setRemediationVerification } from './monitoring.repo';
import { issueRemediation } from './monitoring.transitions';
import type { RemediationType } from './rules.policy';

export interface RemediationSubject {
  userId: string | null;
  businessCustomerId: string | null;
  wallet: { chain: string; address: string } | null;
}

export const subjectOfRow = (r: MonitoredTransactionRow): RemediationSubject => ({
  userId: r.userId,
  businessCustomerId: r.businessCustomerId,
  wallet: (r.counterparty as { wallet?: { chain: string; address: string } }).wallet ?? null,
});

const validWallet = (w: RemediationSubject['wallet']): w is { chain: Chain; address: string } =>
  !!w && CHAINS.includes(w.chain as Chain) && isValidAddress(w.chain as Chain, w.address);

/** Why a remediation of `type` cannot be issued for this transaction; null when it can. */
export function remediationBlocker(type: RemediationType, s: RemediationSubject): string | null {
  if (type === 'identity_reverification' && !s.userId && !s.businessCustomerId)
    return 'identity_reverification needs a transaction with user_id or business_customer_id';
  if (type === 'wallet_ownership' && !validWallet(s.wallet))
    return 'wallet_ownership needs counterparty.wallet with a valid address for its chain';
  return null;
}

/** The remediation's columns; a wallet_ownership one also opens its ownership request in `tx`. */
export async function issueRemediationInTx(
  tx: DbOrTx,
  deps: Pick<Deps, 'config'>,
  now: Date,
  ctx: { clientId: string; clientReference: string; type: RemediationType; ttlHours: number },
  s: RemediationSubject,
): Promise<Partial<MonitoredTransactionInsert>> {
  const cols = {
    ...issueRemediation(ctx.type, now, ctx.ttlHours),
    remediationVerificationId: null,
    remediationOwnershipRequestId: null,
  };
  if (ctx.type !== 'wallet_ownership' || !validWallet(s.wallet)) return cols;
  const own = await createOwnershipInTx(tx, deps, now, ctx.clientId, {
    chain: s.wallet.chain,
    address: s.wallet.address,
    ...(s.userId ? { user_id: s.userId } : {}),
    ...(s.businessCustomerId ? { business_customer_id: s.businessCustomerId } : {}),
    // The ownership request lives as long as the remediation, within what section 3 allows.
    expires_in_seconds: Math.min(604_800, Math.max(300, ctx.ttlHours * 3600)),
    delivery: 'none',
    client_reference: `monitoring:${ctx.clientReference}`.slice(0, 100),
  });
  return { ...cols, remediationOwnershipRequestId: own.id };
}

/**
 * identity_reverification: issues the KYC/KYB link through the kyc module (outside any transaction)
 * and records it on the remediation. A refusal (links disabled, provider down) is logged and leaves
 * the remediation without a link; the remediation page asks again when it is opened.
 */
export async function issueVerificationLink(
  deps: Deps,
  row: MonitoredTransactionRow,
): Promise<MonitoredTransactionRow> {
  if (
    row.remediationType !== 'identity_reverification' ||
    row.remediationStatus !== 'pending' ||
    row.remediationVerificationId ||
    !row.remediationToken
  )
    return row;
  const kind = row.userId ? 'kyc' : 'kyb';
  const subjectId = row.userId ?? row.businessCustomerId;
  if (!subjectId) return row;
  try {
    const link = await createVerificationLink(deps, { clientId: row.clientId }, kind, subjectId, {});
    return (
      (await setRemediationVerification(deps.db, row.id, row.remediationToken, link.verification_id)) ?? row
    );
  } catch (err) {
    deps.log.warn({ err, monitoredTransactionId: row.id }, 'remediation verification link not issued');
    return row;
  }
}

/** A revoked remediation (review APPROVED / DECLINED) cancels the ownership request it opened. */
export async function revokeRemediationInTx(
  tx: Tx,
  row: MonitoredTransactionRow,
  ctx: { now: Date; events: EventBus },
) {
  if (row.remediationOwnershipRequestId)
    await cancelOwnershipInTx(tx, row.clientId, row.remediationOwnershipRequestId, ctx);
}

export interface RemediationDocument {
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  content: Buffer;
}

/** Stores the document of a source_of_funds submission; returns the reference kept in the answers. */
export async function storeRemediationDocument(
  tx: DbOrTx,
  row: MonitoredTransactionRow,
  doc: RemediationDocument,
  now: Date,
) {
  const [d] = await tx
    .insert(monitoringRemediationDocuments)
    .values({ clientId: row.clientId, monitoredTransactionId: row.id, ...doc, createdAt: now })
    .returning({ id: monitoringRemediationDocuments.id });
  return {
    document_id: d!.id,
    file_name: doc.fileName,
    content_type: doc.contentType,
    size: doc.size,
    sha256: doc.sha256,
  };
}

/** GET /monitoring/transactions/{id}/remediation/documents/{document_id}: the client's own only. */
export async function downloadRemediationDocument(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  monitoredTransactionId: string,
  documentId: string,
) {
  if (!(await findMonitored(deps.db, clientId, monitoredTransactionId)))
    throw notFound(MonitoringMessages.notFound);
  const d = monitoringRemediationDocuments;
  const [row] = await deps.db
    .select()
    .from(d)
    .where(
      and(
        eq(d.id, documentId),
        eq(d.clientId, clientId),
        eq(d.monitoredTransactionId, monitoredTransactionId),
      ),
    );
  if (!row) throw notFound(MonitoringMessages.documentNotFound);
  return row;
}
