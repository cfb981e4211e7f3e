/**
 * `SVC_BANK_PROVIDER=none` (the production default until Token.io is configured): no network.
 * Payment creation is refused before anything is written (503, see paylink.service.ts); every other
 * call fails, so nothing fakes success.
 */
import { type BankProvider, BankProviderError } from './port';

export class UnconfiguredBank implements BankProvider {
  readonly name = 'unconfigured';
  /** No network: creation answers 503 `Payment network is unavailable, please retry later` and writes nothing. */
  readonly available = false;
  async listBanks() {
    return [];
  }
  async createSession(): Promise<never> {
    throw new BankProviderError('no payment network adapter is configured for this deployment');
  }
  async startAuthorization(): Promise<never> {
    throw new BankProviderError('no payment network adapter is configured for this deployment');
  }
  async getSession() {
    return null;
  }
  async cancelSession() {}
  verifyNotification() {
    return null;
  }
}
