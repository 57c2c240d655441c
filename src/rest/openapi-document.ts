// The shape of the OpenAPI document the REST routes publish (./openapi.ts),
// shared by the files that build and amend it.
import type { JsonSchema } from './schemas.ts';

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItem = { parameters?: unknown[]; summary?: string; description?: string } & { [M in HttpMethod]?: OperationObject };

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  /** Alternatives: any one entry satisfies it (`{}`: no credentials). */
  security?: Record<string, string[]>[];
}
