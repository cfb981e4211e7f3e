/**
 * Outbound transfers: create (below threshold: stored, not sent; otherwise discovery at once), list,
 * get. The other actions are in transfers.actions.ts.
 */
import type { Deps } from '../../deps';
import { compare } from '../../platform/decimal';
import type { ClientAuth } from '../../plugins/auth';
import type { Chain } from '../../shared/chain-addresses';
import { AppError, badRequest, conflict, notFound } from '../../shared/errors';
import { counterPage, normalizeSearchQuery, type PageParams } from '../../shared/pagination';
import { assertFeatureEnabled } from '../features/features.service';
import {
  checkAddress,
  checkCustomer,
  createPendingScreening,
  runProvider,
} from '../screening/screening.service';
import { dispatchTransfer } from './dispatch.service';
import { checkParties, type Party, screenOutboundParties } from './parties.policy';
import { recordTransferStatus, type TransferRow } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import {
  findSettings,
  getTransferWithRisk,
  insertTransfer,
  listTransfers,
  type TransferFilters,
  updateTransfer,
} from './travel-rule.repo';
import { toSettingsView, toTransferView } from './travel-rule.view';

export type D = Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>;

export function assertNetworkConfigured(deps: Pick<Deps, 'providers'>) {
  if (!deps.providers.travelRule.configured)
    throw new AppError(503, TravelRuleMessages.providerNotConfigured);
}

export const actorOf = (auth: ClientAuth) => ({ type: auth.actorType, accountId: auth.accountId });

export interface CreateTransferInput {
  asset: string;
  chain: Chain;
  amount: string;
  fiat_value: { amount: string; currency: string };
  originator: Party;
  beneficiary: Party;
  counterparty_wallet: { address: string; travel_address?: string };
  beneficiary_vasp_id?: string;
  user_id?: string;
  business_customer_id?: string;
  client_reference: string;
  metadata?: Record<string, string>;
}

const isUniqueViolation = (err: unknown) => {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: string }).code === '23505') return true;
  return false;
};

export async function getTransfer(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const t = await getTransferWithRisk(deps.db, clientId, id);
  if (!t) throw notFound(TravelRuleMessages.transferNotFound);
  return toTransferView(t);
}

export async function listClientTransfers(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  p: PageParams,
  f: TransferFilters,
) {
  const { rows, total } = await listTransfers(deps.db, clientId, { ...f, q: normalizeSearchQuery(f.q) }, p);
  return counterPage('transfers', rows.map(toTransferView), total, p);
}

/** Validation and lookups that answer before anything is stored. */
async function precheck(deps: D, auth: ClientAuth, input: CreateTransferInput) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'travel_rule');
  assertNetworkConfigured(deps);
  checkParties({ originator: input.originator, beneficiary: input.beneficiary });
  checkAddress(input.chain, input.counterparty_wallet.address, ['body', 'counterparty_wallet', 'address']);
  const settings = toSettingsView(await findSettings(deps.db, auth.clientId), deps.config);
  if (!settings.originator_vasp) throw new AppError(400, TravelRuleMessages.settingsIncomplete);
  await checkCustomer(deps.db, auth.clientId, input.user_id, input.business_customer_id);
  if (input.beneficiary_vasp_id) {
    const dir = await deps.providers.travelRule.directory();
    if (!dir.some((v) => v.vasp_id === input.beneficiary_vasp_id))
      throw notFound(TravelRuleMessages.vaspNotFound);
  }
  return { settings, vaspId: travelAddressVasp(deps, input) ?? input.beneficiary_vasp_id ?? null };
}

/**
 * The directory VASP the beneficiary's travel address names (TRP), or null without one; 400 when the
 * network takes none, when it does not resolve to exactly one directory VASP, or when it names
 * another VASP than `beneficiary_vasp_id`.
 */
function travelAddressVasp(deps: Pick<D, 'providers'>, input: CreateTransferInput): string | null {
  const ta = input.counterparty_wallet.travel_address;
  if (ta === undefined) return null;
  const net = deps.providers.travelRule;
  if (!net.resolveTravelAddress)
    throw badRequest('counterparty_wallet.travel_address is taken by the TRP travel-rule network only');
  const r = net.resolveTravelAddress(ta, input.beneficiary_vasp_id);
  if ('problem' in r) throw badRequest(r.problem);
  if (input.beneficiary_vasp_id && input.beneficiary_vasp_id !== r.vaspId)
    throw badRequest(
      `counterparty_wallet.travel_address belongs to VASP ${r.vaspId}, not to beneficiary_vasp_id ${input.beneficiary_vasp_id}`,
    );
  return r.vaspId;
}

/**
 * Below the threshold (same currency, strictly below) the transfer is `not_required`: stored, not sent.
 * A fiat value in another currency than the threshold is treated as at or above it.
 */
export async function createTransfer(deps: D, auth: ClientAuth, input: CreateTransferInput) {
  const { settings, vaspId } = await precheck(deps, auth, input);
  const below =
    input.fiat_value.currency === settings.threshold.currency &&
    compare(input.fiat_value.amount, settings.threshold.amount) < 0;
  if (!below) {
    const problem = deps.providers.travelRule.checkOutbound?.({
      asset: input.asset,
      chain: input.chain,
      amount: input.amount,
      originator: input.originator,
      originatorVasp: settings.originator_vasp ?? { name: '', country: '' },
    });
    if (problem) throw badRequest(problem);
  }
  const now = deps.clock.now();
  const screen = !below && settings.screen_counterparty_wallet && deps.providers.screening.configured;
  const screened = await screenOutboundParties(deps, [input.originator, input.beneficiary], null);
  let created: {
    t: TransferRow;
    screening: Awaited<ReturnType<typeof createPendingScreening>>['screening'] | null;
  };
  try {
    created = await deps.db.transaction(async (tx) => {
      let t = await insertTransfer(tx, {
        clientId: auth.clientId,
        direction: 'outbound',
        status: below ? 'not_required' : 'pending',
        asset: input.asset,
        chain: input.chain,
        amount: input.amount,
        fiatAmount: input.fiat_value.amount,
        fiatCurrency: input.fiat_value.currency,
        thresholdApplies: !below,
        originator: input.originator,
        beneficiary: input.beneficiary,
        originatorVasp: settings.originator_vasp,
        counterpartyAddress: input.counterparty_wallet.address,
        counterpartyTravelAddress: input.counterparty_wallet.travel_address ?? null,
        clientReference: input.client_reference,
        userId: input.user_id ?? null,
        businessCustomerId: input.business_customer_id ?? null,
        metadata: input.metadata ?? null,
        ...screened,
        createdAt: now,
        updatedAt: now,
      });
      let screening = null;
      if (screen) {
        const s = await createPendingScreening(
          tx,
          deps,
          now,
          auth.clientId,
          {
            chain: input.chain,
            address: input.counterparty_wallet.address,
            asset: input.asset,
            user_id: input.user_id,
            business_customer_id: input.business_customer_id,
          },
          'travel_rule',
        );
        screening = s.screening;
        t = await updateTransfer(tx, t.id, { walletId: s.wallet.id, screeningId: s.screening.id });
      }
      await recordTransferStatus(tx, t, null, now, actorOf(auth), 'travel_rule_transfer.created');
      return { t, screening };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(TravelRuleMessages.duplicateReference);
    throw err;
  }
  if (created.screening) await runProvider(deps, created.screening);
  if (!below) await dispatchTransfer(deps, created.t, vaspId);
  return getTransfer(deps, auth.clientId, created.t.id);
}
