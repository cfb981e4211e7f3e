import { Type } from 'typebox';
import { pageEnvelope, pageQuerySchema, prefixSearchQuerySchema } from '../../shared/pagination';
import { ProjectActionsSchema } from './projects.actions';

export const ProjectSchema = Type.Object({
  project_id: Type.String({ format: 'uuid' }),
  project_name: Type.String(),
  opco_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  is_frozen: Type.Boolean({ description: 'A frozen project accepts no new payments (set by staff)' }),
  archived_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  allowed_actions: ProjectActionsSchema,
});

const projectName = Type.String({ minLength: 1, maxLength: 200, description: 'Display name' });

export const CreateProjectBody = Type.Object(
  {
    project_name: projectName,
    opco_id: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'Opco to bind; not a rejected or deactivated one',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateProjectBody = Type.Object(
  {
    project_name: Type.Optional(projectName),
    opco_id: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'null unbinds the opco' }),
    ),
  },
  { additionalProperties: false },
);

export const ProjectIdParams = Type.Object({ project_id: Type.String({ format: 'uuid' }) });

export const ListProjectsQuery = Type.Object({
  ...pageQuerySchema(20, 200),
  include_archived: Type.Boolean({ default: false, description: 'Include archived projects' }),
  q: Type.Optional(prefixSearchQuerySchema('the project name')),
});

export const ProjectListSchema = pageEnvelope('projects', ProjectSchema);
