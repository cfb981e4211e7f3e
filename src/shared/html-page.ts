/** Sends a server-rendered page of ours (hosted checkout, verification page) with the hardening headers. */
import type { FastifyReply } from 'fastify';

export function sendHtmlPage(reply: FastifyReply, status: number, body: string) {
  return (
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      // form-action must allow the client's return URLs: browsers apply it to the 303 after a post.
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action *; frame-ancestors 'none'",
      )
      .send(body)
  );
}
