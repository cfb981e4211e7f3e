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
}

export type SubTppDecision =
  | { outcome: 'approved'; subTppId: string }
  | { outcome: 'rejected'; reason: string };

export interface SubTppNetwork {
  /**
   * Asks the network for its decision on an application. Idempotent per opco: asking twice for
   * the same opco returns the same Sub-TPP id.
   */
  decide(application: SubTppApplication): Promise<SubTppDecision>;
}
