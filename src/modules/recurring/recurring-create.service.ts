/**
 * POST /recurring-payments ((idem, required)): paylink's input checks for the payer, currency and
 * amounts, the mandate and schedule checks (422 with loc), paylink's business rules (callback URL,
 * Sub-TPP, frozen project, payer), then the definition in `pending_authorization` with its hosted
 * authorization token, event and activity entry in one transaction.
 */
import { recurringPayments } from '../../db/schema/index';
import type { RecurringScheduleJson } from '../../db/schema/recurring-payments';
import type { Deps } from '../../deps';
import { isIsoDate, isoDate } from '../../platform/calendar';
import { compare, normalizeAmount } from '../../platform/decimal';
import { runIdempotent } from '../../platform/idempotency';
import type { ClientAuth } from '../../plugins/auth';
import { addSeconds } from '../../shared/clock';
import { AppError, notFound, ValidationError, type ValidationIssue } from '../../shared/errors';
import { newId, randomToken } from '../../shared/ids';
import { M } from '../../shared/messages';
import type { PaymentLimits } from '../../shared/payment-money';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import {
  actorOf,
  assertPaylinkAllowed,
  loadPaylinkFacts,
  validatePaylinkInput,
} from '../payments/paylink.service';
import { RecurringMessages } from './recurring.messages';
import { emitDefinitionEvent } from './recurring.transitions';
import { toDefinitionDto } from './recurring.view';
import type { Period } from './recurring-limits.service';

export interface CreateRecurringBody {
  project_id: string;
  user_id?: string;
  business_customer_id?: string;
  currency: string;
  amount?: string;
  schedule?: RecurringScheduleJson;
  mandate: {
    max_amount_per_payment: string;
    periodic_limit: { amount: string; period: Period; alignment: 'calendar' | 'consent' };
    valid_to?: string;
  };
  description?: string;
  reference?: string;
  retry_policy?: { auto_retry?: boolean; retry_after_hours?: number[] };
  redirect_url?: string;
  metadata?: Record<string, string>;
}

const issue = (loc: (string | number)[], msg: string): ValidationIssue => ({ loc, msg, type: 'value_error' });

/** `a <= b` for two normalized decimal strings of the same currency (no floats). */
export function decimalLte(a: string, b: string): boolean {
  return compare(a, b) <= 0;
}

/** Checks a schedule's dates (422 issues under `loc`). */
export function scheduleIssues(
  s: RecurringScheduleJson,
  today: string,
  loc: (string | number)[],
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  if (!isIsoDate(s.start_date)) out.push(issue([...loc, 'start_date'], 'Input should be a valid date'));
  else if (s.start_date < today) out.push(issue([...loc, 'start_date'], RecurringMessages.startInPast));
  if (s.end_date !== undefined) {
    if (!isIsoDate(s.end_date)) out.push(issue([...loc, 'end_date'], 'Input should be a valid date'));
    else if (s.end_date < s.start_date)
      out.push(issue([...loc, 'end_date'], RecurringMessages.endBeforeStart));
  }
  return out;
}

/** Normalized amounts of the body, or the 422 issues. */
export function validateCreate(limits: PaymentLimits, body: CreateRecurringBody, now: Date) {
  const issues: ValidationIssue[] = [];
  let amount: string | null = null;
  try {
    const v = validatePaylinkInput(
      { ...body, amount: body.amount ?? '1', expires_in_seconds: 86400 },
      limits,
    );
    if (body.amount !== undefined) amount = v.amount;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues.filter((i) => body.amount !== undefined || i.loc[1] !== 'amount'));
  }
  if (body.schedule && body.amount === undefined)
    issues.push(issue(['body', 'amount'], RecurringMessages.amountRequiredWithSchedule));
  const limit = (value: string, loc: (string | number)[]) => {
    const n = normalizeAmount(value, body.currency.length === 3 ? body.currency : 'EUR');
    if (!n.ok) {
      issues.push(
        issue(
          loc,
          n.problem === 'not_positive'
            ? 'Amount must be greater than 0'
            : RecurringMessages.limitAmountInvalid,
        ),
      );
      return null;
    }
    return n.value;
  };
  const maxPer = limit(body.mandate.max_amount_per_payment, ['body', 'mandate', 'max_amount_per_payment']);
  const periodic = limit(body.mandate.periodic_limit.amount, ['body', 'mandate', 'periodic_limit', 'amount']);
  if (amount && maxPer && !decimalLte(amount, maxPer))
    issues.push(issue(['body', 'amount'], RecurringMessages.amountAboveMaxPerPayment));
  let validTo: Date | null = null;
  if (body.mandate.valid_to !== undefined) {
    validTo = new Date(body.mandate.valid_to);
    if (Number.isNaN(validTo.getTime()) || validTo <= now)
      issues.push(issue(['body', 'mandate', 'valid_to'], RecurringMessages.validToInPast));
  }
  if (body.schedule) issues.push(...scheduleIssues(body.schedule, isoDate(now), ['body', 'schedule']));
  if (body.redirect_url !== undefined && !/^https?:\/\/[^\s]+$/i.test(body.redirect_url))
    issues.push(issue(['body', 'redirect_url'], 'redirect_url must be an http(s) URL'));
  if (issues.length > 0) throw new ValidationError(issues);
  return { amount, maxPer: maxPer!, periodic: periodic!, validTo };
}

export async function createRecurring(
  deps: Deps,
  auth: ClientAuth,
  header: string | string[] | undefined,
  body: CreateRecurringBody,
) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  // A network whose mandates are off for this deployment (Token.io: commercial VRP, SVC_TOKENIO_VRP_ENABLED).
  if (deps.providers.bank.mandatesEnabled === false)
    throw new AppError(403, RecurringMessages.bankMandatesDisabled);
  return runIdempotent(
    deps,
    { clientId: auth.clientId, scope: 'recurring_payments.create', header, required: true, payload: body },
    async (commit) => {
      const now = deps.clock.now();
      if (body.redirect_url?.toLowerCase().startsWith('http://') && deps.config.environment !== 'sandbox')
        throw new ValidationError([issue(['body', 'redirect_url'], 'redirect_url must be an https URL')]);
      const v = validateCreate(deps.config, body, now);
      const facts = (await loadPaylinkFacts(deps.db, auth.clientId, [body]))?.[0];
      if (!facts) throw notFound(M.notFound);
      assertPaylinkAllowed(facts);
      const id = newId();
      const dto = await deps.db.transaction(async (tx) => {
        const [d] = await tx
          .insert(recurringPayments)
          .values({
            id,
            clientId: auth.clientId,
            projectId: body.project_id,
            userId: body.user_id ?? null,
            businessCustomerId: body.business_customer_id ?? null,
            status: 'pending_authorization',
            currency: body.currency,
            amount: v.amount,
            description: body.description ?? null,
            reference: body.reference ?? null,
            schedule: body.schedule ?? null,
            retryPolicy: {
              auto_retry: body.retry_policy?.auto_retry ?? true,
              retry_after_hours: body.retry_policy?.retry_after_hours ?? deps.config.recurringRetryHours,
            },
            redirectUrl: body.redirect_url ?? null,
            metadata: body.metadata ?? {},
            maxAmountPerPayment: v.maxPer,
            periodicAmount: v.periodic,
            period: body.mandate.periodic_limit.period,
            alignment: body.mandate.periodic_limit.alignment,
            validFrom: now,
            validTo: v.validTo,
            mandateStatus: 'awaiting_authorization',
            authorizationToken: randomToken(32),
            authorizationExpiresAt: addSeconds(now, deps.config.mandateAuthorizationTtlSeconds),
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await emitDefinitionEvent(tx, d!, null, actorOf(auth), now);
        await recordActivity(tx, {
          clientId: auth.clientId,
          action: 'recurring_payment.created',
          at: now,
          target: { type: 'recurring_payment', id, label: d!.description ?? d!.reference ?? id },
          metadata: { project_id: body.project_id, amount: v.amount, currency: body.currency },
        });
        const out = toDefinitionDto(d!, deps.config.publicUrl, null);
        await commit(tx, out, 201);
        return out;
      });
      return { body: dto, status: 201 };
    },
  );
}
