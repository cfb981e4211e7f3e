/**
 * Writes a subject's (user's or business customer's) verification status and emits
 * kyc.status_changed / kyb.status_changed in the caller's transaction, when anything the event
 * describes changed. The caller holds the subject's row lock (verification.repo lockUser/lockBusiness).
 */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import {
  type AttestationStatus,
  businessCustomers,
  type KybStatus,
  type KycStatus,
  kycUsers,
} from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import type { BusinessRow, UserRow } from '../customers/customers.repo';

export type StatusSource = 'provider_webhook' | 'client_api' | 'system';

export interface SubjectChange<S extends KycStatus | KybStatus> {
  status?: S;
  verificationMode?: string;
  externalStatus?: AttestationStatus | null;
  verificationSource?: string;
}

export interface ChangeContext {
  source: StatusSource;
  occurredAt: Date;
  now: Date;
  /** Deduplication key of the cause (a replayed cause emits nothing). */
  dedupKey: string;
}

export function kycEventData(prev: UserRow, cur: UserRow, source: StatusSource) {
  return {
    user_id: cur.id,
    email: cur.email,
    verification_mode: cur.verificationMode,
    previous_kyc_status: prev.kycStatus,
    current_kyc_status: cur.kycStatus,
    previous_external_status: prev.externalStatus,
    current_external_status: cur.externalStatus,
    previous_verification_source: prev.verificationSource,
    current_verification_source: cur.verificationSource,
    source,
  };
}

export function kybEventData(prev: BusinessRow, cur: BusinessRow, source: StatusSource) {
  return {
    business_customer_id: cur.id,
    company_name: cur.companyName,
    registration_number: cur.registrationNumber,
    country: cur.country,
    verification_mode: cur.verificationMode,
    previous_kyb_status: prev.kybStatus,
    current_kyb_status: cur.kybStatus,
    previous_external_status: prev.externalStatus,
    current_external_status: cur.externalStatus,
    previous_verification_source: prev.verificationSource,
    current_verification_source: cur.verificationSource,
    source,
  };
}

export async function changeUser(
  tx: Tx,
  user: UserRow,
  change: SubjectChange<KycStatus> & { externalReference?: string | null; externalNote?: string | null },
  ctx: ChangeContext,
): Promise<UserRow> {
  const next = {
    kycStatus: change.status ?? user.kycStatus,
    verificationMode: change.verificationMode ?? user.verificationMode,
    externalStatus: change.externalStatus === undefined ? user.externalStatus : change.externalStatus,
    verificationSource: change.verificationSource ?? user.verificationSource,
  };
  const described =
    next.kycStatus !== user.kycStatus ||
    next.verificationMode !== user.verificationMode ||
    next.externalStatus !== user.externalStatus ||
    next.verificationSource !== user.verificationSource;
  const extra = {
    ...(change.externalReference !== undefined ? { externalReference: change.externalReference } : {}),
    ...(change.externalNote !== undefined ? { externalNote: change.externalNote } : {}),
  };
  if (!described && Object.keys(extra).length === 0) return user;
  const [updated] = await tx
    .update(kycUsers)
    .set({ ...next, ...extra, updatedAt: ctx.now })
    .where(eq(kycUsers.id, user.id))
    .returning();
  if (described)
    await emitEvent(tx, {
      clientId: user.clientId,
      type: 'kyc.status_changed',
      data: kycEventData(user, updated!, ctx.source),
      occurredAt: ctx.occurredAt,
      dedupKey: ctx.dedupKey,
    });
  return updated!;
}

export async function changeBusiness(
  tx: Tx,
  b: BusinessRow,
  change: SubjectChange<KybStatus>,
  ctx: ChangeContext,
): Promise<BusinessRow> {
  const next = {
    kybStatus: change.status ?? b.kybStatus,
    verificationMode: change.verificationMode ?? b.verificationMode,
    externalStatus: change.externalStatus === undefined ? b.externalStatus : change.externalStatus,
    verificationSource: change.verificationSource ?? b.verificationSource,
  };
  if (
    next.kybStatus === b.kybStatus &&
    next.verificationMode === b.verificationMode &&
    next.externalStatus === b.externalStatus &&
    next.verificationSource === b.verificationSource
  )
    return b;
  const [updated] = await tx
    .update(businessCustomers)
    .set({ ...next, updatedAt: ctx.now })
    .where(eq(businessCustomers.id, b.id))
    .returning();
  await emitEvent(tx, {
    clientId: b.clientId,
    type: 'kyb.status_changed',
    data: kybEventData(b, updated!, ctx.source),
    occurredAt: ctx.occurredAt,
    dedupKey: ctx.dedupKey,
  });
  return updated!;
}
