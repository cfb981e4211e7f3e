/**
 * Root secrets: from the environment (required in production), or for the embedded default
 * generated once and kept in `$SVC_DATA_DIR/secrets.json` so `npm start` needs no setup.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { deriveSecrets, type Secrets } from './crypto';

export function loadSecrets(config: Config): Secrets {
  let jwt = config.jwtSecret;
  let dataKey = config.dataKey;
  if (!jwt || !dataKey) {
    const file = path.join(config.dataDir, 'secrets.json');
    let stored: { jwtSecret?: string; dataKey?: string } = {};
    if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!stored.jwtSecret || !stored.dataKey) {
      stored = {
        jwtSecret: stored.jwtSecret ?? randomBytes(48).toString('base64url'),
        dataKey: stored.dataKey ?? randomBytes(32).toString('base64'),
      };
      fs.mkdirSync(config.dataDir, { recursive: true });
      fs.writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
    }
    jwt ??= stored.jwtSecret!;
    dataKey ??= stored.dataKey!;
  }
  return deriveSecrets(jwt, dataKey, config.providerWebhookSecret);
}
