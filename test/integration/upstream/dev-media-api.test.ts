import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devMediaOptionsFromEnv, startDevMediaServer, type DevMediaServer } from '../../../dev/media-server/server.ts';

const SECRET = 'api-test-secret';

describe('request handling', () => {
  let media: DevMediaServer;
  beforeAll(async () => {
    media = await startDevMediaServer({ webhookSecret: SECRET });
  });
  afterAll(() => media.stop());

  const post = (path: string, body: string, type = 'application/json') =>
    fetch(`${media.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

  test('refuses oversized, non-JSON and malformed bodies with a JSON error', async () => {
    const cases: Array<[Response, number]> = [
      [await post('/v1/recordings', JSON.stringify({ meeting_id: 'x'.repeat(100 * 1024) })), 413],
      [await post('/v1/recordings', 'meeting_id=a', 'application/x-www-form-urlencoded'), 415],
      [await post('/v1/recordings', '{"meeting_id":'), 400],
      [await post('/v1/recordings', '[]'), 400],
      [await post('/v1/recordings', JSON.stringify({})), 400],
      [await post('/v1/recordings', JSON.stringify({ meeting_id: 'a', colour: 'blue' })), 400],
      [await post('/v1/recordings', JSON.stringify({ meeting_id: 'a', duration_seconds: 0 })), 400],
      [await post('/v1/recordings', JSON.stringify({ meeting_id: 'a', duration_seconds: 1.5 })), 400],
      [await fetch(`${media.url}/v1/nothing-here`), 404],
    ];
    for (const [response, status] of cases) {
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ error: expect.objectContaining({ message: expect.any(String) }) });
    }
  });

  test('lists recordings filtered by meeting, oldest first', async () => {
    const first = media.seedRecording({ meetingId: 'room-list', durationSeconds: 5 });
    const second = media.seedRecording({ meetingId: 'room-list', status: 'recording' });
    const response = await fetch(`${media.url}/v1/recordings?meeting_id=room-list`);
    const body = (await response.json()) as { recordings: Array<{ id: string; status: string; origin: string }> };
    expect(body.recordings.map((r) => [r.id, r.status, r.origin])).toEqual([
      [first.id, 'ready', 'auto'],
      [second.id, 'recording', 'auto'],
    ]);
  });
});

test('recordings, their media links and unfinished processing survive a restart with a state file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convene-dev-media-'));
  const stateFile = join(dir, 'state', 'recordings.json');
  try {
    const before = await startDevMediaServer({ webhookSecret: SECRET, stateFile, processingDelayMs: 60_000 });
    const ready = before.seedRecording({ meetingId: 'room-restart', durationSeconds: 3 });
    const processing = before.seedRecording({ meetingId: 'room-restart', durationSeconds: 2, status: 'processing' });
    await before.stop(); // its processing timer is cancelled

    const after = await startDevMediaServer({ webhookSecret: SECRET, stateFile, processingDelayMs: 0 });
    try {
      expect(after.listRecordings('room-restart').map((r) => r.id)).toEqual([ready.id, processing.id]);
      const oldLink = new URL(ready.url!);
      const download = await fetch(`${after.url}${oldLink.pathname}${oldLink.search}`);
      expect(download.status).toBe(200);
      expect((await download.arrayBuffer()).byteLength).toBe(ready.size_bytes);

      await after.settled();
      expect(after.getRecording(processing.id)!.status).toBe('ready');
    } finally {
      await after.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('stand-alone run', () => {
  test('environment defaults pair it with the API of `npm run dev`; a bad value names its variable', () => {
    expect(devMediaOptionsFromEnv({})).toMatchObject({
      port: 4010,
      notifyUrl: 'http://127.0.0.1:3000/api/v1/webhooks/upstream/recording-ready',
      webhookSecret: expect.any(String),
      autoNotify: true,
    });
    expect(devMediaOptionsFromEnv({ PORT: '3100' }).notifyUrl).toBe(
      'http://127.0.0.1:3100/api/v1/webhooks/upstream/recording-ready',
    );
    expect(devMediaOptionsFromEnv({ PUBLIC_BASE_URL: 'http://api.test:8080/' }).notifyUrl).toBe(
      'http://api.test:8080/api/v1/webhooks/upstream/recording-ready',
    );
    expect(devMediaOptionsFromEnv({ NOTIFY_URL: 'http://127.0.0.1:9/hook' }).notifyUrl).toBe('http://127.0.0.1:9/hook');
    expect(() => devMediaOptionsFromEnv({ DEV_MEDIA_PORT: 'eighty' })).toThrow(/DEV_MEDIA_PORT/);
    expect(() => devMediaOptionsFromEnv({ NOTIFY_URL: 'ftp://x' })).toThrow(/NOTIFY_URL/);
    expect(() => devMediaOptionsFromEnv({ DEV_MEDIA_SAMPLE_RATE: '44100' })).toThrow(/DEV_MEDIA_SAMPLE_RATE/);
    expect(() => devMediaOptionsFromEnv({ NODE_ENV: 'production' })).toThrow(/UPSTREAM_WEBHOOK_SECRET/);
  });

  test('`node dev/media-server/server.ts` serves until SIGTERM', async () => {
    const child = spawn(process.execPath, ['dev/media-server/server.ts'], {
      env: { ...process.env, DEV_MEDIA_PORT: '0', UPSTREAM_WEBHOOK_SECRET: SECRET, NOTIFY_URL: 'http://127.0.0.1:9/x' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const found = /listening on (http:\/\/\S+);/.exec(output);
          if (found) resolve(found[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
