/** In-app notifications and their emails; retention of notifications and activity-log entries. */
import { defineModule } from '../../platform/module';
import { notificationEmailJob } from './notification-email.service';
import { notificationsRoutes } from './notifications.routes';
import { purgeOldActivityLogs, purgeOldNotifications } from './notifications.worker';

export const notificationsModule = defineModule({
  name: 'notifications',
  api: [notificationsRoutes],
  jobs: [notificationEmailJob],
  // Retention: read/archived notifications, and activity-log entries (the trigger's one exception).
  housekeeping: (deps) => [
    { name: 'notification-retention', everyMs: 3_600_000, run: () => purgeOldNotifications(deps) },
    { name: 'activity-log-retention', everyMs: 3_600_000, run: () => purgeOldActivityLogs(deps) },
  ],
});
