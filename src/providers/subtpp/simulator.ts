/**
 * Sandbox Sub-TPP network: approves every application and assigns a stable identifier derived
 * from the opco id (so a retried activation gets the same id). Magic input: an opco whose
 * registration number starts with `REJECT` is refused, so clients can exercise that path.
 */
import { createHmac } from 'node:crypto';
import type { SubTppApplication, SubTppDecision, SubTppNetwork } from './port';

export class SubTppSimulator implements SubTppNetwork {
  constructor(private readonly key: Buffer) {}

  async decide(app: SubTppApplication): Promise<SubTppDecision> {
    if (/^REJECT/i.test(app.registrationNumber)) {
      return { outcome: 'rejected', reason: 'Registration number could not be verified by the network' };
    }
    const digest = createHmac('sha256', this.key).update(`subtpp:${app.opcoId}`).digest('hex');
    return { outcome: 'approved', subTppId: `stpp_${digest.slice(0, 24)}` };
  }
}
