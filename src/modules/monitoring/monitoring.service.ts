/**
 * Transaction monitoring use cases (docs/guides/monitoring.md): submit (evaluate + first decision),
 * list, get, and the policy (versions, replace, test). Every write commits its change, event,
 * activity entry and notifications in one transaction.
 */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { currencyScale } from '../../platform/decimal';
import type { ClientAuth } from '../../plugins/auth';
import { conflict, notFound } from '../../shared/errors';
import { counterPage, normalizeSearchQuery, type PageParams } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { screenedWalletRisk, screenWalletForMonitoring } from '../screening/wallet-risk.service';
import {
  evalContextOf,
  factsOf,
  type NormalizedTx,
  normalizeTx,
  partiesOf,
  payloadHash,
  type ResolvedWalletRisk,
} from './context.service';
import { type Evaluation, evaluate } from './engine.policy';
import { MonitoringMessages } from './monitoring.messages';
import { type PolicyBody, type PolicyInput, parsePolicy, policyView } from './monitoring.policy';
import {
  findByReference,
  findMonitored,
  insertMonitored,
  insertPolicyVersion,
  type ListFilters,
  latestPolicy,
  listMonitored,
  type MonitoredTransactionRow,
  reviewsOf,
} from './monitoring.repo';
import type { SubmitInput, TransactionInput } from './monitoring.schemas';
import { emitDecisionChanged } from './monitoring.transitions';
import { toMonitoredView } from './monitoring.view';
import { issueRemediationInTx, issueVerificationLink, remediationBlocker } from './remediation.service';
import { type PartyMatch, screenPartyNames, withoutAllowlisted } from './sanctions.service';

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

export async function viewOf(deps: Pick<Deps, 'db' | 'config'>, row: MonitoredTransactionRow) {
  const reviews = await reviewsOf(deps.db, [row.id]);
  return toMonitoredView(row, reviews, deps.config.publicUrl, currencyScale(row.currency));
}

export async function getPolicy(deps: Pick<Deps, 'db'>, clientId: string) {
  return policyView(await latestPolicy(deps.db, clientId));
}

export async function replacePolicy(deps: D, auth: ClientAuth, input: PolicyInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'transaction_monitoring');
  const body = parsePolicy(input, ['body']);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    // One writer at a time per client: the version sequence has no gaps and no duplicates.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`monitoring-policy:${auth.clientId}`}))`);
    const prev = policyView(await latestPolicy(tx, auth.clientId));
    const row = await insertPolicyVersion(tx, {
      clientId: auth.clientId,
      version: prev.version + 1,
      policy: body as unknown as Record<string, unknown>,
      updatedByAccountId: auth.accountId,
      createdAt: now,
    });
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'monitoring.policy_updated',
      at: now,
      target: { type: 'monitoring_policy', id: null, label: `version ${row.version}` },
      changes: { version: { from: prev.version, to: row.version } },
      metadata: { rules: body.rules.length },
    });
    return policyView(row);
  });
}

/** What the providers said before evaluation (asked outside any transaction). */
export interface Prescreen {
  names: PartyMatch[];
  wallet: ResolvedWalletRisk | undefined;
}

type PD = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

/**
 * Sanctions name screening (when the policy enables it) and, when an enabled rule needs it, the
 * counterparty wallet's risk: `start` screens the wallet (cached by SVC_MONITORING_WALLET_MAX_AGE_SECONDS),
 * `read` only reads the latest screening (policy test and backtest store nothing).
 */
export async function prescreen(
  deps: PD,
  clientId: string,
  n: NormalizedTx,
  policy: PolicyBody,
  wallet: 'start' | 'read',
): Promise<Prescreen> {
  const names = policy.sanctions.enabled
    ? await screenPartyNames(deps, partiesOf(n), policy.sanctions.match_threshold)
    : [];
  const w = n.input.counterparty.wallet;
  const needsWallet = policy.rules.some((r) => r.enabled && r.type === 'counterparty_wallet_risk');
  if (!w || !needsWallet) return { names, wallet: undefined };
  const risk =
    wallet === 'start'
      ? await screenWalletForMonitoring(deps, clientId, w, deps.config.monitoringWalletMaxAgeSeconds)
      : await screenedWalletRisk(deps.db, clientId, w);
  return { names, wallet: risk };
}

/** Evaluates a normalized transaction under a policy; `excludeId` leaves a stored record out of its own history. */
export async function evaluateTx(
  deps: Pick<Deps, 'config'>,
  db: DbOrTx,
  clientId: string,
  n: NormalizedTx,
  policy: PolicyBody,
  clientReference: string | null,
  excludeId: string | null,
  pre: Prescreen,
): Promise<Evaluation & { walletScreeningId: string | null }> {
  const sanctions = policy.sanctions.enabled
    ? (await withoutAllowlisted(db, clientId, pre.names)).matches
    : [];
  const ctx = evalContextOf(db, clientId, n, excludeId, pre.wallet);
  const ev = await evaluate(policy, factsOf(n, clientReference), sanctions, ctx, {
    sandbox: deps.config.environment === 'sandbox',
  });
  // A remediation this transaction cannot take (no customer to verify, no valid wallet) goes to a reviewer.
  const blocker =
    ev.decision === 'AWAITING_USER'
      ? remediationBlocker(ev.remediation_type ?? 'source_of_funds', {
          userId: n.input.user_id ?? null,
          businessCustomerId: n.input.business_customer_id ?? null,
          wallet: n.input.counterparty.wallet ?? null,
        })
      : null;
  const decided: Evaluation = blocker
    ? {
        ...ev,
        decision: 'IN_REVIEW',
        decision_reason: `${ev.decision_reason}; ${blocker}`,
        remediation_type: null,
      }
    : ev;
  return { ...decided, walletScreeningId: ctx.walletScreeningId() };
}

/** A repeat of a client_reference: 200 with the record when the payload is the same, otherwise 409. */
function repeatOf(existing: MonitoredTransactionRow, hash: string) {
  if (existing.payloadHash !== hash) throw conflict(MonitoringMessages.referenceConflict);
  return existing;
}

export async function submitTransaction(
  deps: Deps,
  auth: ClientAuth,
  body: SubmitInput,
): Promise<{ status: 200 | 201; body: Awaited<ReturnType<typeof viewOf>> }> {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'transaction_monitoring');
  const hash = payloadHash(body);
  const existing = await findByReference(deps.db, auth.clientId, body.client_reference);
  if (existing) return { status: 200, body: await viewOf(deps, repeatOf(existing, hash)) };
  const now = deps.clock.now();
  const { client_reference: ref, ...txInput } = body;
  const n = await normalizeTx(deps.db, auth.clientId, txInput, now, ['body'], ref);
  if (body.transaction_id) {
    const res = await deps.db.execute(
      sql`select 1 from transactions where id = ${body.transaction_id}::uuid and client_id = ${auth.clientId}::uuid`,
    );
    if (rowsOf(res).length === 0) throw notFound(MonitoringMessages.transactionNotFound);
  }
  const policyRow = await latestPolicy(deps.db, auth.clientId);
  const policy = policyView(policyRow);
  const pre = await prescreen(deps, auth.clientId, n, policy, 'start');
  const created = await deps.db.transaction(async (tx) => {
    // Submissions of one customer are serialized, so velocity counts see each other.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`monitoring:${auth.clientId}:${n.subjectKey}`}))`,
    );
    const ev = await evaluateTx(deps, tx, auth.clientId, n, policy, ref, null, pre);
    const row = await insertMonitored(tx, {
      clientId: auth.clientId,
      clientReference: ref,
      payloadHash: hash,
      direction: txInput.direction,
      amount: n.amount,
      currency: txInput.currency,
      occurredAt: n.occurredAt,
      paymentMethod: txInput.payment_method ?? null,
      userId: txInput.user_id ?? null,
      businessCustomerId: txInput.business_customer_id ?? null,
      customer: txInput.customer ?? null,
      subjectKey: n.subjectKey,
      counterparty: txInput.counterparty,
      transactionId: txInput.transaction_id ?? null,
      metadata: txInput.metadata ?? null,
      searchText: n.searchText,
      decision: ev.decision,
      decisionReason: ev.decision_reason,
      score: ev.score,
      ruleHits: ev.rule_hits as unknown as Record<string, unknown>[],
      sanctionsHit: ev.sanctions_hit,
      sanctionsMatches: ev.sanctions_matches as unknown as Record<string, unknown>[],
      walletScreeningId: ev.walletScreeningId,
      policyVersion: policy.version,
      ...(ev.decision === 'AWAITING_USER'
        ? await issueRemediationInTx(
            tx,
            deps,
            now,
            {
              clientId: auth.clientId,
              clientReference: ref,
              type: ev.remediation_type ?? 'source_of_funds',
              ttlHours: policy.remediation_ttl_hours,
            },
            {
              userId: txInput.user_id ?? null,
              businessCustomerId: txInput.business_customer_id ?? null,
              wallet: txInput.counterparty.wallet ?? null,
            },
          )
        : {}),
      createdAt: now,
      updatedAt: now,
    });
    if (!row) return null;
    await emitDecisionChanged(tx, row, 'NONE', now, deps.config.publicUrl);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'monitoring.transaction_submitted',
      at: now,
      target: { type: 'monitored_transaction', id: row.id, label: ref },
      metadata: { decision: row.decision, score: row.score, policy_version: row.policyVersion },
    });
    return row;
  });
  if (created) return { status: 201, body: await viewOf(deps, await issueVerificationLink(deps, created)) };
  // Lost a race on the same client_reference.
  const winner = await findByReference(deps.db, auth.clientId, ref);
  if (!winner) throw conflict(MonitoringMessages.referenceConflict);
  return { status: 200, body: await viewOf(deps, repeatOf(winner, hash)) };
}

export async function getMonitored(deps: Pick<Deps, 'db' | 'config'>, clientId: string, id: string) {
  const row = await findMonitored(deps.db, clientId, id);
  if (!row) throw notFound(MonitoringMessages.notFound);
  return viewOf(deps, row);
}

export async function listMonitoredTransactions(
  deps: Pick<Deps, 'db' | 'config'>,
  f: ListFilters,
  page: PageParams,
) {
  const { rows, total } = await listMonitored(deps.db, { ...f, q: normalizeSearchQuery(f.q) }, page);
  const reviews = await reviewsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  const views = rows.map((r) =>
    toMonitoredView(r, reviews, deps.config.publicUrl, currencyScale(r.currency)),
  );
  return counterPage('monitored_transactions', views, total, page);
}

/** POST /monitoring/policy/test: evaluates without storing anything or sending an event. */
export async function testPolicy(
  deps: PD,
  clientId: string,
  input: { transaction: TransactionInput; policy?: PolicyInput },
) {
  const policy = input.policy
    ? parsePolicy(input.policy, ['body', 'policy'])
    : policyView(await latestPolicy(deps.db, clientId));
  const n = await normalizeTx(
    deps.db,
    clientId,
    input.transaction,
    deps.clock.now(),
    ['body', 'transaction'],
    null,
  );
  const pre = await prescreen(deps, clientId, n, policy, 'read');
  const ev = await evaluateTx(deps, deps.db, clientId, n, policy, null, null, pre);
  return {
    decision: ev.decision,
    decision_reason: ev.decision_reason,
    score: ev.score,
    rule_hits: ev.rule_hits,
    sanctions_hit: ev.sanctions_hit,
  };
}
