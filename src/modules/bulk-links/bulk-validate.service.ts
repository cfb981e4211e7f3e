/**
 * Row validation: every row is validated exactly like a POST /checkout/paylink body (the route's
 * schema and checks through `PaylinkBodyCheck`, then paylink's business rules through
 * `loadPaylinkFacts` + `assertPaylinkAllowed`, 500 rows in one query). Issues become per-row errors
 * `{field, value, msg}`. A payer may be named by `email` instead of an id: an existing user with that
 * email is used; with create_missing_users a missing one is created when the row is processed.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { BulkRowError } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { AppError, type ValidationIssue } from '../../shared/errors';
import { M } from '../../shared/messages';
import { assertPaylinkAllowed, loadPaylinkFacts, type PaylinkInput } from '../payments/paylink.service';
import type { PaylinkBodyCheck } from '../payments/paylink-validation.policy';
import { PaymentMessages } from '../payments/payments.messages';
import { BulkLinkMessages } from './bulk.messages';
import { type JobDefaults, paylinkBodyOf, type RowInput } from './bulk-columns.schemas';

/** Stands in for a payer that will be created from `email`, so the rest of the body is still checked. */
const PAYER_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const REFERENCE_MAX = 255;

export interface RowToValidate {
  rowNumber: number;
  input: RowInput;
}

export interface RowVerdict {
  rowNumber: number;
  status: 'valid' | 'invalid';
  errors: BulkRowError[];
  reference: string | null;
  /** The existing user found by the row's email (stored on the row). */
  payerUserId: string | null;
  /** The validated paylink body (no payer when one is to be created from `email`); null when invalid. */
  body: Record<string, unknown> | null;
}

export interface ValidationContext {
  deps: Pick<Deps, 'db'>;
  clientId: string;
  defaults: JobDefaults;
  createMissingUsers: boolean;
  check: PaylinkBodyCheck;
  /** References already used by other rows of the job (row number by reference). */
  takenReferences?: Map<string, number>;
}

const hasPayerId = (b: Record<string, unknown>) =>
  b.user_id !== undefined || b.business_customer_id !== undefined;

function valueAt(body: Record<string, unknown>, input: RowInput, field: string | null): unknown {
  if (field === null) return null;
  if (field.startsWith('metadata.')) {
    const v = input[field];
    return v === undefined ? null : v;
  }
  const v = body[field] ?? input[field];
  return v === undefined ? null : v;
}

export function errorOfIssue(
  issue: ValidationIssue,
  body: Record<string, unknown>,
  input: RowInput,
): BulkRowError {
  const path = issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc;
  const field = path.length > 0 ? path.join('.') : null;
  return { field, value: valueAt(body, input, field), msg: issue.msg };
}

/** The field a business-rule error is about. */
function fieldOfRule(msg: string, input: RowInput, byEmail: boolean): string | null {
  if (msg === M.userNotFoundCreateFirst) {
    if (byEmail) return 'email';
    return input.user_id !== undefined ? 'user_id' : 'business_customer_id';
  }
  if (
    msg === M.projectNotFound ||
    msg === M.projectFrozen ||
    msg === PaymentMessages.projectArchived ||
    msg === PaymentMessages.opcoDeactivated ||
    msg === M.opcoNoSubTpp
  )
    return 'project_id';
  return null;
}

async function usersByEmail(
  db: Pick<Deps, 'db'>['db'],
  clientId: string,
  emails: string[],
): Promise<Map<string, string>> {
  if (emails.length === 0) return new Map();
  const res = await db.execute(sql`
    select lower(email) as email, id from kyc_users
     where client_id = ${clientId}::uuid
       and lower(email) in (select jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb))`);
  return new Map(rowsOf<{ email: string; id: string }>(res).map((r) => [r.email, r.id]));
}

/** The body with the resolved payer; without one (placeholder removed) when it is to be created. */
function withPayer(body: Record<string, unknown>, payerUserId: string | null): Record<string, unknown> {
  const out = { ...body };
  if (payerUserId) {
    out.user_id = payerUserId;
    delete out.business_customer_id;
  } else if (out.user_id === PAYER_PLACEHOLDER) delete out.user_id;
  return out;
}

interface Work {
  row: RowToValidate;
  errors: BulkRowError[];
  email: string | null;
  /** The payer is named by email only. */
  byEmail: boolean;
  payerUserId: string | null;
  body: Record<string, unknown>;
  valid: PaylinkInput | null;
}

export async function validateRows(ctx: ValidationContext, rows: RowToValidate[]): Promise<RowVerdict[]> {
  const taken = new Map(ctx.takenReferences ?? []);
  const work: Work[] = rows.map((row) => {
    const errors: BulkRowError[] = [];
    const { reference, email } = row.input;
    if (reference !== undefined) {
      if (typeof reference !== 'string')
        errors.push({ field: 'reference', value: reference, msg: 'Input should be a valid string' });
      else if (reference.length > REFERENCE_MAX)
        errors.push({
          field: 'reference',
          value: reference,
          msg: `String should have at most ${REFERENCE_MAX} characters`,
        });
      else if (taken.has(reference) && taken.get(reference) !== row.rowNumber)
        errors.push({ field: 'reference', value: reference, msg: BulkLinkMessages.referenceNotUnique });
      else taken.set(reference, row.rowNumber);
    }
    let okEmail: string | null = null;
    if (email !== undefined) {
      if (typeof email !== 'string' || email.length > 254 || !EMAIL.test(email))
        errors.push({ field: 'email', value: email, msg: BulkLinkMessages.invalidEmail });
      else okEmail = email;
    }
    return { row, errors, email: okEmail, byEmail: false, payerUserId: null, body: {}, valid: null };
  });

  const emails = [...new Set(work.flatMap((w) => (w.email ? [w.email.toLowerCase()] : [])))];
  const known = await usersByEmail(ctx.deps.db, ctx.clientId, emails);

  for (const w of work) {
    const base = paylinkBodyOf(w.row.input, ctx.defaults, null);
    if (!hasPayerId(base) && w.email) {
      w.byEmail = true;
      w.payerUserId = known.get(w.email.toLowerCase()) ?? null;
    }
    w.body = w.byEmail ? { ...base, user_id: w.payerUserId ?? PAYER_PLACEHOLDER } : base;
    const checked = ctx.check(w.body);
    if (checked.ok) w.valid = checked.value;
    else w.errors.push(...checked.issues.map((i) => errorOfIssue(i, w.body, w.row.input)));
  }

  const checkable = work.filter((w) => w.valid);
  const facts = checkable.length
    ? await loadPaylinkFacts(
        ctx.deps.db as Deps['db'],
        ctx.clientId,
        checkable.map((w) => w.valid!),
      )
    : [];
  checkable.forEach((w, i) => {
    const f = facts?.[i];
    if (!f) throw new AppError(500, M.internalError);
    // A payer named by (or falling back to) an email: an existing user, or one created later.
    const willCreate = ctx.createMissingUsers && w.email !== null;
    let payerOk: boolean;
    if (w.byEmail) payerOk = w.payerUserId !== null || willCreate;
    else if (f.payer_exists) payerOk = true;
    else if (willCreate) {
      // The named payer does not exist: the user with the row's email (found now or created later).
      payerOk = true;
      w.payerUserId = known.get(w.email!.toLowerCase()) ?? null;
    } else payerOk = false;
    try {
      assertPaylinkAllowed({ ...f, payer_exists: payerOk });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const field = fieldOfRule(err.detail, w.row.input, w.byEmail);
      w.errors.push({ field, value: valueAt(w.body, w.row.input, field), msg: err.detail });
    }
  });

  return work.map((w) => {
    const ok = w.errors.length === 0;
    return {
      rowNumber: w.row.rowNumber,
      status: ok ? 'valid' : 'invalid',
      errors: w.errors,
      reference: typeof w.row.input.reference === 'string' ? w.row.input.reference : null,
      payerUserId: w.payerUserId,
      body: ok ? withPayer(w.valid as unknown as Record<string, unknown>, w.payerUserId) : null,
    };
  });
}
