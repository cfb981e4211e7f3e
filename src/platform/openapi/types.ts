/** The parts of an OpenAPI document the finishing steps read and rewrite. */
export type Schema = Record<string, unknown>;
export type Operation = Schema & {
  operationId?: string;
  summary?: string;
  tags?: string[];
  requestBody?: Schema;
  responses?: Schema;
};
export type OpenApiDoc = Schema & {
  paths: Record<string, Record<string, Operation>>;
  components: Schema & { schemas?: Record<string, Schema>; responses?: Record<string, Schema> };
  tags?: { name: string; description?: string }[];
};
