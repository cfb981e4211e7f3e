/**
 * The production placeholder until a real verification vendor is configured: link generation
 * fails, so the API answers 500 "Failed to initiate KYC, please retry later" instead of faking a
 * verification; notifications are never accepted (401).
 */
import { type VerificationProvider, VerificationProviderError } from './port';

export class UnconfiguredVerificationProvider implements VerificationProvider {
  readonly name = 'unconfigured';
  async createSession(): Promise<never> {
    throw new VerificationProviderError('no verification provider is configured for this deployment');
  }
  async fetchResult() {
    return null;
  }
  async fetchDocument() {
    return null;
  }
  async fetchQuestionnaireFile() {
    return null;
  }
  verifyNotification() {
    return null;
  }
}
