/** Bulk payment links: CSV and spreadsheet uploads, previews and their jobs. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { bulkLinksRoutes } from './bulk.routes';
import { runBulkWorker } from './bulk.worker';

export const bulkLinksModule = defineModule({
  name: 'bulk-links',
  api: [bulkLinksRoutes],
  workers: (deps) => [
    // Preview expiry, queued jobs, row batches (leased, SKIP LOCKED), finishing, link cancels.
    loopWorker('bulk-paylinks', deps.config.workerPollMs, () => runBulkWorker(deps), deps.log),
  ],
});
