/**
 * The statements of a payment link creation, written out so a creation costs two statements of
 * its own besides the network session (issue 12): the idempotency claim together with the
 * business facts, then the payment with its timeline row, activity entry and claim completion.
 * Each is one statement, hence atomic on its own; on PostgreSQL both are named prepared
 * statements (Database.query).
 */
import type { Database } from '../../db/client';
import { ASYNC_COMMIT, columnList, mapRow } from '../../db/hot';
import { type OpcoStatus, transactions } from '../../db/schema/index';
import { DEFAULT_MAX_ATTEMPTS } from '../../platform/jobs/define';
import { timerRef } from '../../platform/jobs/index';
import { newId, randomToken } from '../../shared/ids';
import { type ActivityInput, activityInsertText, activityValues } from '../activity/activity-writer.service';
import type { Origin } from './origin.policy';
import type { TransactionRow } from './payments.repo';
import type { Actor } from './status.service';

/** What the business rules of a payment link look at (one row per body, in input order). */
export interface PaylinkFacts {
  company_name: string;
  payment_links_enabled: boolean;
  callback_url: string | null;
  payer_exists: boolean;
  project_found: boolean;
  project_frozen: boolean | null;
  project_archived: boolean | null;
  opco_status: OpcoStatus | null;
  sub_tpp_id: string | null;
  /** The opco's settlement account (the payee), for the network's currency rules. */
  payee_name: string | null;
  settlement_iban: string | null;
  settlement_bic: string | null;
}

/**
 * The business facts of payment-link bodies, `$client` the client id, `$input` a jsonb array of
 * {ord, project_id, user_id, business_customer_id}: client, payer, project and its opco, all
 * scoped to the client, one row per body in input order (none when the client does not exist).
 */
export function paylinkFactsText(client: string, input: string): string {
  return `select i.ord, c.company_name, c.payment_links_enabled, c.callback_url,
           case when i.user_id is not null
                then exists(select 1 from kyc_users u where u.id = i.user_id and u.client_id = c.id)
                else exists(select 1 from business_customers b where b.id = i.business_customer_id and b.client_id = c.id)
           end as payer_exists,
           p.id is not null as project_found, p.is_frozen as project_frozen,
           p.archived_at is not null as project_archived,
           o.status as opco_status, o.sub_tpp_id,
           coalesce(o.legal_entity_name, o.name) as payee_name, o.settlement_iban, o.settlement_bic
      from clients c
      cross join jsonb_to_recordset(${input}::jsonb) as i(ord int, project_id uuid, user_id uuid, business_customer_id uuid)
      left join projects p on p.id = i.project_id and p.client_id = c.id
      left join opcos o on o.id = p.opco_id and o.client_id = c.id
     where c.id = ${client}::uuid
     order by i.ord`;
}

export function factsInput(
  bodies: readonly { project_id: string; user_id?: string; business_customer_id?: string }[],
): string {
  return JSON.stringify(
    bodies.map((b, i) => ({
      ord: i,
      project_id: b.project_id,
      user_id: b.user_id ?? null,
      business_customer_id: b.business_customer_id ?? null,
    })),
  );
}

// The facts always come back (one row, null facts for a missing client) whether the claim won or not.
// Committed asynchronously (ASYNC_COMMIT): the payment's synchronous commit makes it durable.
const CLAIM_WITH_FACTS = `with claim as (
  insert into payment_idempotency_keys (id, client_id, idempotency_key, scope, fingerprint, state, created_at)
  values ($1::uuid, $2::uuid, $3, $4, $5, 'processing', $6::timestamptz)
  on conflict do nothing
  returning id)
select (select id from claim) as claim_id, f.*
  from ${ASYNC_COMMIT} as one
  left join lateral (${paylinkFactsText('$2', '$7')}) as f on true`;

export interface ClaimWithFacts {
  /** Null when the key was already taken: the caller falls back to the full claim procedure. */
  claimId: string | null;
  /** Null when the client does not exist. */
  facts: PaylinkFacts | null;
}

/** Claims a fresh idempotency key and reads the business facts, in one statement. */
export async function claimKeyWithFacts(
  database: Database,
  c: {
    clientId: string;
    key: string;
    scope: string;
    fingerprint: string;
    now: Date;
    body: { project_id: string; user_id?: string; business_customer_id?: string };
  },
): Promise<ClaimWithFacts> {
  const [row] = await database.query<PaylinkFacts & { claim_id: string | null; ord: number | null }>(
    'paylink_claim_facts',
    CLAIM_WITH_FACTS,
    [newId(), c.clientId, c.key, c.scope, c.fingerprint, c.now.toISOString(), factsInput([c.body])],
  );
  return { claimId: row?.claim_id ?? null, facts: row && row.ord !== null ? row : null };
}

const ACTIVITY_FROM = 23;
/** The placeholder of the expiry timer's job id, after the activity entry's 18 values. */
const TIMER_ID = ACTIVITY_FROM + 18;

/**
 * The expiry timer of a payment link (payments.service.ts handles it): one job row per transaction,
 * due at expires_at, written by the link's insert below.
 */
export const PAYMENT_LINK_EXPIRY = timerRef<{ transactionId: string }>({
  kind: 'payments.link_expiry',
  keyOf: (p) => `transaction:${p.transactionId}`,
});

// Nothing is written unless the claim is still ours (a stale claim may have been taken over).
const INSERT_PAYMENT = `with done as (
  update payment_idempotency_keys set state = 'completed', transaction_id = $1::uuid, completed_at = $17::timestamptz
   where id = $2::uuid and state = 'processing'
  returning id
), t as (
  insert into transactions (id, client_id, project_id, user_id, business_customer_id, contract_request_id,
    origin_type, origin_id, amount, currency, description, metadata, redirect_url, status, provider_status,
    reconciliation_state, ref_id, checkout_token, expires_at, created_at, updated_at)
  select $1::uuid, $3::uuid, $4::uuid, $5::uuid, $6::uuid, $7::uuid, $8, $9::uuid, $10::numeric, $11, $12,
         $13::jsonb, $22, 'pending', 'initiated', 'none', $14, $15, $16::timestamptz, $17::timestamptz, $17::timestamptz
    from done
  returning ${columnList(transactions)}
), timeline as (
  insert into transaction_status_events (id, transaction_id, client_id, from_status, to_status, provider_status,
    reconciliation_state, kind, reason, ref_id, actor_type, actor_account_id, occurred_at)
  select $18::uuid, t.id, t.client_id, null, t.status, t.provider_status, t.reconciliation_state, 'created',
         $19, t.ref_id, $20, $21, $17::timestamptz
    from t
), activity as (
  ${activityInsertText(ACTIVITY_FROM)} from t
), timer as (
  insert into jobs (id, kind, payload, client_id, dedupe_key, status, attempts, max_attempts, run_at, created_at, updated_at)
  select $${TIMER_ID}::uuid, '${PAYMENT_LINK_EXPIRY.kind}', jsonb_build_object('transactionId', t.id::text), t.client_id,
         'transaction:' || t.id::text, 'pending', 0, ${DEFAULT_MAX_ATTEMPTS}, t.expires_at, $17::timestamptz, $17::timestamptz
    from t
)
select * from t`;

export interface NewPayment {
  id: string;
  clientId: string;
  claimId: string;
  body: {
    project_id: string;
    user_id?: string;
    business_customer_id?: string;
    description?: string;
    metadata?: Record<string, unknown>;
    redirect_url?: string;
  };
  amount: string;
  currency: string;
  origin: Origin;
  contractRequestId: string | null;
  refId: string;
  expiresAt: Date;
  now: Date;
  actor: Actor;
  activity: ActivityInput;
}

/**
 * The payment, its `created` timeline row and its activity entry, and the claim marked completed,
 * in one statement. Null when the claim is no longer ours (nothing was written).
 */
export async function insertPaymentLink(database: Database, p: NewPayment): Promise<TransactionRow | null> {
  const [row] = await database.query('paylink_insert', INSERT_PAYMENT, [
    p.id,
    p.claimId,
    p.clientId,
    p.body.project_id,
    p.body.user_id ?? null,
    p.body.business_customer_id ?? null,
    p.contractRequestId,
    p.origin.type,
    p.origin.id,
    p.amount,
    p.currency,
    p.body.description ?? null,
    JSON.stringify(p.body.metadata ?? {}),
    p.refId,
    randomToken(24),
    p.expiresAt.toISOString(),
    p.now.toISOString(),
    newId(),
    'Payment link created',
    p.actor.actorType,
    p.actor.actorType === 'service_internal' ? null : p.actor.actorAccountId,
    p.body.redirect_url ?? null,
    ...activityValues(p.activity),
    newId(),
  ]);
  return row ? mapRow(transactions, row) : null;
}
