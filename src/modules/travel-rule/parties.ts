/** Party checks (422 at the field) and name matching for inbound transfers (named-areas.md section 4). */
import { ValidationError, type ValidationIssue } from '../../shared/errors';
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
