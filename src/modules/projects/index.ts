/** Projects: where payments are collected (an opco's account, the callback and return URLs). */
import { defineModule } from '../../platform/module';
import { projectsRoutes } from './projects.routes';

export const projectsModule = defineModule({ name: 'projects', api: [projectsRoutes] });
