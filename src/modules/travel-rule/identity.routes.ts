/**
 * TRP's identity request at the origin's root (docs/vendors/trp.md, "Identity endpoint"): TRISA's
 * TRP client (`trisacrypto/trisa`, pkg/openvasp/client `Identity`) takes the peer's address,
 * replaces its path with `/identity` and keeps its query. A client's inquiry URL carries its token in
 * the query (`?id=<token>&t=i`), so `GET /identity?id=<token>&t=i` answers that client's identity,
 * exactly as `GET <inquiry URL path>/identity` does (travel-rule.routes.ts). Outside /api/v1, public
 * (the token is the credential, as on the inquiry URL), hidden from the OpenAPI document as the path
 * form and the notification URLs are.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { ErrorSchema } from '../../shared/error-schema';
import { trpIdentity } from './settings.service';

export const TrpIdentitySchema = Type.Object({
  name: Type.String(),
  lei: Type.String(),
  x509: Type.Union([Type.String(), Type.Null()]),
});

export async function trpIdentityRootRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  app.get(
    '/identity',
    {
      config: { auth: 'public' },
      schema: { hide: true, response: { 200: TrpIdentitySchema, 404: ErrorSchema } },
    },
    // No pathSecret: the token is the query's `id` (a missing or repeated one is 404).
    async (req) => trpIdentity(deps, { query: req.query as Record<string, string | string[] | undefined> }),
  );
}
