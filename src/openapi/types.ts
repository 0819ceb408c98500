/** The shapes of the OpenAPI 3.1 document this service serves (src/openapi/build-document.ts). */

export type JsonObject = Record<string, unknown>;

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, JsonObject>;
  content?: Record<string, { schema: JsonObject; example?: unknown }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: JsonObject[];
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    contact: { name: string; url?: string };
    license: { name: string; identifier?: string; url?: string };
  };
  servers: { url: string; description?: string }[];
  security: JsonObject[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** What the service sends (OpenAPI 3.1): the webhook delivery. */
  webhooks: Record<string, { post: JsonObject }>;
  components: {
    schemas: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
}
