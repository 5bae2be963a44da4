import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../../../generated/openapi.ts';
import type { OperationHandlers } from '../../http/router.ts';
import type { Tenant } from './tenant.entity.ts';
import { limitsOf, type TenantService } from './tenant.service.ts';

type Schemas = components['schemas'];

// Thin handlers: read the request, call the service, shape the response exactly as spec/openapi.yaml says.
export function tenantRoutes(deps: { tenants: TenantService; em: () => EntityManager }): OperationHandlers {
  const { tenants, em } = deps;
  const base = (t: Tenant) => ({ id: t.id, name: t.name, ...limitsOf(t) });
  const send = <T>(res: { json(body: T): unknown }, body: T) => res.json(body);

  return {
    createTenant: async (req, res) => {
      const { tenant, apiKey } = await tenants.create(em(), req.body);
      res.status(201);
      send<Schemas['TenantCreatedResponse']>(res, { data: { ...base(tenant), api_key: apiKey, created_at: tenant.createdAt.toISOString() } });
    },
    getTenant: async (req, res) => {
      const tenant = await tenants.getManaged(em(), req.params.id as string, req.principal!);
      send<Schemas['TenantResponse']>(res, { data: { ...base(tenant), config: tenants.visibleConfig(tenant), created_at: tenant.createdAt.toISOString() } });
    },
    updateTenant: async (req, res) => {
      const tenant = await tenants.update(em(), req.params.id as string, req.principal!, req.body);
      send<Schemas['TenantUpdatedResponse']>(res, { data: { ...base(tenant), updated_at: tenant.updatedAt.toISOString() } });
    },
    deleteTenant: async (req, res) => {
      await tenants.delete(em(), req.params.id as string, req.principal!);
      send<Schemas['TenantDeletedResponse']>(res, { data: { id: req.params.id as string, deleted: true } });
    },
    rotateTenantKey: async (req, res) => {
      const { apiKey } = await tenants.rotateKey(em(), req.params.id as string, req.principal!);
      send<Schemas['ApiKeyRotatedResponse']>(res, { data: { api_key: apiKey } });
    },
    updateTenantConfig: async (req, res) => {
      const tenant = await tenants.patchConfig(em(), req.params.id as string, req.principal!, req.body);
      send<Schemas['TenantConfigUpdatedResponse']>(res, {
        data: { id: tenant.id, config: tenants.visibleConfig(tenant), updated_at: tenant.updatedAt.toISOString() },
      });
    },
  };
}
