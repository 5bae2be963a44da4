import express, { type RequestHandler } from 'express';
import { verifyUpstreamSignature } from '../security/signatures.ts';
import { UPSTREAM_SIGNATURE_HEADER } from '../upstream/protocol.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { refuseCostlyJson } from './json-shape.ts';

/**
 * Guards the media provider's webhook (docs/decisions.md §7): reads the raw bytes itself, checks `X-Upstream-Signature` (hex
 * HMAC-SHA256, constant time) before anything parses them, and only then parses JSON. Mounted ahead of the JSON body
 * parser and the OpenAPI validator, so a bad signature is 401 INVALID_SIGNATURE whatever the body holds.
 */
export function upstreamSignatureGuard(secret: string): RequestHandler[] {
  return [
    express.raw({ type: () => true, limit: '1mb' }),
    (req, _res, next) => {
      if (req.method !== 'POST') return next();
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!verifyUpstreamSignature(secret, raw, req.get(UPSTREAM_SIGNATURE_HEADER))) {
        return next(new ApiError('INVALID_SIGNATURE', `Missing or invalid ${UPSTREAM_SIGNATURE_HEADER}`));
      }
      req.rawBody = raw;
      if (!req.is('application/json')) return next(); // the validator answers 415
      try {
        refuseCostlyJson(raw); // docs/decisions.md §16, as for every other JSON body
        req.body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        return next(err instanceof ApiError ? err : validationError('/body', 'Request body is not valid JSON'));
      }
      next();
    },
  ];
}
