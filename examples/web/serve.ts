// Serves this folder as static files, nothing else: `npm run web` (or `npx node examples/web/serve.ts [port]`).
// The page then talks to Convene directly over the WebSocket; its origin (http://127.0.0.1:<port>) must be allowed
// by WS_ORIGIN_PATTERNS (the default allows localhost and 127.0.0.1 on any port) or the tenant's allowed_origins.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/room.js': 'room.js',
  '/style.css': 'style.css',
};
const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' };

/** Starts the static server on 127.0.0.1 (port 0: any free one); resolves with its URL and a stop function. */
export async function serveWebClient(port = 8080): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const file = FILES[new URL(req.url ?? '/', 'http://localhost').pathname];
    if (req.method !== 'GET' || !file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    const body = await readFile(new URL(file, import.meta.url));
    res.writeHead(200, { 'content-type': `${TYPES[file.split('.').pop()!]}; charset=utf-8`, 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // a browser's keep-alive connection must not hold the stop
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? process.env.WEB_PORT ?? 8080);
  const served = await serveWebClient(port).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    // `npm run dev` serves this page on 8080 itself: its summary prints the link.
    console.error(
      `Port ${port} is already in use (is \`npm run dev\` running? It serves this page on 8080 already: see its summary).\n` +
        'Serve it elsewhere with WEB_PORT=8081 npm run web (or npx node examples/web/serve.ts 8081).',
    );
    process.exit(1);
  });
  console.log(`Convene web client: ${served.url}#server=ws://127.0.0.1:3000&token=<participant access_token>&auth=<participant auth_token>`);
}
