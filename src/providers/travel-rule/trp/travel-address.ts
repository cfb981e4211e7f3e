/**
 * TRP travel addresses (TRP 3.1.0 and later; docs/vendors/trp.md, "Travel addresses"): `ta` followed
 * by the base58check encoding (Bitcoin's alphabet, a 4-byte checksum: the first bytes of a double
 * SHA-256, no version byte) of the inquiry URL written without its scheme (https is implied) and
 * carrying the query parameter `t=i`. Example of the documents (trisacrypto/trisa
 * pkg/openvasp/traddr, docs.trpscout.com): `beneficiary.com/x/12345?t=i` is
 * `ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv`. Both directions give the documents' own results
 * on every example of traddr_test.go: a URL without a path keeps none (`localhost?t=i`, not
 * `localhost/?t=i`), and encoding writes the query parameters sorted by name, as TRISA's `Make` does.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

const PREFIX = 'ta';
const b58check = createBase58check(sha256);
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Whether `s` (without its scheme) names a path: a `/` after the host, before any query or fragment. */
const hasPath = (s: string) => /^[^/?#]*\//.test(s.replace(SCHEME, ''));

export class TravelAddressError extends Error {}

/** The inquiry URL (https) a travel address names, checked as the documents say; throws TravelAddressError. */
export function decodeTravelAddress(travelAddress: string): string {
  if (!travelAddress.startsWith(PREFIX)) throw new TravelAddressError('it does not start with "ta"');
  const body = travelAddress.slice(PREFIX.length);
  if (!BASE58.test(body)) throw new TravelAddressError('it is not base58 after "ta"');
  let bytes: Uint8Array;
  try {
    bytes = b58check.decode(body);
  } catch {
    throw new TravelAddressError('its checksum does not match');
  }
  let raw: string;
  try {
    raw = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TravelAddressError('it does not decode to text');
  }
  if (SCHEME.test(raw)) throw new TravelAddressError('it names a URL scheme (https is implied)');
  let url: URL;
  try {
    url = new URL(`https://${raw}`);
  } catch {
    throw new TravelAddressError('it does not decode to a URL');
  }
  if (!url.hostname) throw new TravelAddressError('it names no host');
  if (url.searchParams.get('t') !== 'i')
    throw new TravelAddressError('its URL lacks the query parameter t=i');
  // A URL written without a path stays without one (the WHATWG parser adds `/`; the same request).
  return hasPath(raw) ? url.toString() : `${url.origin}${url.search}${url.hash}`;
}

/**
 * The travel address of an inquiry URL: its scheme dropped (https is implied, so an http URL on this
 * machine gets an address that decodes to https), `t=i` set, the query parameters sorted by name.
 */
export function encodeTravelAddress(inquiryUrl: string): string {
  const url = new URL(inquiryUrl);
  url.searchParams.set('t', 'i');
  url.searchParams.sort();
  let raw = url.toString().replace(SCHEME, '');
  // No path given, none written (the parser's `/` dropped): `beneficiary.com:8000?t=i`.
  if (!hasPath(inquiryUrl)) raw = raw.replace('/?', '?');
  return PREFIX + b58check.encode(new TextEncoder().encode(raw));
}
