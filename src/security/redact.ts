// Credentials out of free text: failure messages that reach workflow histories (src/activities/safe-failure.ts) and
// failure reasons the API shows (`failure_reason`, docs/decisions.md §9). Errors from fetch, the S3 client or a provider may
// echo the URL they called, signed query and all.

/** A URL up to whitespace or a quote; punctuation that ends a sentence ("…/x.wav: 503") is not part of it. */
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*[^\s"'<>.,:;)]/gi;
/** Key=value pairs that carry credentials even outside a URL (a signed query pasted in a message, a header dump). */
const SECRET_PAIR = /\b(sig|signature|x-amz-[a-z-]+|token|access_token|api_key|apikey|key|secret|password|expires)=[^\s&"']+/gi;
const BEARER = /\b(bearer|basic)\s+[a-z0-9._~+/=-]+/gi;
/** Keys by their shape, as providers echo them in refusals ("Incorrect API key provided: sk-…"): OpenAI-style, ours. */
const KEY_SHAPED = /\b(?:sk|cvn|whsec)[-_][A-Za-z0-9_*-]{6,}/g;

/** The message without query strings, fragments, user info or credential-looking pairs: scheme, host and path remain. */
export function redactSecrets(message: string): string {
  return message
    .replace(URL_PATTERN, (raw) => {
      try {
        const url = new URL(raw);
        return `${url.protocol}//${url.host}${url.pathname}`;
      } catch {
        return '[url]';
      }
    })
    .replace(SECRET_PAIR, (_match, name: string) => `${name}=[redacted]`)
    .replace(BEARER, (_match, scheme: string) => `${scheme} [redacted]`)
    .replace(KEY_SHAPED, '[redacted key]');
}
