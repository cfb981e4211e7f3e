/** A production deployment without an e-signing adapter: every use answers 503 and stores nothing. */
import { type EsignProvider, EsignProviderError } from './port';

export class UnconfiguredEsign implements EsignProvider {
  readonly name = 'none';
  readonly configured = false;
  async createEnvelope(): Promise<never> {
    throw new EsignProviderError('no e-signing adapter is configured');
  }
  async voidEnvelope() {}
  async participantsInvited() {}
  async reportAction(): Promise<never> {
    throw new EsignProviderError('no e-signing adapter is configured');
  }
  verifyNotification() {
    return null;
  }
}
