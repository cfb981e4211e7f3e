/** The one check of the URLs a client gives us (callback, webhook and per-payment redirect URLs). */
import { invalidField } from './errors';

/**
 * An absolute http(s) URL without embedded credentials (https only when `httpsOnly`, e.g. in
 * production); returns it trimmed, or throws a 422 for `loc`.
 */
export function checkClientUrl(loc: (string | number)[], value: string, httpsOnly: boolean): string {
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw invalidField(loc, 'URL must be an absolute http or https URL', 'url_parsing');
  }
  const allowed = httpsOnly ? ['https:'] : ['http:', 'https:'];
  if (!allowed.includes(url.protocol) || !url.hostname) {
    throw invalidField(
      loc,
      httpsOnly ? 'URL must be an absolute https URL' : 'URL must be an absolute http or https URL',
      'url_scheme',
    );
  }
  if (url.username || url.password) {
    throw invalidField(loc, 'URL must not contain credentials', 'url_credentials');
  }
  return trimmed;
}
