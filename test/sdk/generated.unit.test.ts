/**
 * The SDK's committed OpenAPI document and generated types match what the service serves now.
 * When this fails after a change to routes or schemas, run `npm run sdk:generate` and commit.
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import {
  renderSdkFiles,
  SDK_EVENTS_FILE,
  SDK_OPENAPI_FILE,
  SDK_OPERATIONS_FILE,
  SDK_SCHEMA_FILE,
} from '../../src/cli/sdk-generate';

it('packages/sdk generated files are up to date (else: npm run sdk:generate)', async () => {
  const files = await renderSdkFiles();
  const stale = [
    [SDK_OPENAPI_FILE, files.openapi],
    [SDK_SCHEMA_FILE, files.schema],
    [SDK_OPERATIONS_FILE, files.operations],
    [SDK_EVENTS_FILE, files.events],
  ]
    .filter(([file, content]) => !fs.existsSync(file!) || fs.readFileSync(file!, 'utf8') !== content)
    .map(([file]) => file);
  expect(stale, 'stale SDK files: run `npm run sdk:generate`').toEqual([]);
}, 180_000);
