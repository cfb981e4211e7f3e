/** Authentication, sessions, API credentials, team and settings. */
import { defineModule } from '../../platform/module';
import { periodicWorker, quiet } from '../../workers/loop';
import { purgeExpiredAuthRows } from './auth-cleanup';
import { credentialsRoutes } from './credentials.routes';
import { sweepApiKeyLockouts } from './credentials.service';
import { loginRoutes } from './login.routes';
import { meRoutes } from './me.routes';
import { mfaRoutes } from './mfa.routes';
import { passwordRoutes } from './password.routes';
import { registrationRoutes } from './registration.routes';
import { securityRoutes } from './security.routes';
import { sessionRoutes } from './sessions.routes';
import { settingsRoutes } from './settings.routes';
import { teamRoutes } from './team.routes';

export const authModule = defineModule({
  name: 'auth',
  api: [
    securityRoutes,
    registrationRoutes,
    loginRoutes,
    sessionRoutes,
    meRoutes,
    mfaRoutes,
    passwordRoutes,
    credentialsRoutes,
    teamRoutes,
    settingsRoutes,
  ],
  workers: (deps) => [
    periodicWorker(deps, 'auth-cleanup', 60_000, () => purgeExpiredAuthRows(deps)),
    // Stale API-key failure counters (one statement per minute).
    periodicWorker(
      deps,
      'api-key-lockout-sweeper',
      60_000,
      quiet(() => sweepApiKeyLockouts(deps)),
    ),
  ],
});
