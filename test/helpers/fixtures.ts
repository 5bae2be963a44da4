import { ADMIN_KEY, type TestApp } from './test-app.ts';

export interface TenantFixture {
  id: string;
  api_key: string;
  /** Headers that authenticate as this tenant. */
  auth: { 'X-API-Key': string };
}

export async function createTenant(t: TestApp, body: Record<string, unknown> = {}): Promise<TenantFixture> {
  const res = await t.request.post('/api/v1/tenants').set('X-Admin-Key', ADMIN_KEY).send({ name: 'Tenant', ...body });
  if (res.status !== 201) throw new Error(`create tenant: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.body.data, auth: { 'X-API-Key': res.body.data.api_key } };
}

export async function patchConfig(t: TestApp, tenant: TenantFixture, config: Record<string, unknown>) {
  const res = await t.request.patch(`/api/v1/tenants/${tenant.id}/config`).set(tenant.auth).send(config);
  if (res.status !== 200) throw new Error(`patch config: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function createRoom(t: TestApp, tenant: TenantFixture, body: Record<string, unknown> = {}) {
  const res = await t.request.post('/api/v1/rooms').set(tenant.auth).send({ name: `room-${Math.random().toString(36).slice(2, 10)}`, ...body });
  if (res.status !== 201) throw new Error(`create room: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string; status: string; config: Record<string, unknown> };
}

export async function addParticipant(t: TestApp, tenant: TenantFixture, roomRef: string, body: Record<string, unknown> = {}) {
  const res = await t.request.post(`/api/v1/rooms/${encodeURIComponent(roomRef)}/participants`).set(tenant.auth).send({ display_name: 'Ada', ...body });
  if (res.status !== 201) throw new Error(`add participant: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    participant: { id: string; room_id: string; role: string };
    access_token: string;
    auth_token: string;
    refresh_token: string;
  };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
