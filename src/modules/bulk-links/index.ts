/** Bulk payment links: CSV and spreadsheet uploads, previews and their jobs. */
import { defineModule } from '../../platform/module';
import { INTERACTIVE_IDLE_MAX_MS, sweepWorker } from '../../workers/loop';
import { bulkLinksRoutes } from './bulk.routes';
import { runBulkWorker } from './bulk.worker';

export const bulkLinksModule = defineModule({
  name: 'bulk-links',
  api: [bulkLinksRoutes],
  workers: (deps) => [
    // Preview expiry, queued jobs, row batches (leased, SKIP LOCKED), finishing, link cancels.
    sweepWorker(
      deps,
      'bulk-paylinks',
      () => runBulkWorker(deps),
      deps.config.workerPollMs,
      INTERACTIVE_IDLE_MAX_MS,
    ),
  ],
});
