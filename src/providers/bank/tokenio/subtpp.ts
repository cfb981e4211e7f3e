/**
 * Token.io's Sub-TPP registry behind the SubTppNetwork port: staff approval registers the opco
 * (POST /member/sub-tpps, after looking for an earlier registration: the call has no idempotency
 * key), and Token.io's own review is read with GET /member/sub-tpps/{id} (no webhook exists for it).
 */

import type { SubTppApplication, SubTppDecision, SubTppNetwork } from '../../subtpp/port';
import { BankProviderError } from '../port';
import type { TokenioClient } from './client';

export class TokenioSubTppNetwork implements SubTppNetwork {
  constructor(private readonly client: TokenioClient) {}

  async register(app: SubTppApplication): Promise<{ registrationId: string }> {
    if (app.registrationId) return { registrationId: app.registrationId };
    const earlier = (await this.client.findSubTppsByName(app.name)).find(
      (s) => s.domain === app.domain && s.merchant?.companyRegistrationNumber === app.registrationNumber,
    );
    if (earlier) return { registrationId: earlier.id };
    const registrationId = await this.client.createSubTpp({
      name: app.name,
      domain: app.domain,
      merchant: {
        merchantJurisdiction: app.countryCode,
        legalEntityName: app.legalEntityName ?? app.name,
        companyRegistrationNumber: app.registrationNumber,
        primaryUseCase: app.primaryUseCase,
        iban: app.settlementIban,
        ...(app.settlementBic ? { bic: app.settlementBic } : {}),
      },
      mccCode: app.mcc,
      ...(app.parentSubTppId ? { parentSubTppId: app.parentSubTppId } : {}),
    });
    return { registrationId };
  }

  /**
   * An activated Sub-TPP read again (GET /member/sub-tpps/{id}): `DEACTIVATED` (or `REJECTED`) is a
   * withdrawn approval (reference `member.SubTpp.Status`); unknown at Token.io is an error to retry,
   * never a deactivation.
   */
  async recheck(subTppId: string): Promise<{ active: true } | { active: false; reason: string }> {
    const s = await this.client.getSubTpp(subTppId);
    if (!s) throw new BankProviderError('The Sub-TPP is not found at Token.io');
    if (s.status !== 'DEACTIVATED' && s.status !== 'REJECTED') return { active: true };
    const why = s.statusReasonInformation?.replace(/\p{Cc}/gu, ' ').slice(0, 256);
    return {
      active: false,
      reason: why
        ? `The payment network deactivated the Sub-TPP: ${why}`
        : 'The payment network deactivated the Sub-TPP',
    };
  }

  async decide(app: SubTppApplication): Promise<SubTppDecision> {
    if (!app.registrationId) return { outcome: 'pending' };
    const s = await this.client.getSubTpp(app.registrationId);
    if (!s) throw new BankProviderError('The Sub-TPP registration is not found at Token.io');
    if (s.status === 'ACTIVATED') return { outcome: 'approved', subTppId: s.id };
    if (s.status === 'REJECTED' || s.status === 'DEACTIVATED') {
      const why = s.statusReasonInformation?.slice(0, 256);
      return {
        outcome: 'rejected',
        reason: why
          ? `The payment network rejected the Sub-TPP: ${why}`
          : 'The payment network rejected the Sub-TPP',
      };
    }
    return { outcome: 'pending' };
  }
}
