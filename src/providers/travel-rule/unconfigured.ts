/** The travel-rule adapter of a deployment without one: the service answers 503 before storing anything. */
import type { Discovery, TravelRuleNetwork, TravelRuleNotification, Vasp } from './port';
import { TravelRuleProviderError } from './port';

const fail = () => new TravelRuleProviderError('Travel-rule network provider is not configured');

export class UnconfiguredTravelRuleNetwork implements TravelRuleNetwork {
  readonly configured = false;
  async directory(): Promise<Vasp[]> {
    throw fail();
  }
  async discover(): Promise<Discovery> {
    throw fail();
  }
  async send(): Promise<void> {
    throw fail();
  }
  async respond(): Promise<void> {
    throw fail();
  }
  async cancel(): Promise<void> {
    throw fail();
  }
  verifyNotification(): TravelRuleNotification | null {
    return null;
  }
}
