/** Authentication, sessions, API credentials, team and settings. */
import { defineModule } from '../../platform/module';
import { quiet } from '../../workers/loop';
import { credentialsRoutes } from './api-keys/credentials.routes';
import { sweepApiKeyLockouts } from './api-keys/credentials.service';
import { loginRoutes } from './login/login.routes';
import { mfaRoutes } from './mfa/mfa.routes';
import { passwordRoutes } from './passwords/password.routes';
import { registrationRoutes } from './registration/registration.routes';
import { securityRoutes } from './security-challenges/security.routes';
import { purgeExpiredAuthRows } from './sessions/auth-cleanup.worker';
import { meRoutes } from './sessions/me.routes';
import { sessionRoutes } from './sessions/sessions.routes';
import { settingsRoutes } from './settings/settings.routes';
import { teamRoutes } from './team/team.routes';

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
  housekeeping: (deps) => [
    { name: 'auth-cleanup', everyMs: 60_000, run: () => purgeExpiredAuthRows(deps) },
    // Stale API-key failure counters (one statement per minute).
    { name: 'api-key-lockout-sweeper', everyMs: 60_000, run: quiet(() => sweepApiKeyLockouts(deps)) },
  ],
});
