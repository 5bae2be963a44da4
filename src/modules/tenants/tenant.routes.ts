import type { EntityManager } from '@mikro-orm/postgresql';
import { handler, type Handlers } from '../../http/handler.ts';
import type { Tenant } from './tenant.entity.ts';
import { limitsOf, type TenantService } from './tenant.service.ts';

// Thin handlers: read the typed input, call the service (which checks access), shape the answer as the spec says.
export function tenantRoutes(deps: {
  tenants: TenantService;
  em: () => EntityManager;
  /** A tenant's allowed_origins may have changed (config patched, tenant deleted): the CORS cache reloads. */
  originsChanged?: () => void;
}): Handlers {
  const { tenants, em, originsChanged = () => {} } = deps;
  const base = (t: Tenant) => ({ id: t.id, name: t.name, ...limitsOf(t) });

  return {
    createTenant: handler<'createTenant'>(async ({ body }) => {
      const { tenant, apiKey } = await tenants.create(em(), body);
      return { status: 201, body: { data: { ...base(tenant), api_key: apiKey, created_at: tenant.createdAt.toISOString() } } };
    }),
    getTenant: handler<'getTenant'>(async ({ params }, principal) => {
      const tenant = await tenants.getManaged(em(), params.id, principal);
      return { status: 200, body: { data: { ...base(tenant), config: tenants.visibleConfig(tenant), created_at: tenant.createdAt.toISOString() } } };
    }),
    updateTenant: handler<'updateTenant'>(async ({ params, body }, principal) => {
      const tenant = await tenants.update(em(), params.id, principal, body);
      return { status: 200, body: { data: { ...base(tenant), updated_at: tenant.updatedAt.toISOString() } } };
    }),
    deleteTenant: handler<'deleteTenant'>(async ({ params }, principal) => {
      await tenants.delete(em(), params.id, principal);
      originsChanged();
      return { status: 200, body: { data: { id: params.id, deleted: true } } };
    }),
    rotateTenantKey: handler<'rotateTenantKey'>(async ({ params }, principal) => {
      const { apiKey } = await tenants.rotateKey(em(), params.id, principal);
      return { status: 200, body: { data: { api_key: apiKey } } };
    }),
    updateTenantConfig: handler<'updateTenantConfig'>(async ({ params, body }, principal) => {
      const tenant = await tenants.patchConfig(em(), params.id, principal, body);
      originsChanged();
      return { status: 200, body: { data: { id: tenant.id, config: tenants.visibleConfig(tenant), updated_at: tenant.updatedAt.toISOString() } } };
    }),
  };
}
