/**
 * OpenAPI 3.1 generated from the route schemas (served at /api/v1/openapi.json, docs page at
 * /docs). Each route's permission and token kind are written into its description and security.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { PERMISSION_MATRIX } from '../modules/auth/permissions';

type RouteDocSchema = Record<string, unknown> & { response?: Record<string, unknown> };

const errorBody = (description: string) => ({
  description,
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
});

const validationErrorBody = {
  description:
    'Validation failed: one entry per failing field, `loc` names its path (e.g. ["body","amount"])',
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
          msg: { type: 'string' },
          type: { type: 'string' },
        },
      },
    },
  },
};

/**
 * Documents the error answers every route can give, in the spec's format, next to the route's own
 * success schemas. Documentation only: replies are serialized by the error handler, not by these.
 */
function withErrorResponses(schema: RouteDocSchema, route: RouteOptions): RouteDocSchema {
  if (!schema || schema.hide) return schema;
  const cfg = (route.config ?? {}) as { permission?: string; auth?: string };
  const response: Record<string, unknown> = { ...(schema.response ?? {}) };
  const add = (code: string, body: unknown) => {
    if (!(code in response)) response[code] = body;
  };
  if (schema.body) add('400', errorBody('Rejected by a rule of the request (the message says which)'));
  if (schema.body || schema.params || schema.querystring) add('422', validationErrorBody);
  if (cfg.auth !== 'public') {
    add('401', errorBody('Missing, invalid, expired or revoked token (with `WWW-Authenticate: Bearer`)'));
    add('403', errorBody('Not permitted for this token, role or environment'));
  } else if (schema.body) {
    add('401', errorBody('Credentials, code, token or signature not accepted'));
    add('403', errorBody('Not allowed (the message says why)'));
  }
  if (schema.params) add('404', errorBody('Not found, or owned by another client'));
  add('500', errorBody('Unexpected error (no internals are disclosed)'));
  return { ...schema, response };
}

export const openapiPlugin = fp(
  async (app: FastifyInstance, opts: { publicUrl: string }) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const cfg = (route.config ?? {}) as {
        permission?: keyof typeof PERMISSION_MATRIX;
        dashboardOnly?: boolean;
        auth?: string;
      };
      if (!route.schema) return;
      const schema = route.schema as Record<string, unknown>;
      if (cfg.permission || cfg.auth === 'client') {
        schema.security = [{ bearerAuth: [] }];
        const parts: string[] = [];
        if (cfg.permission) {
          const [roles] = PERMISSION_MATRIX[cfg.permission];
          parts.push(`Permission \`${cfg.permission}\` (roles: ${roles.join(', ')}).`);
        }
        if (cfg.dashboardOnly)
          parts.push('Requires a dashboard (login) token; API-credential tokens get 403.');
        schema.description = [schema.description, parts.join(' ')].filter(Boolean).join('\n\n');
      } else if (cfg.auth === 'staff') {
        schema.security = [{ staffBearerAuth: [] }];
      } else if (cfg.auth === 'public') {
        schema.security = [];
      }
    });

    await app.register(swagger, {
      transform: ({ schema, url, route }) => ({
        schema: withErrorResponses(schema as RouteDocSchema, route),
        url,
      }),
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Payments Platform API',
          version: 'v1',
          description:
            'Pay-by-bank payments, KYC/KYB verification, opcos and projects, workflows and signed webhooks. ' +
            'Errors are `{detail: string}`; validation errors are 422 `{detail: [{loc, msg, type}]}`.',
        },
        servers: [{ url: opts.publicUrl }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            staffBearerAuth: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'Staff token (admin API)',
            },
          },
        },
      },
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true },
    });

    app.get('/api/v1/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () =>
      app.swagger(),
    );
  },
  { name: 'openapi' },
);
