/**
 * Validation of a POST /checkout/paylink body outside the route (bulk rows): the route's own schema
 * compiled by the route's validator (same Ajv instance and options), the route's amount-type check,
 * then `validatePaylinkInput`, with issues shaped exactly as the route's 422 answers them.
 */
import type { FastifyRequest } from 'fastify';
import { type AjvIssue, issuesFromAjv } from '../../plugins/error-handler';
import { ValidationError, type ValidationIssue } from '../../shared/errors';
import { MoneyMessages, type PaymentLimits } from '../../shared/payment-money';
import { type PaylinkInput, validatePaylinkInput } from './paylink.service';
import { PaylinkBodySchema } from './payments.schemas';

/**
 * Amounts are decimal strings in major units ("1250.00" is one thousand two hundred fifty euros): a
 * JSON number is refused before the validator could coerce it, with the same message as "12,50", which
 * says what to send instead (a bare type error did not, and `1250` meant as cents must not pass).
 */
export function amountTypeIssue(body: unknown): ValidationIssue | null {
  const amount = (body as { amount?: unknown } | null)?.amount;
  if (amount !== undefined && typeof amount !== 'string')
    return { loc: ['body', 'amount'], msg: MoneyMessages.amountFormat, type: 'value_error' };
  return null;
}

export type PaylinkBodyCheck = (
  body: Record<string, unknown>,
) => { ok: true; value: PaylinkInput } | { ok: false; issues: ValidationIssue[] };

/** A checker bound to the request's validator compiler: what POST /checkout/paylink would answer for `body`. */
export function paylinkBodyChecker(request: FastifyRequest, limits: PaymentLimits): PaylinkBodyCheck {
  const validate = request.compileValidationSchema(PaylinkBodySchema, 'body');
  return (body) => {
    const typeIssue = amountTypeIssue(body);
    if (typeIssue) return { ok: false, issues: [typeIssue] };
    // The validator may coerce and fill defaults in place: work on a copy.
    const value = structuredClone(body);
    if (!validate(value)) {
      return { ok: false, issues: issuesFromAjv('body', (validate.errors ?? []) as AjvIssue[]) };
    }
    const input = value as unknown as PaylinkInput;
    try {
      const { amount, currency } = validatePaylinkInput(input, limits);
      return { ok: true, value: { ...input, amount, currency } };
    } catch (err) {
      if (err instanceof ValidationError) return { ok: false, issues: err.issues };
      throw err;
    }
  };
}
