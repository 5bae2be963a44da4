import { originAllowed } from '../../../src/http/origin.ts';

const OPERATOR = ['http://localhost:*', 'http://127.0.0.1:*', 'https://localhost:*', 'https://127.0.0.1:*'];

describe('WebSocket origin rule (docs/decisions.md §11)', () => {
  test('without tenant origins, the operator patterns apply: localhost and 127.0.0.1 on any port', () => {
    for (const origin of ['http://localhost:5173', 'http://localhost', 'https://127.0.0.1:8443', 'HTTP://LOCALHOST:3000']) {
      expect(originAllowed(origin, [], OPERATOR)).toBe(true);
    }
    for (const origin of ['http://localhost.evil.example', 'http://localhost:80.evil.example', 'http://evil.example', 'null', 'http://localhost:abc']) {
      expect(originAllowed(origin, [], OPERATOR)).toBe(false);
    }
  });

  test('tenant allowed_origins replace the operator patterns; entries are exact origins', () => {
    const tenant = ['https://app.example.com', 'http://localhost:*'];
    expect(originAllowed('https://app.example.com', tenant, OPERATOR)).toBe(true);
    expect(originAllowed('http://localhost:9999', tenant, OPERATOR)).toBe(true);
    expect(originAllowed('https://app.example.com:444', tenant, OPERATOR)).toBe(false);
    expect(originAllowed('http://app.example.com', tenant, OPERATOR)).toBe(false);
    expect(originAllowed('https://127.0.0.1:3000', tenant, OPERATOR)).toBe(false);
  });

  test('a request without Origin is not a browser and passes', () => {
    expect(originAllowed(undefined, ['https://app.example.com'], OPERATOR)).toBe(true);
  });
});
