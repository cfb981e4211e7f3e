/** Shared fixtures of the organisation tests: valid opco bodies, a tiny real image, staff logins, events. */
import { and, asc, eq } from 'drizzle-orm';
import { events } from '../../src/db/schema/index';
import { createStaff } from '../../src/modules/admin/staff.service';
import type { TestContext } from '../helpers/app';

/** A real 1x1 PNG. */
export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const VALID_IBAN = 'GB33BUKB20201555555555';
export const VALID_BIC = 'DEUTDEFF';

export function soleTraderBody(over: Record<string, unknown> = {}) {
  return {
    opco_type: 'licensed_tpp_sole_trader',
    name: 'Corner Bakery',
    domain: 'bakery.example.com',
    country_code: 'GB',
    registration_number: 'SC123456',
    settlement_iban: VALID_IBAN,
    mcc: '5812',
    sole_trader: { fullName: 'Jane Baker', address: '1 High St, London', dateOfBirth: '1985-04-12' },
    ...over,
  };
}

const person = (fullName: string) => ({ fullName, dateOfBirth: '1980-01-01' });

export function companyBody(over: Record<string, unknown> = {}) {
  return {
    opco_type: 'licensed_tpp_non_sole_trader_private',
    name: 'Acme Payments Ltd',
    domain: 'acme.example.com',
    country_code: 'GB',
    legal_entity_name: 'Acme Payments Limited',
    registration_number: '01234567',
    settlement_iban: VALID_IBAN,
    settlement_bic: VALID_BIC,
    mcc: '5999',
    ubos: [{ ...person('Ann Owner'), ownershipPercentage: 60 }],
    directors: [person('Dan Director')],
    signatories: [person('Sam Signer')],
    ...over,
  };
}

export async function staffHeaders(
  ctx: TestContext,
  email = `staff-${Math.random().toString(36).slice(2)}@ops.example.com`,
) {
  const password = 'correct horse battery staple';
  await createStaff(ctx.deps, { email, password });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/admin/auth/login',
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`staff login failed: ${res.body}`);
  return { email, password, headers: { authorization: `Bearer ${res.json().access_token}` } };
}

export async function eventsOf(ctx: TestContext, clientId: string, type: string) {
  return ctx.db
    .select()
    .from(events)
    .where(and(eq(events.clientId, clientId), eq(events.type, type)))
    .orderBy(asc(events.createdAt), asc(events.id));
}
