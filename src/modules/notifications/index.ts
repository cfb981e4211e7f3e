/** In-app notifications and their emails; retention of notifications and activity-log entries. */
import { defineModule } from '../../platform/module';
import { periodicWorker } from '../../workers/loop';
import { notificationEmailJob } from './notification-email.service';
import { notificationsRoutes } from './notifications.routes';
import { purgeOldActivityLogs, purgeOldNotifications } from './notifications.worker';

export const notificationsModule = defineModule({
  name: 'notifications',
  api: [notificationsRoutes],
  jobs: [notificationEmailJob],
  workers: (deps) => [
    // Retention: read/archived notifications, and activity-log entries (the trigger's one exception).
    periodicWorker(deps, 'notification-retention', 3_600_000, () => purgeOldNotifications(deps)),
    periodicWorker(deps, 'activity-log-retention', 3_600_000, () => purgeOldActivityLogs(deps)),
  ],
});
