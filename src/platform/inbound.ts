/**
 * Inbound provider notifications, one generic route for every provider (docs/architecture.md,
 * "Adding a provider"). A feature declares in its manifest (`inbound`) how it applies a kind's
 * notifications; the configured provider of that kind parses the raw request (its port's inbound
 * capability, or its signed `verifyNotification`). The route serves:
 * - `POST /api/v1/providers/{kind}/{name}/notifications` (and `…/notifications/{secret}` for vendors
 *   that sign nothing and authenticate by a URL secret), the provider's own URL;
 * - `POST /api/v1/providers/{kind}/notifications`, the kind's public URL as it always was (the
 *   sandbox simulators and Sumsub post there), documented as before;
 * - the older URLs a provider names (`inbound.aliases`, e.g. Token.io's `/providers/tokenio/webhook/{secret}`).
 * Sandbox simulators deliver through the provider's own URL, in-process (`attach`).
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Database, Db } from '../db/client';
import type { Deps } from '../deps';
import { type InboundCapability, type InboundRequest, parseInbound } from '../providers/capabilities';
import type { ProviderKind } from '../providers/definition';
import { deliverThroughRoute, keepRawJsonBody } from '../providers/inbound-notifications';
import type { Clock } from '../shared/clock';
import { ErrorSchema } from '../shared/error-schema';
import { badRequest, notFound } from '../shared/errors';
import { M } from '../shared/messages';

export interface InboundAck {
  received: boolean;
  applied: boolean;
}

/** What the generic route gives a provider that delivers through it (the sandbox simulators). */
export interface InboundAttachContext {
  db: Db;
  database: Database;
  clock: Clock;
  deliver(rawBody: string, headers: Record<string, string>): Promise<{ statusCode: number; body: string }>;
}

/** The part of a port the route uses. */
export interface InboundPort<N, H> {
  verifyNotification(rawBody: string, headers: InboundRequest['headers']): N | null;
  readonly inbound?: InboundCapability<N, H>;
  attach?(ctx: InboundAttachContext): void;
}

/** How a feature takes one kind's notifications (a manifest's `inbound` entry). */
export interface InboundHandler<N, H> {
  kind: ProviderKind;
  port(deps: Deps): InboundPort<N, H>;
  /** The kind's public URL in the API reference, as documented before the generic route. */
  doc: {
    summary: string;
    description: string;
    body: TSchema;
    response: Record<number, TSchema>;
    errors?: readonly (401 | 404 | 503)[];
  };
  /** Runs first (e.g. 503 when the deployment has no adapter of the kind). */
  guard?(deps: Deps): void;
  /**
   * The error answered for an unsigned or badly signed notification (401). A wrong URL secret is
   * 404 `Not Found` for every kind, as for any unknown path (answered by the route itself).
   */
  refuse(): Error;
  /** Applies a verified notification. */
  apply(deps: Deps, n: N): Promise<InboundAck>;
  /** Reads again what a hint names and applies what the vendor answers; true when something changed. */
  reread?(deps: Deps, hint: H): Promise<boolean>;
}

/** A handler with its types closed over, as the manifests list them. */
export interface InboundRoute {
  kind: ProviderKind;
  doc: InboundHandler<unknown, unknown>['doc'];
  port(deps: Deps): {
    attach?(ctx: InboundAttachContext): void;
    readonly inbound?: { aliases?: readonly { path: string; summary: string }[] };
  };
  /** Checks the request (throws the refusal) and returns the work to do once the body is validated. */
  prepare(deps: Deps, req: InboundRequest, log: FastifyBaseLogger): () => Promise<InboundAck>;
}

/**
 * The documented body and description of a notification signed like our simulators' (screening,
 * travel rule): `{header}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">`, 300 s tolerance.
 */
export function signedNotificationDoc(header: string, types: string) {
  return {
    description:
      `Signed with \`${header}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">\` ` +
      'using the provider webhook secret; older than 300 s, unsigned or badly signed: 401. Types: ' +
      `${types} A replayed or older notification changes nothing.`,
    body: Type.Object(
      {
        event_id: Type.Optional(Type.String()),
        type: Type.Optional(Type.String()),
        reference: Type.Optional(Type.String()),
        revision: Type.Optional(Type.Integer()),
      },
      { additionalProperties: true },
    ),
  };
}

export function defineInbound<N, H = never>(h: InboundHandler<N, H>): InboundRoute {
  return {
    kind: h.kind,
    doc: h.doc,
    port: h.port,
    prepare(deps, req, log) {
      h.guard?.(deps);
      const r = parseInbound(h.port(deps), req);
      switch (r.type) {
        case 'refused':
          if (r.status === 400) throw badRequest(r.detail);
          throw r.status === 404 ? notFound(M.notFound) : h.refuse();
        case 'notification':
          return () => h.apply(deps, r.notification);
        case 'ignored':
          // A body that names nothing we read: its shape (top-level keys, never values) for the logs.
          if (r.keys) log.warn({ keys: r.keys, kind: h.kind }, 'provider notification names nothing to read');
          return async () => ({ received: true, applied: false });
        case 'hint':
          return async () => {
            if (!h.reread) return { received: true, applied: false };
            try {
              return { received: true, applied: await h.reread(deps, r.hint) };
            } catch (err) {
              // The vendor could not be read now: the reconciliation sweep reads the object later.
              log.warn({ err, kind: h.kind }, 'provider hint could not be checked; left to reconciliation');
              return { received: true, applied: false };
            }
          };
      }
    },
  };
}

const AckSchema = Type.Object({ received: Type.Boolean(), applied: Type.Boolean() });

declare module 'fastify' {
  interface FastifyRequest {
    inboundWork?: () => Promise<InboundAck>;
  }
}

/** The generic route (below /api/v1) for the manifests' inbound handlers. */
export function inboundNotificationRoutes(routes: readonly InboundRoute[]) {
  return async (app: FastifyInstance, { deps }: { deps: Deps }) => {
    keepRawJsonBody(app);
    for (const route of routes) {
      const name = deps.config.providers[route.kind].name;
      const own = `/providers/${route.kind}/${name}/notifications`;
      const port = route.port(deps);
      port.attach?.({
        db: deps.db,
        database: deps.database,
        clock: deps.clock,
        deliver: deliverThroughRoute(app, `/api/v1${own}`),
      });
      const preValidation = async (request: {
        rawBody?: string;
        headers: InboundRequest['headers'];
        params: unknown;
        query: unknown;
        log: FastifyBaseLogger;
        inboundWork?: () => Promise<InboundAck>;
      }) => {
        const params = request.params;
        const pathSecret =
          typeof params === 'object' &&
          params !== null &&
          'secret' in params &&
          typeof params.secret === 'string'
            ? params.secret
            : undefined;
        // The provider checks the notification (signature, URL secret) before anything looks at the body.
        request.inboundWork = route.prepare(
          deps,
          {
            rawBody: request.rawBody ?? '',
            headers: request.headers,
            pathSecret,
            query: (request.query ?? {}) as InboundRequest['query'],
          },
          request.log,
        );
      };
      const handler = async (request: { inboundWork?: () => Promise<InboundAck> }) => request.inboundWork!();
      const SecretParams = Type.Object({ secret: Type.String({ maxLength: 200 }) });
      const ownSchema = {
        hide: true,
        body: Type.Object({}, { additionalProperties: true }),
        response: { 200: AckSchema, 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, 503: ErrorSchema },
      };
      const config = { auth: 'public' as const, errors: [400, 401, 404, 503] as const };
      if (name !== 'none') {
        app.post(own, { config, schema: ownSchema, preValidation }, handler);
        app.post(
          `${own}/:secret`,
          { config, schema: { ...ownSchema, params: SecretParams }, preValidation },
          handler,
        );
      }
      // The kind's public URL, documented as it always was.
      app.post(
        `/providers/${route.kind}/notifications`,
        {
          config: { auth: 'public', ...(route.doc.errors ? { errors: route.doc.errors } : {}) },
          schema: {
            tags: ['providers'],
            summary: route.doc.summary,
            description: route.doc.description,
            body: route.doc.body,
            response: route.doc.response,
          },
          preValidation,
        },
        handler,
      );
      for (const alias of port.inbound?.aliases ?? [])
        app.post(
          alias.path,
          {
            config: { auth: 'public' },
            schema: {
              tags: ['providers'],
              summary: alias.summary,
              ...(alias.path.includes('/:secret') ? { params: SecretParams } : {}),
              body: Type.Object({}, { additionalProperties: true }),
              response: { 200: AckSchema, 404: ErrorSchema },
            },
            preValidation,
          },
          handler,
        );
    }
  };
}
