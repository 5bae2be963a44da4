// examples/web in headless Chromium (Debian's package, scripts/browser.ts installs it when missing; playwright-core
// drives it and never downloads a browser): two participants join one room, chat, raise a hand, and one is kicked; a
// page whose connection drops resumes by itself without losing what was said meanwhile.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { serveWebClient } from '../../examples/web/serve.ts';
import { ensureChromium } from '../../scripts/browser.ts';
import { addParticipant, createRoom, createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { startRealtimeServer, type RealtimeServer } from '../helpers/realtime-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let server: RealtimeServer;
let web: { url: string; close(): Promise<void> };
let browser: Browser;
let tenant: TenantFixture;
/** Uncaught errors of any page: the test fails on them. */
const pageErrors: Error[] = [];

beforeAll(async () => {
  const executablePath = ensureChromium();
  t = await createTestApp();
  server = await startRealtimeServer(t.services);
  web = await serveWebClient(0);
  // --no-sandbox: CI and this machine run as root, where Chromium's sandbox refuses to start.
  browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  tenant = await createTenant(t);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await server?.close();
  await t?.close();
});

async function openRoom(accessToken: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(err));
  const wsBase = server.baseUrl.replace(/^http/, 'ws');
  await page.goto(`${web.url}#server=${encodeURIComponent(wsBase)}&token=${encodeURIComponent(accessToken)}`);
  await page.waitForSelector('body[data-joined="true"]');
  return page;
}

// Browser-side expressions are strings: this project's TypeScript has no DOM types.
const presentCount = (n: number) => `document.querySelectorAll('#participants li').length === ${n}`;
const names = (page: Page) => page.$$eval('#participants li', (items) => items.map((li) => li.textContent));

test('two pages: join, presence, chat, hand raise, kick', async () => {
  const room = await createRoom(t, tenant);
  const ada = await addParticipant(t, tenant, room.id, { display_name: 'Ada', role: 'host' });
  const bo = await addParticipant(t, tenant, room.id, { display_name: 'Bo' });

  const adaPage = await openRoom(ada.access_token);
  expect(await adaPage.textContent('#status')).toBe('Connected as Ada');
  const boPage = await openRoom(bo.access_token);

  // Presence: Ada sees Bo arrive; Bo's snapshot lists both.
  await adaPage.waitForFunction(presentCount(2));
  expect(await names(adaPage)).toEqual(['Ada (host)', 'Bo (participant)']);
  expect((await names(boPage)).sort()).toEqual(['Ada (host)', 'Bo (participant)']);

  // Chat, shown as text to both (a name or message is never parsed as HTML).
  const text = 'Hello <img src=x onerror="document.body.dataset.owned=1"> everyone';
  await boPage.fill('#chat-text', text);
  await boPage.click('#chat-form button');
  for (const page of [adaPage, boPage]) {
    await page.waitForSelector('#chat li');
    expect(await page.textContent('#chat li .sender')).toBe('Bo');
    expect(await page.textContent('#chat li .text')).toBe(text);
    expect(await page.$('#chat img')).toBeNull();
    expect(await page.getAttribute('body', 'data-owned')).toBeNull();
  }

  // Bo raises a hand; Ada sees it beside Bo's name.
  await boPage.click('#hand');
  await adaPage.waitForSelector(`#participants li.raised[data-id="${bo.participant.id}"]`);
  await boPage.waitForSelector('#hand:text-is("Lower hand")');

  // Recording notices: announced as RecordingService announces them (a real start needs the media provider, which
  // test/integration/recordings covers; here only what the page shows matters).
  const recording = { tenantId: tenant.id, roomId: room.id, recordingId: '0193a000-0000-7000-8000-000000000001' };
  await t.services.events.publish({ type: 'recording.started', ...recording, startedAt: new Date().toISOString() });
  for (const page of [adaPage, boPage]) await page.waitForSelector('#recording', { state: 'visible' });
  await t.services.events.publish({ type: 'recording.stopped', ...recording });
  for (const page of [adaPage, boPage]) await page.waitForSelector('#recording', { state: 'hidden' });
  expect(await adaPage.textContent('#notices')).toContain('Recording stopped');

  // The tenant removes Bo: Bo's page says so (close 4003), Ada sees Bo leave.
  const kick = await t.request.delete(`/api/v1/rooms/${room.id}/participants/${bo.participant.id}`).set(tenant.auth);
  expect(kick.status).toBe(204);
  await boPage.waitForSelector('body[data-close-code="4003"]');
  expect(await boPage.textContent('#status')).toBe('Disconnected: you were removed from the room');
  expect(await boPage.isDisabled('#chat-text')).toBe(true);
  await adaPage.waitForFunction(presentCount(1));
  expect(await names(adaPage)).toEqual(['Ada (host)']);
  expect(await adaPage.textContent('#notices')).toContain('Bo left');
  expect(pageErrors).toEqual([]);
});

/**
 * A TCP relay in front of the API: `cut()` destroys every connection through it (the browser sees its socket drop
 * without a close frame, as when a phone changes networks) and refuses new ones until `restore()`.
 */
async function dropProneRelay(targetPort: number) {
  const open = new Set<Socket>();
  let refusing = false;
  const relay: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', drop);
      socket.on('close', () => {
        open.delete(socket);
        drop();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    cut() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

test('a page whose connection drops resumes by itself: what was said meanwhile arrives once, in order', async () => {
  const room = await createRoom(t, tenant);
  const ada = await addParticipant(t, tenant, room.id, { display_name: 'Ada' });
  const bo = await addParticipant(t, tenant, room.id, { display_name: 'Bo' });
  const relay = await dropProneRelay(Number(new URL(server.baseUrl).port));
  try {
    const adaPage = await browser.newPage();
    adaPage.on('pageerror', (err) => pageErrors.push(err));
    await adaPage.goto(`${web.url}#server=${encodeURIComponent(relay.url)}&token=${encodeURIComponent(ada.access_token)}`);
    await adaPage.waitForSelector('body[data-joined="true"]');
    const boPage = await openRoom(bo.access_token);
    const say = async (text: string) => {
      await boPage.fill('#chat-text', text);
      await boPage.click('#chat-form button');
      await boPage.waitForFunction(`[...document.querySelectorAll('#chat li .text')].some((el) => el.textContent === ${JSON.stringify(text)})`);
    };
    await say('before the drop');
    await adaPage.waitForFunction(`document.querySelectorAll('#chat li').length === 1`);

    relay.cut();
    await adaPage.waitForFunction(`document.querySelector('#status').textContent.startsWith('Connection lost')`);
    for (const text of ['while away 1', 'while away 2', 'while away 3']) await say(text);
    await boPage.click('#hand');
    await boPage.waitForSelector('#hand:text-is("Lower hand")');

    relay.restore();
    await adaPage.waitForFunction(`document.querySelector('#status').textContent === 'Connected as Ada'`, undefined, { timeout: 45_000 });
    await adaPage.waitForSelector(`#participants li.raised[data-id="${bo.participant.id}"]`);
    const chat = await adaPage.$$eval('#chat li .text', (items) => items.map((li) => li.textContent));
    expect(chat).toEqual(['before the drop', 'while away 1', 'while away 2', 'while away 3']);
    await say('after the return');
    await adaPage.waitForFunction(`document.querySelectorAll('#chat li').length === 5`);
    expect(pageErrors).toEqual([]);
    await adaPage.close();
    await boPage.close();
  } finally {
    await relay.close();
  }
}, 120_000);

test('a token the server refuses leaves the page disconnected, saying why', async () => {
  const page = await browser.newPage();
  const wsBase = server.baseUrl.replace(/^http/, 'ws');
  await page.goto(`${web.url}#server=${encodeURIComponent(wsBase)}&token=not-a-token`);
  await page.waitForSelector('body[data-close-code]');
  expect(await page.textContent('#status')).toBe('Disconnected: could not connect (check the token and the server)');
  await page.close();
});

// CORS (docs/decisions.md §14) as a browser enforces it: the same page served from two origins (two local ports); the tenant's
// allowed_origins lists one. The page reads Get Room with the participant's auth_token (a preflighted cross-origin
// call, since it sends Authorization): from the listed origin it works, from the other the browser refuses the answer.
describe('CORS across two origins', () => {
  let corsApp: TestApp;
  let corsServer: RealtimeServer;
  let otherWeb: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    // No operator pattern matches either page, so only the tenant's list decides.
    corsApp = await createTestApp({ WS_ORIGIN_PATTERNS: 'https://operator-only.example' });
    corsServer = await startRealtimeServer(corsApp.services);
    otherWeb = await serveWebClient(0);
  }, 120_000);

  afterAll(async () => {
    await otherWeb?.close();
    await corsServer?.close();
    await corsApp?.close();
  });

  test('the listed origin reads Get Room; the other origin is blocked by the browser (fetch rejects)', async () => {
    const acme = await createTenant(corsApp);
    const listed = new URL(web.url).origin;
    const res = await corsApp.request.patch(`/api/v1/tenants/${acme.id}/config`).set(acme.auth).send({ allowed_origins: [listed] });
    expect(res.status).toBe(200);
    const room = await createRoom(corsApp, acme, { name: 'Seminar' });
    const ada = await addParticipant(corsApp, acme, room.id, { display_name: 'Ada' });
    const wsBase = corsServer.baseUrl.replace(/^http/, 'ws');
    const hash = `#server=${encodeURIComponent(wsBase)}&auth=${encodeURIComponent(ada.auth_token)}`;

    const allowed = await browser.newPage();
    await allowed.goto(`${web.url}${hash}`);
    await allowed.waitForSelector('body[data-room]');
    expect(await allowed.getAttribute('body', 'data-room')).toBe('loaded');
    expect(await allowed.textContent('#room')).toBe('Room: Seminar');

    const blocked = await browser.newPage();
    const consoleErrors: string[] = [];
    blocked.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    expect(new URL(otherWeb.url).origin).not.toBe(listed);
    await blocked.goto(`${otherWeb.url}${hash}`);
    await blocked.waitForSelector('body[data-room]');
    expect(await blocked.getAttribute('body', 'data-room')).toBe('failed');
    // A TypeError from fetch itself (the browser withheld the answer), not an HTTP error the page could read.
    expect(await blocked.textContent('#room')).toBe('Could not read the room: Failed to fetch');
    expect(consoleErrors.join('\n')).toMatch(/CORS/);
    await allowed.close();
    await blocked.close();
  });
});
