/** Verification levels: built-in plus custom (GET /kyc/levels, /kyb/levels) and the custom-level endpoints. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { CHECKS_OF } from '../../providers/verification/levels';
import type { VerificationKind } from '../../providers/verification/port';
import { KYB_TAG, KYC_TAG } from './kyc.routes';
import { CustomLevelBody, ErrorSchema, LevelIdParams, LevelListSchema, LevelSchema } from './kyc.schemas';
import { createCustomLevel, deleteCustomLevel, listCustom, listLevels } from './levels.service';

export async function levelsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const kind of ['kyc', 'kyb'] as VerificationKind[]) {
    const tags = kind === 'kyc' ? KYC_TAG : KYB_TAG;
    const K = kind.toUpperCase();
    r.get(
      `/${kind}/levels`,
      {
        config: { permission: 'kyc.levels.read' },
        schema: {
          tags,
          summary: `${K} verification levels`,
          description:
            'Built-in levels first, then the client’s custom levels; the whole list (unpaginated).',
          response: { 200: LevelListSchema },
        },
      },
      async (req) => listLevels(deps, clientAuthOf(req).clientId, kind),
    );
    r.get(
      `/${kind}/custom-levels`,
      {
        config: { permission: 'kyc.levels.read' },
        schema: {
          tags,
          summary: `The client’s custom ${K} levels`,
          response: { 200: LevelListSchema },
        },
      },
      async (req) => listCustom(deps, clientAuthOf(req).clientId, kind),
    );
    r.post(
      `/${kind}/custom-levels`,
      {
        config: { permission: 'kyc.levels.write' },
        schema: {
          tags,
          summary: `Create a custom ${K} level`,
          description: `Checks from: ${CHECKS_OF[kind].join(', ')}. The name is unique per client (409), built-in names included.`,
          body: CustomLevelBody,
          response: { 201: LevelSchema, 409: ErrorSchema },
        },
      },
      async (req, reply) =>
        reply.status(201).send(await createCustomLevel(deps, clientAuthOf(req).clientId, kind, req.body)),
    );
    r.delete(
      `/${kind}/custom-levels/:level_id`,
      {
        config: { permission: 'kyc.levels.write' },
        schema: {
          tags,
          summary: `Delete a custom ${K} level`,
          description: 'Existing verifications keep the checks they were created with.',
          params: LevelIdParams,
          response: { 204: Type.Null(), 404: ErrorSchema },
        },
      },
      async (req, reply) => {
        await deleteCustomLevel(deps, clientAuthOf(req).clientId, kind, req.params.level_id);
        return reply.status(204).send(null);
      },
    );
  }
}
