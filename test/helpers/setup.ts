/**
 * Runs in every test file (vitest setupFiles): after the file's own tests, fail it when a secret it
 * handled reached a captured log line, or when an API operation answered a status, or a successful
 * body of a media type, its OpenAPI entry does not document.
 */
import { afterAll, beforeAll } from 'vitest';
// Installed before any file runs: it maps PGlite's prepared hot statements back to their SQL, so it
// must see every PREPARE of the worker's shared database, also those of earlier files.
import './statement-count';
import { endFile } from './file-end';
import { findLeaks, resetLogCapture } from './log-capture';
import { resetStatusRecorder, undocumentedMediaTypes, undocumentedStatuses } from './status-recorder';

// Start each file empty (also when files share a worker's modules, as with isolate: false).
beforeAll(() => {
  resetLogCapture();
  resetStatusRecorder();
});

// Registered first, so it runs last (after hooks run in reverse order): gives back the worker's
// shared app if the file did not close it (test/helpers/app.ts).
afterAll(() => endFile());

afterAll(() => {
  const leaks = findLeaks();
  if (leaks.length > 0)
    throw new Error(
      `secrets reached the logs:\n${leaks.map((l) => `  ${l.secret} from ${l.source}\n    ${l.line}`).join('\n')}`,
    );
  const undocumented = undocumentedStatuses();
  if (undocumented.length > 0)
    throw new Error(
      `operations answered statuses their OpenAPI entry does not document:\n  ${undocumented.join('\n  ')}`,
    );
  const wrongTypes = undocumentedMediaTypes();
  if (wrongTypes.length > 0)
    throw new Error(
      `operations answered media types their OpenAPI entry does not document:\n  ${wrongTypes.join('\n  ')}`,
    );
});
