/** Messages of the HTTP layer itself (not in the spec's catalogue): answers of the router, the HTTP parser and shutdown. */
export const HttpMessages = {
  badRequest: 'Bad Request',
  methodNotAllowed: 'Method Not Allowed',
  malformedUrl: 'Malformed URL: invalid percent-encoding',
  uriTooLong: 'URI Too Long',
  headersTooLarge: 'Request Header Fields Too Large',
  requestTimeout: 'Request Timeout',
  serviceUnavailable: 'Service Unavailable',
  unsupportedMediaType: 'Unsupported Media Type',
} as const;
