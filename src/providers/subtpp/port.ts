/**
 * The payment network's Sub-TPP registry: an opco becomes a Sub-TPP once the network approves it
 * and assigns its identifier. Called outside database transactions.
 */
export interface SubTppApplication {
  opcoId: string;
  clientId: string;
  name: string;
  domain: string;
  countryCode: string;
  registrationNumber: string;
  mcc: string;
  parentSubTppId: string | null;
  legalEntityName: string | null;
  primaryUseCase: string;
  settlementIban: string;
  settlementBic: string | null;
  /** The network's id of an earlier registration of this opco (networks that review later). */
  registrationId: string | null;
}

export type SubTppDecision =
  | { outcome: 'approved'; subTppId: string }
  | { outcome: 'rejected'; reason: string }
  /** Still under the network's review. */
  | { outcome: 'pending' };

export interface SubTppNetwork {
  /**
   * Networks that review applications themselves: submits the opco (idempotent per opco) and
   * returns the network's id for it. Absent on networks that decide at once (the sandbox).
   */
  register?(application: SubTppApplication): Promise<{ registrationId: string }>;
  /**
   * Asks the network for its decision on an application. Idempotent per opco: asking twice for
   * the same opco returns the same Sub-TPP id.
   */
  decide(application: SubTppApplication): Promise<SubTppDecision>;
  /**
   * Networks that can withdraw an approval later (Token.io's `DEACTIVATED`): reads an approved
   * Sub-TPP again. `active: false` carries the network's reason in our words.
   */
  recheck?(subTppId: string): Promise<{ active: true } | { active: false; reason: string }>;
}
