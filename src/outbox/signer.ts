/**
 * Delivery headers for a claimed delivery, signed with its target's secret. The decrypted secret
 * and its HMAC keys (one per signature scheme) are kept per ciphertext: a rotated secret is a new ciphertext (used from the
 * next claim on), and nothing is decrypted twice while it stays the same.
 */
import type { Deps } from '../deps';
import { decrypt } from '../shared/crypto';
import { type ClaimedDelivery, ensureMainWebhookSecret } from './delivery-store';
import { deliveryHeaders, type SigningKeys, signingKeys } from './envelope';

const MAX_KEYS = 1000;

export interface DeliverySigner {
  /** Null when the destination is gone (deleted). Throws when the secret cannot be read. */
  headers(d: ClaimedDelivery): Promise<Record<string, string> | null>;
}

export function createSigner(deps: Deps): DeliverySigner {
  const keys = new Map<string, SigningKeys>();
  const keyOf = (enc: string) => {
    let k = keys.get(enc);
    if (!k) {
      if (keys.size >= MAX_KEYS) keys.clear();
      k = signingKeys(decrypt(deps.secrets.encryptionKey, enc));
      keys.set(enc, k);
    }
    return k;
  };
  return {
    async headers(d) {
      let key: SigningKeys | string;
      if (d.secretEnc) key = keyOf(d.secretEnc);
      else if (d.destinationId) return null;
      else key = await ensureMainWebhookSecret(deps.db, deps.secrets.encryptionKey, d.clientId);
      // Unix seconds of the signing moment (receivers compare it with their own clock).
      const timestamp = Math.floor(Date.now() / 1000);
      return deliveryHeaders(key, { id: d.eventId, type: d.eventType }, d.body, timestamp);
    },
  };
}
