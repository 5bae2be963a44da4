// A receiver for Convene's `meeting.recording_ready` webhook, ready to copy: one file, Node's built-ins only (Node 24
// runs it as TypeScript as it is; docs/webhooks.md explains each step). Try it first with a test event
// (POST /api/v1/webhooks/test): it is verified like any delivery and printed as such.
//
//   WEBHOOK_SECRET=whsec_change_me_please npx node examples/webhook-receiver.ts     # listens on 127.0.0.1:9000/hook
//
// It verifies the signature on the RAW body (never a re-serialised object), refuses timestamps more than 300 s away
// from its clock, compares in constant time (verifyWebhook below; test/integration/deliveries/example-receiver.test.ts
// runs this file against Convene's own sender), answers 2xx fast, and deduplicates on X-Convene-Delivery: a delivery
// may arrive more than once (a retry after a lost answer).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const USAGE = `Usage: WEBHOOK_SECRET=<secret> node examples/webhook-receiver.ts [options]
  --port <n>       port to listen on (default: $PORT, else 9000)
  --host <addr>    address to listen on (default 127.0.0.1)
  --path <path>    the webhook's path (default /hook)
  --secret <s>     the tenant's post_meeting_webhook.secret (default: $WEBHOOK_SECRET)
  --help           this text`;
const { values: opt } = (() => {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', default: process.env.PORT ?? '9000' },
        host: { type: 'string', default: '127.0.0.1' },
        path: { type: 'string', default: '/hook' },
        secret: { type: 'string', default: process.env.WEBHOOK_SECRET },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
})();
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}
const secret = opt.secret;
if (!secret) {
  console.error('Set WEBHOOK_SECRET (or --secret) to the post_meeting_webhook.secret of your tenant.');
  process.exit(2);
}

const MAX_BODY_BYTES = 6 * 1024 * 1024; // Convene keeps payloads under 5 MB (docs/webhooks.md)
const TOLERANCE_SECONDS = 300;
/** Deliveries already handled. A real receiver keeps this in its database (a unique key on the delivery id). */
const seen = new Set<string>();

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== opt.path) return void res.writeHead(404).end();
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return void req.destroy();
    chunks.push(chunk);
  });
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    const signature = header(req.headers['x-convene-signature']);
    const timestamp = header(req.headers['x-convene-timestamp']);
    // 1-3. HMAC-SHA256 of "<timestamp>.<raw body>" with the secret, constant-time compare, timestamp within 300 s.
    if (!verifyWebhook(secret, signature, timestamp, rawBody, { toleranceSeconds: TOLERANCE_SECONDS })) {
      console.log(`refused: bad signature or stale timestamp (X-Convene-Timestamp ${timestamp ?? 'missing'})`);
      return void res.writeHead(401).end('invalid signature');
    }
    // 4. Deduplicate: the same delivery id on every attempt and on nothing else.
    const deliveryId = header(req.headers['x-convene-delivery']) ?? '';
    if (seen.has(deliveryId)) {
      console.log(`duplicate delivery ${deliveryId}: already handled, answering 200 again`);
      return void res.writeHead(200).end('duplicate');
    }
    seen.add(deliveryId);
    // 5. Only now parse the body (it is authentic) and answer quickly; do slow work after answering.
    const payload = JSON.parse(rawBody.toString('utf8'));
    res.writeHead(200).end('ok');
    if (payload.event === 'webhook.test') {
      console.log(`test event ${deliveryId} for tenant ${payload.tenant?.id}: signature valid, this receiver is set up`);
      return;
    }
    console.log(`delivery ${deliveryId} ${header(req.headers['x-convene-event'])}: signature valid`);
    console.log(
      JSON.stringify(
        {
          meeting: payload.meeting,
          recording: payload.recording ? { id: payload.recording.id, download_api: payload.recording.download_api, expires_at: payload.recording.expires_at } : payload.recording,
          transcript: payload.transcript ? { word_count: payload.transcript.word_count, language: payload.transcript.language, segments: payload.transcript.segments.length } : payload.transcript,
          summary: payload.summary,
          action_items: payload.action_items,
          errors: payload.errors,
        },
        null,
        2,
      ),
    );
  });
});

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * X-Convene-Signature is `sha256=<hex HMAC-SHA256 of "<X-Convene-Timestamp>.<raw body>">`, keyed with the secret.
 * False (never a throw) for a missing or malformed header, a timestamp too far from this clock, or a wrong signature.
 */
function verifyWebhook(secret: string, signature: string | undefined, timestamp: string | undefined, rawBody: Buffer, { toleranceSeconds = 300 } = {}): boolean {
  if (!secret || !signature || !timestamp) return false;
  if (!/^sha256=[0-9a-f]{64}$/.test(signature) || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
  return timingSafeEqual(Buffer.from(signature.slice('sha256='.length), 'hex'), expected); // both 32 bytes
}

server.listen(Number(opt.port), opt.host, () => {
  const { port } = server.address() as { port: number };
  console.log(`webhook receiver listening on http://${opt.host}:${port}${opt.path}`);
});
