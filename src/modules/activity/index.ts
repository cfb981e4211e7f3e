/** Activity logs (their retention runs with the notifications' retention). */
import { defineModule } from '../../platform/module';
import { activityRoutes } from './activity.routes';

export const activityModule = defineModule({ name: 'activity', api: [activityRoutes] });
