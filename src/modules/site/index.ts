/** The site's own files at the root: the favicon of the hosted pages, the docs and the dashboard. */
import { defineModule } from '../../platform/module';
import { faviconRoutes } from './favicon.routes';

export const siteModule = defineModule({ name: 'site', pages: [faviconRoutes] });
