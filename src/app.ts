import { RequestContext } from '@mikro-orm/core';
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';
import type { Orm } from './db/orm.ts';
import { createCredentialResolver } from './credentials/credential-resolver.ts';
import { AllowedOrigins } from './http/allowed-origins.ts';
import { AuthFailureLimiter } from './http/address-limit.ts';
import { createAuthenticator } from './http/authenticate.ts';
import { useClientAddress } from './http/client-address.ts';
import { compileTrustProxy } from './security/trust-proxy.ts';
import { cors } from './http/cors.ts';
import { errorMiddleware, routeNotFound } from './http/error-responses.ts';
import { inputGuard } from './http/input-guard.ts';
import { refuseCostlyJson } from './http/json-shape.ts';
import { httpMethodSemantics, specPaths, upgradeRequired } from './http/methods.ts';
import { tenantRateLimit } from './http/rate-limit.ts';
import { requestId } from './http/request-context.ts';
import { requestLog } from './http/request-log.ts';
import { cacheValidatorRouteMatching } from './http/route-cache.ts';
import { shareValidatorSchemaCompilation } from './http/validator-schema-sharing.ts';
import { upstreamSignatureGuard } from './http/upstream-signature.ts';
import { bindOperations, type OperationHandlers } from './http/router.ts';
import { schemaBounds } from './http/schema-bounds.ts';
import { listOperations, loadOpenApi, OPENAPI_PATH } from './http/spec.ts';
import type { Logger } from './logger.ts';
import { httpMetrics, metricsRoutes } from './metrics/http-metrics.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import type { AuthService } from './modules/auth/auth.service.ts';
import { deliveryRoutes } from './modules/deliveries/delivery.routes.ts';
import type { DeliveryService } from './modules/deliveries/delivery.service.ts';
import { recordingRoutes } from './modules/recordings/recording.routes.ts';
import type { RecordingNotifications } from './modules/recordings/recording-notifications.ts';
import type { RecordingService } from './modules/recordings/recording.service.ts';
import { postMeetingRoutes } from './modules/post-meeting/post-meeting.routes.ts';
import type { PostMeetingService } from './modules/post-meeting/post-meeting.service.ts';
import { participantRoutes } from './modules/participants/participant.routes.ts';
import type { ParticipantService } from './modules/participants/participant.service.ts';
import { roomRoutes } from './modules/rooms/room.routes.ts';
import type { RoomService } from './modules/rooms/room.service.ts';
import { systemRoutes, type ReadinessChecks } from './modules/system/system.routes.ts';
import { tenantRoutes } from './modules/tenants/tenant.routes.ts';
import { transcriptRoutes } from './modules/transcripts/transcript.routes.ts';
import type { TranscriptService } from './modules/transcripts/transcript.service.ts';
import type { TenantService } from './modules/tenants/tenant.service.ts';
import type { TokenService } from './security/tokens.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  orm: Orm;
  tokens: TokenService;
  tenants: TenantService;
  auth: AuthService;
  rooms: RoomService;
  participants: ParticipantService;
  recordings: RecordingService;
  /** The media provider's notifications (recording.ready), verified before they reach it. */
  recordingNotifications: RecordingNotifications;
  postMeeting: PostMeetingService;
  transcripts: TranscriptService;
  deliveries: DeliveryService;
  readiness: ReadinessChecks;
  /** Failed credentials per client address (docs/decisions.md §14); main.ts shares one with the WebSocket gateway. */
  authFailures?: AuthFailureLimiter;
}

/** The public operations that take a credential in their body: every call counts against the address's limit. */
const PUBLIC_CREDENTIAL_OPERATIONS = new Set(['issueToken', 'refreshToken']);

/** The limiter of failed credentials per client address, for createApp and the WebSocket gateway alike. */
export function createAuthFailureLimiter(deps: Pick<AppDeps, 'config' | 'orm' | 'logger'>): AuthFailureLimiter {
  const { config, orm, logger } = deps;
  return new AuthFailureLimiter({ orm, logger, perMinute: config.authFailureLimitPerMinute, trust: compileTrustProxy(config.trustProxy) });
}

const UPSTREAM_WEBHOOK_PATH = '/api/v1/webhooks/upstream/recording-ready';

/** Assembles the HTTP app from explicit dependencies, so tests and production build the same thing. */
export function createApp(deps: AppDeps): Express {
  const { config, logger, orm } = deps;
  // Inside RequestContext (below) the global EntityManager resolves to this request's own fork.
  const em = () => orm.em;
  const app = express();
  app.disable('x-powered-by');
  // req.ip and the per-address limit agree on who the client is (TRUST_PROXY, src/http/client-address.ts).
  useClientAddress(app, compileTrustProxy(config.trustProxy));
  const authFailures = deps.authFailures ?? createAuthFailureLimiter(deps);
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(requestLog(logger));
  app.use(httpMetrics());
  app.use((_req, _res, next) => RequestContext.create(orm.em, next));
  const spec = loadOpenApi();
  const operations = listOperations(spec);
  // CORS before anything can answer (docs/decisions.md §14): preflights, refusals and errors all carry its headers.
  const origins = new AllowedOrigins({ orm, operatorPatterns: config.wsOriginPatterns, logger });
  app.use(cors({ paths: specPaths(operations), origins }));
  // OPTIONS, HEAD and 405 + Allow for every path of the contract, before any parser or validator (RFC 9110).
  app.use(httpMethodSemantics(operations));
  // The token operations count per client address before their body is parsed or any credential looked up.
  const publicCredentialPaths = operations.filter((op) => PUBLIC_CREDENTIAL_OPERATIONS.has(op.operationId)).map((op) => op.path);
  app.use(publicCredentialPaths, authFailures.publicCall);
  // The provider's webhook is verified on its raw bytes before any parser or validator touches them; a bad signature
  // counts as a failed credential of the address.
  const [rawBody, verifySignature] = upstreamSignatureGuard(config.upstream.webhookSecret);
  app.use(UPSTREAM_WEBHOOK_PATH, authFailures.gate, rawBody, authFailures.countingFailures(verifySignature));
  app.use(
    express.json({
      limit: '1mb',
      verify: (req, _res, buf, charset) => {
        // Too deep or too many values: refused before JSON.parse spends anything on it (docs/decisions.md §16, json-shape.ts).
        refuseCostlyJson(buf, charset);
        // The raw bytes are kept for signature checks (incoming webhooks are verified on exactly what was sent).
        (req as express.Request).rawBody = buf;
      },
    }),
  );
  // Arrays over maxItems, strings over maxLength, too many unknown fields: refused before Ajv validates what they hold.
  app.use(schemaBounds(spec, operations));
  cacheValidatorRouteMatching(); // each route's regular expression compiled once, not per request (route-cache.ts)
  shareValidatorSchemaCompilation(); // the spec compiled once per validator, not once per route (validator-schema-sharing.ts)
  app.use(contractValidator(config.validateResponses));
  // U+0000 and non-finite numbers anywhere in the input: 400 naming the field (input-guard.ts explains why here).
  app.use(inputGuard);

  const credentials = createCredentialResolver({ adminApiKey: config.adminApiKey, tokens: deps.tokens, tenants: deps.tenants, em });
  const handlers: OperationHandlers = {
    ...systemRoutes({ checks: deps.readiness }),
    ...metricsRoutes({ token: config.metrics.token }),
    ...authRoutes({ auth: deps.auth, credentials, tokens: deps.tokens, em }),
    ...tenantRoutes({ tenants: deps.tenants, em, originsChanged: () => origins.invalidate() }),
    ...roomRoutes({ rooms: deps.rooms, em }),
    ...recordingRoutes({ recordings: deps.recordings, notifications: deps.recordingNotifications, em }),
    ...postMeetingRoutes({ postMeeting: deps.postMeeting, em }),
    ...participantRoutes({ participants: deps.participants, em }),
    ...transcriptRoutes({ transcripts: deps.transcripts, em }),
    ...deliveryRoutes({ deliveries: deps.deliveries, em }),
    connectWebSocket: upgradeRequired,
  };
  const authenticate = createAuthenticator(credentials);
  const limit = tenantRateLimit(config.rateLimitPerMinute, orm);
  // The address gate and failure count sit around authentication, before any credential is looked up (docs/decisions.md §14).
  bindOperations(app, operations, handlers, (access) => [authFailures.gate, authFailures.countingFailures(authenticate(access)), limit]);

  app.use(routeNotFound);
  app.use(errorMiddleware(logger));
  return app;
}

/**
 * express-openapi-validator's middleware, one per process and response setting. It is built from the contract alone,
 * which every app of the process shares, and building it (reading the spec, compiling its validators as routes are
 * first met) costs about a second of CPU: production makes one app, the tests make one or more per test file in the
 * same process (docs/development.md, "How jest runs a test file"). The one thing it does per app, on the first
 * request, is to register `app.param` handlers that copy its parsed path parameters over Express's; the contract's
 * path parameters are all strings, which Express gives the same, so a later app loses nothing without them.
 */
const contractValidators = new Map<boolean, express.RequestHandler[]>();
function contractValidator(validateResponses: boolean): express.RequestHandler[] {
  let validator = contractValidators.get(validateResponses);
  if (validator === undefined) {
    validator = OpenApiValidator.middleware({
      apiSpec: fileURLToPath(OPENAPI_PATH),
      // allErrors: every violated field is named (docs/decisions.md §3), also inside oneOf branches. What Ajv sees is
      // bounded first (nesting, array and string lengths, unknown fields: docs/decisions.md §16), and `details` lists
      // at most 20 (src/domain/errors.ts).
      validateRequests: { allowUnknownQueryParameters: false, allErrors: true },
      validateResponses,
      validateSecurity: false, // credentials are checked by our authenticator, which knows what they mean
      // The contract is checked where it is written (npm test lints it with Redocly and rebuilds generated/ from it) and
      // ships with the code: checking it against the OpenAPI schema again at every start was work done twice.
      validateApiSpec: false,
      ignorePaths: /^\/api\/v1\/ws$/, // the WebSocket upgrade never reaches Express
    });
    contractValidators.set(validateResponses, validator);
  }
  return validator;
}
