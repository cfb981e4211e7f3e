import { Type } from 'typebox';

/**
 * The `{detail}` error body a route declares for its 4xx/5xx answers. A declared response schema
 * filters what is sent, so the optional fields some errors add beside `detail` are listed here once
 * (the OpenAPI document shows them as the shared ErrorResponse).
 */
export const ErrorSchema = Type.Object({
  detail: Type.String(),
  error_description: Type.Optional(Type.String()),
  required_permission: Type.Optional(Type.String()),
  roles_with_permission: Type.Optional(Type.Array(Type.String())),
});

/** The property names of ErrorSchema: a response with exactly these is the shared error answer. */
export const ERROR_SCHEMA_FIELDS = Object.keys(ErrorSchema.properties);
