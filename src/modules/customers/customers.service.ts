/**
 * Users (KYC subjects, payers) and business customers (KYB subjects): client-scoped records that
 * payments and verification refer to. Email is unique per client (409 on a duplicate).
 */

import type { KybStatus, KycStatus } from '../../db/schema/customers';
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import {
  type BusinessRow,
  findClientBusiness,
  findClientBusinessByEmail,
  findClientUser,
  findClientUserByEmail,
  insertBusiness,
  insertUser,
  isUniqueViolation,
  listClientBusinesses,
  listClientUsers,
  type UserRow,
} from './customers.repo';

type D = Pick<Deps, 'db' | 'clock'>;

export function toUserView(u: UserRow) {
  return {
    user_id: u.id,
    email: u.email,
    first_name: u.firstName,
    last_name: u.lastName,
    external_ref: u.externalRef,
    kyc_status: u.kycStatus,
    verification_mode: u.verificationMode as 'service_kyc' | 'external_attestation',
    external_status: u.externalStatus,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

export function toBusinessView(b: BusinessRow) {
  return {
    business_customer_id: b.id,
    company_name: b.companyName,
    registration_number: b.registrationNumber,
    country: b.country,
    email: b.email,
    kyb_status: b.kybStatus,
    verification_mode: b.verificationMode as 'service_kyc' | 'service_kyb' | 'external_attestation',
    external_status: b.externalStatus,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}

export async function createUser(
  deps: D,
  clientId: string,
  input: { email: string; first_name: string; last_name?: string | null; external_ref?: string | null },
) {
  const now = deps.clock.now();
  try {
    const row = await deps.db.transaction(async (tx) => {
      const created = await insertUser(tx, {
        clientId,
        email: input.email.trim(),
        firstName: input.first_name,
        lastName: input.last_name ?? null,
        externalRef: input.external_ref ?? null,
        createdAt: now,
        updatedAt: now,
      });
      await recordActivity(tx, {
        clientId,
        action: 'user.created',
        at: now,
        target: { type: 'user', id: created.id, label: created.email },
        changes: { email: { from: null, to: created.email } },
      });
      return created;
    });
    return toUserView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(M.userEmailExists);
    throw err;
  }
}

export async function getUser(deps: Pick<Deps, 'db'>, clientId: string, userId: string) {
  const row = await findClientUser(deps.db, clientId, userId);
  if (!row) throw notFound(M.userNotFound);
  return toUserView(row);
}

export async function listUsers(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  filter: { kyc_status?: KycStatus; q?: string },
) {
  const { rows, total } = await listClientUsers(deps.db, clientId, page, {
    kycStatus: filter.kyc_status,
    q: filter.q?.trim() || undefined,
  });
  return { users: rows.map(toUserView), pagination: paginationMeta(total, page) };
}

export async function createBusiness(
  deps: D,
  clientId: string,
  input: { company_name: string; registration_number?: string | null; country: string; email: string },
) {
  const now = deps.clock.now();
  try {
    const row = await deps.db.transaction(async (tx) => {
      const created = await insertBusiness(tx, {
        clientId,
        companyName: input.company_name,
        registrationNumber: input.registration_number ?? null,
        country: input.country.toUpperCase(),
        email: input.email.trim(),
        createdAt: now,
        updatedAt: now,
      });
      await recordActivity(tx, {
        clientId,
        action: 'business_customer.created',
        at: now,
        target: { type: 'business_customer', id: created.id, label: created.companyName },
        changes: { email: { from: null, to: created.email }, country: { from: null, to: created.country } },
      });
      return created;
    });
    return toBusinessView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(M.businessEmailExists);
    throw err;
  }
}

export async function getBusiness(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const row = await findClientBusiness(deps.db, clientId, id);
  if (!row) throw notFound(M.businessCustomerNotFound);
  return toBusinessView(row);
}

export async function listBusinesses(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  filter: { kyb_status?: KybStatus; q?: string },
) {
  const { rows, total } = await listClientBusinesses(deps.db, clientId, page, {
    kybStatus: filter.kyb_status,
    q: filter.q?.trim() || undefined,
  });
  return { business_customers: rows.map(toBusinessView), pagination: paginationMeta(total, page) };
}

/**
 * The client's business customer with this email, created when absent: the payer of payments the
 * platform makes for its own purposes (invoice collection). Safe under concurrency (unique email).
 */
export async function findOrCreateBusiness(
  deps: D,
  clientId: string,
  input: { company_name: string; country: string; email: string },
) {
  const existing = await findClientBusinessByEmail(deps.db, clientId, input.email);
  if (existing) return toBusinessView(existing);
  try {
    return await createBusiness(deps, clientId, input);
  } catch (err) {
    const raced = await findClientBusinessByEmail(deps.db, clientId, input.email);
    if (raced) return toBusinessView(raced);
    throw err;
  }
}

/**
 * Find-or-create a user by email (bulk payment links with create_missing_users): the existing user,
 * or a new one holding only the email. Safe under concurrency (the unique email index decides).
 */
export async function findOrCreateUserByEmail(
  deps: D,
  clientId: string,
  email: string,
): Promise<{ userId: string; created: boolean }> {
  const existing = await findClientUserByEmail(deps.db, clientId, email);
  if (existing) return { userId: existing.id, created: false };
  const now = deps.clock.now();
  try {
    const row = await deps.db.transaction(async (tx) => {
      const created = await insertUser(tx, { clientId, email: email.trim(), createdAt: now, updatedAt: now });
      await recordActivity(tx, {
        clientId,
        action: 'user.created',
        at: now,
        target: { type: 'user', id: created.id, label: created.email },
        metadata: { find_or_create: true },
      });
      return created;
    });
    return { userId: row.id, created: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const raced = await findClientUserByEmail(deps.db, clientId, email);
    if (!raced) throw err;
    return { userId: raced.id, created: false };
  }
}
