/** The screening adapter of a deployment without one: the service answers 503 before storing anything. */
import type { ScreeningNotification, ScreeningProvider, ScreenOutcome } from './port';
import { ScreeningProviderError } from './port';

export class UnconfiguredScreeningProvider implements ScreeningProvider {
  readonly configured = false;
  async screenWallet(): Promise<ScreenOutcome> {
    throw new ScreeningProviderError('Screening provider is not configured');
  }
  async watchDeposit(): Promise<{ depositAddress: string }> {
    throw new ScreeningProviderError('Screening provider is not configured');
  }
  verifyNotification(): ScreeningNotification | null {
    return null;
  }
}
