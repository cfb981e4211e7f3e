/**
 * What must happen when a test file ends, whatever the file did: the shared app's helper
 * (test/helpers/app.ts) registers the release of the app a file still holds, and the setup file
 * runs it after the file's own hooks. A small module of its own, so the setup file does not load
 * the app for files that never build one.
 */
let pending: (() => Promise<void>) | undefined;

export function onFileEnd(release: (() => Promise<void>) | undefined): void {
  pending = release;
}

export async function endFile(): Promise<void> {
  const release = pending;
  pending = undefined;
  await release?.();
}
