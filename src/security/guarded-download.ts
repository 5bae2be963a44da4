// A GET of a link Convene did not choose (a provider's recording link, docs/decisions.md §7) through the SSRF guard of
// outgoing webhooks (ssrf-guard.ts): the link and every redirect target, at most MAX_REDIRECTS of them, are checked
// after DNS resolution before they are requested, and each connection goes through the guard's lookup, so the address
// connected to is the address checked (no DNS rebinding). node:http rather than fetch: fetch follows redirects without
// showing them to a guard, and it decodes content encodings, so the bytes counted would not be the bytes announced.
import http from 'node:http';
import https from 'node:https';
import { assertSafeWebhookUrl, createSafeLookup, UnsafeUrlError, type SsrfPolicy } from './ssrf-guard.ts';

/** Redirects followed at most (docs/decisions.md §7); one more is refused like a forbidden address. */
export const MAX_REDIRECTS = 5;
/** A provider's signed link (query-string signatures, session tokens) may be far longer than a webhook URL. */
const MAX_LINK_LENGTH = 16 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as it arrives (not decoded); destroy it when it is not read. */
  body: http.IncomingMessage;
}

/**
 * GETs `url` under `policy`, following redirects. Throws UnsafeUrlError when the guard refuses the link, a redirect
 * target or the address a name resolves to (an UnresolvableHostError, its subclass, when a name has no DNS answer),
 * and for more than MAX_REDIRECTS redirects; a network error as it is. `signal` aborts the request and the body.
 */
export async function guardedGet(url: string, policy: SsrfPolicy, signal: AbortSignal): Promise<GuardedResponse> {
  const lookup = createSafeLookup(policy);
  let target = await assertSafeWebhookUrl(url, { ...policy, maxLength: MAX_LINK_LENGTH });
  for (let redirects = 0; ; redirects++) {
    const response = await get(target, lookup, signal);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
      return { status: response.statusCode ?? 0, headers: response.headers, body: response };
    }
    response.destroy(); // a redirect's body is never read
    if (redirects === MAX_REDIRECTS) throw new UnsafeUrlError(`more than ${MAX_REDIRECTS} redirects`);
    target = await assertSafeWebhookUrl(redirectTarget(location, target), { ...policy, maxLength: MAX_LINK_LENGTH });
  }
}

function get(target: URL, lookup: ReturnType<typeof createSafeLookup>, signal: AbortSignal): Promise<http.IncomingMessage> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(target, { lookup, signal }, resolve);
    request.on('error', reject); // also after the answer (an abort mid-body): then a no-op, never unhandled
  });
}

/** The `Location` of a redirect, relative to the URL that answered it. */
function redirectTarget(location: string, from: URL): string {
  try {
    return new URL(location, from).toString();
  } catch {
    throw new UnsafeUrlError('a redirect to something that is not a URL');
  }
}
