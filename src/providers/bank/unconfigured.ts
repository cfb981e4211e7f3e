/**
 * The production placeholder until a real payment network adapter is configured: every call
 * fails, so payment creation answers 500 "Failed to initiate payment" instead of faking success.
 */
import { type BankProvider, BankProviderError } from './port';

export class UnconfiguredBank implements BankProvider {
  readonly name = 'unconfigured';
  listBanks() {
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
