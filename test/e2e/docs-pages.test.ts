// The documentation pages as a reader's browser sees them (docs/decisions.md §12): served by the real app, opened in Debian's
// headless Chromium. The AsyncAPI page hydrates without errors and loads nothing but itself (no CDN, no fonts), and
// /docs links it.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { ensureChromium } from '../../scripts/browser.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let server: Server;
let baseUrl: string;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp();
  server = t.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: ['--no-sandbox'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await t?.close();
});

test('the AsyncAPI page renders, hydrates and requests nothing from elsewhere', async () => {
  const page = await browser.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await page.goto(`${baseUrl}/docs/asyncapi`, { waitUntil: 'load' });
  expect(await page.title()).toBe('Convene realtime and webhook events - AsyncAPI');
  const root = page.locator('.aui-root');
  const shownText = async () => (await root.innerText()).length;
  // Rendered ahead of time: the messages are readable without waiting for the script.
  expect(await root.innerText()).toContain('chat.message');
  // Hydrated: "Expand all" answers a click (a static page would ignore it) and opens collapsed schemas.
  const before = await shownText();
  await root.getByRole('button', { name: 'Expand all' }).first().click();
  // A string: the project's tsc has no DOM types.
  await page.waitForFunction(`document.querySelector('.aui-root').innerText.length > ${before}`, undefined, { timeout: 5000 });
  expect(await shownText()).toBeGreaterThan(before);
  expect(requested).toEqual([`${baseUrl}/docs/asyncapi`]);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);
