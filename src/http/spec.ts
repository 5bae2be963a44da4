import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ParticipantRole } from '../domain/principal.ts';

export const OPENAPI_PATH = new URL('../../spec/openapi.yaml', import.meta.url);
export const ASYNCAPI_PATH = new URL('../../spec/asyncapi.yaml', import.meta.url);

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface SpecOperation {
  operationId: string;
  method: (typeof HTTP_METHODS)[number];
  /** The OpenAPI path, e.g. `/api/v1/rooms/{id}`. */
  path: string;
  /** Security scheme names accepted (any one of them); empty for public operations. */
  schemes: Set<string>;
  /** `x-convene-participant-roles`: which participant roles may call it with an auth_token. */
  participantRoles: Set<ParticipantRole>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}

export function loadOpenApi(): OpenApiDocument {
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;
}

export function listOperations(doc: OpenApiDocument): SpecOperation[] {
  const operations: SpecOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const security: Array<Record<string, string[]>> = op.security ?? doc.security ?? [];
      operations.push({
        operationId: op.operationId,
        method,
        path,
        schemes: new Set(security.flatMap((requirement) => Object.keys(requirement))),
        participantRoles: new Set(op['x-convene-participant-roles'] ?? []),
      });
    }
  }
  return operations;
}
