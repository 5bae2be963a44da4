import type { RequestHandler } from 'express';
import type { OpenApiRequest } from 'express-openapi-validator/dist/framework/types.js';
import { MAX_LISTED_VIOLATIONS, schemaViolations, type ErrorDetail } from '../domain/errors.ts';

/**
 * The one place for the two input rules a JSON Schema cannot state (docs/decisions.md §3: a 5xx caused by client input is a bug):
 * - U+0000 in any string (body at any depth, query values, path parameters): PostgreSQL `text` cannot store it, so it
 *   would otherwise surface as a driver error. A `pattern` on every string of the contract would repeat the rule
 *   hundreds of times and be forgotten on the next field; one walk over the parsed input cannot be.
 * - Numbers that are not finite: `1e400` in a JSON body parses to Infinity, and Ajv's type coercion turns a query value
 *   of 400 digits into Infinity *and then skips the range keywords* (it accepts `?limit=999…9` with `maximum: 100`).
 * It runs right after the OpenAPI validator, so the values are the coerced ones the handlers will see and the path
 * parameters are known by name (`req.openapi.pathParams`). Each violation is named by its JSON path, like the
 * validator's (`/body/participants/3/display_name`, `/query/limit`, `/path/id`).
 */
export const inputGuard: RequestHandler = (req, _res, next) => {
  const issues: ErrorDetail[] = [];
  const pathParams = (req as OpenApiRequest).openapi?.pathParams ?? {};
  for (const [name, value] of Object.entries(pathParams)) inspect(value, `/path/${name}`, issues);
  for (const [name, value] of Object.entries(req.query ?? {})) inspect(value, `/query/${name}`, issues);
  if (req.body !== undefined) inspect(req.body, '/body', issues);
  if (issues.length === 0) return next();
  next(schemaViolations(issues));
};

function inspect(value: unknown, path: string, issues: ErrorDetail[]): void {
  // One past the listed maximum is enough to know that the list is cut (schemaViolations says so).
  if (issues.length > MAX_LISTED_VIOLATIONS) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) issues.push({ path, message: 'must not contain the character U+0000' });
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) issues.push({ path, message: 'must be a finite number within the documented range' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => inspect(item, `${path}/${i}`, issues));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const child = `${path}/${escapePointer(key)}`;
      if (key.includes('\u0000')) issues.push({ path: child, message: 'must not contain the character U+0000' });
      inspect(item, child, issues);
    }
  }
}

/** RFC 6901: `~` and `/` inside a key are escaped so the path stays a JSON Pointer. */
export const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
