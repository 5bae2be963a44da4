// 429 with Retry-After, built once (src/domain/errors.ts rateLimited) for every rate limit: the per-tenant rate, failed
// credentials per address, WebSocket upgrades per address (docs/decisions.md §3, §14).
import { errorBody, rateLimited } from '../../../src/domain/errors.ts';

describe('rateLimited: 429 RATE_LIMITED with Retry-After', () => {
  test('the status, the code, the message and the header', () => {
    const err = rateLimited('More than 5 requests per minute', 1_000_000 + 42_000, 1_000_000);
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ 'Retry-After': '42' });
    expect(errorBody(err, 'req-1')).toEqual({ error: { code: 'RATE_LIMITED', message: 'More than 5 requests per minute', request_id: 'req-1' } });
  });

  test('Retry-After: whole seconds until the window ends, rounded up, at least 1', () => {
    const retryAfter = (endsInMs: number) => rateLimited('x', 5_000 + endsInMs, 5_000).headers['Retry-After'];
    expect(retryAfter(60_000)).toBe('60');
    expect(retryAfter(1_001)).toBe('2');
    expect(retryAfter(1)).toBe('1');
    expect(retryAfter(0)).toBe('1');
    expect(retryAfter(-3_000)).toBe('1'); // a window that ended a moment ago (clocks, a slow request)
  });
});
