/** Party checks (422 at the field) and name matching for inbound transfers (docs/guides/travel-rule.md). */

import type { SanctionsNameMatch } from '../../db/schema/sanctions-lists';
import type { Deps } from '../../deps';
import { reportedMatch } from '../../providers/sanctions/port';
import { AppError, ValidationError, type ValidationIssue } from '../../shared/errors';
import { TravelRuleMessages } from './travel-rule.messages';

export type Party = Record<string, unknown> & { type: 'natural' | 'legal' };

const has = (v: unknown) => typeof v === 'string' && v.trim().length > 0;

export function partyIssues(p: Party, loc: (string | number)[], originator: boolean): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const issue = (field: string, msg: string) => out.push({ loc: [...loc, field], msg, type: 'value_error' });
  if (p.type === 'natural') {
    if (!has(p.first_name)) issue('first_name', TravelRuleMessages.nameRequired);
    if (!has(p.last_name)) issue('last_name', TravelRuleMessages.nameRequired);
  } else if (!has(p.legal_name)) issue('legal_name', TravelRuleMessages.nameRequired);
  if (!has(p.account_number)) issue('account_number', TravelRuleMessages.accountNumberRequired);
  if (originator && !p.address && !p.date_of_birth && !p.national_identifier)
    issue('address', TravelRuleMessages.originatorIdentityRequired);
  return out;
}

/** 422 listing every missing party field. */
export function checkParties(
  parties: { originator?: Party; beneficiary?: Party },
  base: (string | number)[] = ['body'],
) {
  const issues = [
    ...(parties.originator ? partyIssues(parties.originator, [...base, 'originator'], true) : []),
    ...(parties.beneficiary ? partyIssues(parties.beneficiary, [...base, 'beneficiary'], false) : []),
  ];
  if (issues.length > 0) throw new ValidationError(issues);
}

export function partyName(p: Record<string, unknown>): string {
  const parts = p.type === 'legal' ? [p.legal_name] : [p.first_name, p.last_name];
  return parts.filter(has).join(' ');
}

const tokens = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/**
 * `exact` when the names are equal ignoring case, accents, punctuation and word order; `partial` when
 * they share a word; `none` otherwise (also when the customer's name is unknown).
 */
export function matchNames(given: string, known: string | null): 'exact' | 'partial' | 'none' {
  if (!known) return 'none';
  const a = tokens(given);
  const b = tokens(known);
  if (a.length === 0 || b.length === 0) return 'none';
  if ([...a].sort().join(' ') === [...b].sort().join(' ')) return 'exact';
  return a.some((w) => b.includes(w)) ? 'partial' : 'none';
}

/**
 * The originator's and beneficiary's names screened against the sanctions lists (with each party's
 * date of birth and address country, where given), outside any transaction. The hits are stored on
 * the transfer and reported, never decided on. Null when the deployment has no lists. Throws
 * SanctionsUnavailableError (or another error) when configured lists cannot answer.
 */
export async function screenPartyNames(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'providers'>,
  parties: Record<string, unknown>[],
): Promise<SanctionsNameMatch[] | null> {
  if (!deps.providers.sanctions.configured) return null;
  const screened = parties.map((p) => {
    const address = (p.address ?? null) as { country?: unknown } | null;
    return {
      name: partyName(p),
      type: p.type === 'legal' ? ('legal' as const) : ('natural' as const),
      dateOfBirth: typeof p.date_of_birth === 'string' ? p.date_of_birth : null,
      country: typeof address?.country === 'string' ? address.country : null,
    };
  });
  const hits = await deps.providers.sanctions.screen(
    deps,
    screened.filter((p) => p.name !== ''),
    { threshold: deps.config.sanctions.matchThreshold },
  );
  const named = screened.filter((p) => p.name !== '');
  return hits.flatMap((h, i) => h.map((hit) => reportedMatch(hit, named[i]!.name)));
}

/**
 * An outbound transfer's parties screened when they are created or repaired, with the flag stored
 * beside the hits: lists that cannot answer make the request 503 (nothing is stored), as monitoring
 * fails closed; a deployment without lists stores `not_configured`.
 */
export async function screenOutboundParties(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>,
  parties: Record<string, unknown>[],
  transferId: string | null,
) {
  try {
    const sanctionsMatches = await screenPartyNames(deps, parties);
    return {
      sanctionsMatches,
      sanctionsScreening: sanctionsMatches === null ? ('not_configured' as const) : ('screened' as const),
    };
  } catch (err) {
    deps.log.warn(
      { err: err instanceof Error ? err.message : String(err), ...(transferId ? { transferId } : {}) },
      'party sanctions screening failed',
    );
    throw new AppError(503, TravelRuleMessages.screeningUnavailable);
  }
}
