/**
 * OpenAPI 3.1 generated from the route schemas (served at /api/v1/openapi.json, docs page at
 * /docs). Each route's permission and token kind are written into its description and security.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { PERMISSION_MATRIX } from '../modules/auth/permissions';

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
