import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import {
  BusinessCustomerSchema,
  BusinessIdParams,
  BusinessListSchema,
  CreateBusinessBody,
  CreateUserBody,
  ListBusinessesQuery,
  ListUsersQuery,
  UserIdParams,
  UserListSchema,
  UserSchema,
} from './customers.schemas';
import {
  createBusiness,
  createUser,
  getBusiness,
  getUser,
  listBusinesses,
  listUsers,
} from './customers.service';

export async function customersRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const kyc = ['KYC'];
  const kyb = ['KYB'];

  r.post(
    '/kyc/users',
    {
      config: { permission: 'kyc.users.write', errors: [409] },
      schema: {
        tags: kyc,
        summary: 'Create a user',
        description: 'Starts with `kyc_status: "none"`. The same email twice under one client is 409.',
        body: CreateUserBody,
        response: { 201: UserSchema },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await createUser(deps, clientAuthOf(req).clientId, req.body)),
  );

  for (const url of ['/kyc/lists', '/kyc/users']) {
    r.get(
      url,
      {
        config: { permission: 'kyc.users.read' },
        schema: {
          tags: kyc,
          summary: url === '/kyc/lists' ? 'List users' : 'List users (alias of GET /kyc/lists)',
          description: 'Newest first; filters apply before pagination.',
          querystring: ListUsersQuery,
          response: { 200: UserListSchema },
        },
      },
      async (req) => listUsers(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), req.query),
    );
  }

  r.get(
    '/kyc/users/:user_id',
    {
      config: { permission: 'kyc.users.read' },
      schema: {
        tags: kyc,
        summary: 'Get a user',
        description: 'With `kyc_status`, `verification_mode` and `external_status`.',
        params: UserIdParams,
        response: { 200: UserSchema },
      },
    },
    async (req) => getUser(deps, clientAuthOf(req).clientId, req.params.user_id),
  );

  r.post(
    '/kyb/businesses',
    {
      config: { permission: 'kyb.businesses.write', errors: [409] },
      schema: {
        tags: kyb,
        summary: 'Create a business customer',
        description: 'Starts with `kyb_status: "none"`. The same email twice under one client is 409.',
        body: CreateBusinessBody,
        response: { 201: BusinessCustomerSchema },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await createBusiness(deps, clientAuthOf(req).clientId, req.body)),
  );

  r.get(
    '/kyb/businesses',
    {
      config: { permission: 'kyb.businesses.read' },
      schema: {
        tags: kyb,
        summary: 'List business customers',
        description: 'Newest first; filters apply before pagination.',
        querystring: ListBusinessesQuery,
        response: { 200: BusinessListSchema },
      },
    },
    async (req) => listBusinesses(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), req.query),
  );

  r.get(
    '/kyb/businesses/:business_customer_id',
    {
      config: { permission: 'kyb.businesses.read' },
      schema: {
        tags: kyb,
        summary: 'Get a business customer',
        params: BusinessIdParams,
        response: { 200: BusinessCustomerSchema },
      },
    },
    async (req) => getBusiness(deps, clientAuthOf(req).clientId, req.params.business_customer_id),
  );
}
