/** Sandbox simulate endpoints: the network simulator emits a notification; the signed route applies it. */
import type { ClientAuth } from '../../plugins/auth';
import type { SimulateAction, TravelRuleSandbox } from '../../providers/travel-rule/port';
import type { Chain } from '../../shared/chain-addresses';
import { badRequest, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { assertFeatureEnabled } from '../features/features.service';
import { checkAddress } from '../screening/screening.service';
import { expireTransfer } from './expiry.service';
import { checkParties, type Party } from './parties.policy';
import { type D, getTransfer } from './transfers.service';
import { allows, type Trigger } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findByNetworkRef, findTransfer } from './travel-rule.repo';

const TRIGGER: Record<SimulateAction, Trigger> = {
  accept: 'counterparty_accepted',
  reject: 'counterparty_rejected',
  request_repair: 'counterparty_repair',
  expire: 'expire',
};

function simulator(deps: D): TravelRuleSandbox {
  const sim = deps.providers.travelRule.sandbox;
  if (deps.config.environment !== 'sandbox' || !sim) throw notFound(M.notFound);
  return sim;
}

export async function simulateTransfer(
  deps: D,
  auth: ClientAuth,
  id: string,
  input: { action: SimulateAction; repair_fields?: string[] },
) {
  const sim = simulator(deps);
  const t = await findTransfer(deps.db, auth.clientId, id);
  if (!t) throw notFound(TravelRuleMessages.transferNotFound);
  const outboundOnly = input.action !== 'expire' && t.direction !== 'outbound';
  if (outboundOnly || !allows(TRIGGER[input.action], t.status))
    throw badRequest(TravelRuleMessages.badState(t.status));
  if (t.direction === 'inbound') {
    // An inbound transfer's deadline is our client's review, not the network's answer: it expires
    // here, as its timer would (the originator VASP is sent the rejection).
    await deps.db.transaction(async (tx) => {
      const locked = await findTransfer(tx, auth.clientId, id, true);
      if (!locked || !(await expireTransfer(tx, deps, locked)))
        throw badRequest(TravelRuleMessages.badState(locked?.status ?? t.status));
    });
    return getTransfer(deps, auth.clientId, id);
  }
  await sim.simulate(t.id, input.action, input.repair_fields ?? null);
  return getTransfer(deps, auth.clientId, id);
}

export interface InboundInput {
  asset: string;
  chain: Chain;
  amount: string;
  fiat_value: { amount: string; currency: string };
  originator: Party;
  beneficiary: Party;
  beneficiary_address: string;
}

export async function simulateInbound(deps: D, auth: ClientAuth, input: InboundInput) {
  const sim = simulator(deps);
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'travel_rule');
  checkParties({ originator: input.originator, beneficiary: input.beneficiary });
  checkAddress(input.chain, input.beneficiary_address, ['body', 'beneficiary_address']);
  const ref = await sim.simulateInbound(auth.clientId, input);
  const t = await findByNetworkRef(deps.db, ref);
  if (!t) throw notFound(TravelRuleMessages.transferNotFound);
  return getTransfer(deps, auth.clientId, t.id);
}
