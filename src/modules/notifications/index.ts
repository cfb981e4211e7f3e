/** In-app notifications and their emails; retention of notifications and activity-log entries. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { notificationsRoutes } from './notifications.routes';
import {
  purgeOldActivityLogs,
  purgeOldNotifications,
  sendDueNotificationEmails,
} from './notifications.workers';

export const notificationsModule = defineModule({
  name: 'notifications',
  api: [notificationsRoutes],
  workers: (deps) => [
    // Notification emails by preference (pending rows claimed with SKIP LOCKED and a lease).
    loopWorker(
      'notification-email',
      Math.max(deps.config.workerPollMs, 1000),
      () => sendDueNotificationEmails(deps, 20),
      deps.log,
    ),
    // Retention: read/archived notifications, and activity-log entries (the trigger's one exception).
    loopWorker('notification-retention', 3_600_000, () => purgeOldNotifications(deps), deps.log),
    loopWorker('activity-log-retention', 3_600_000, () => purgeOldActivityLogs(deps), deps.log),
  ],
});
