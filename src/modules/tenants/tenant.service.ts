import type { EntityManager } from '@mikro-orm/postgresql';
import { v7 as uuidv7 } from 'uuid';
import { ApiError, forbidden, notFound } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import { generateApiKey, hashApiKey, looksLikeApiKey } from '../../security/api-keys.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { lockRow } from '../../db/locks.ts';
import type { AfterCommit, RoomSessions } from '../../events/room-sessions.ports.ts';
import type { Handovers } from '../../handover/handover.ts';
import { starts } from '../../handover/starts.ts';
import { RoomSchema } from '../rooms/room.entity.ts';
import type { RoomRecordingStop } from '../rooms/room.ports.ts';
import { TenantSchema, type Tenant } from './tenant.entity.ts';
import { mergePatch, withDefaults, type StoredTenantConfig, type TenantConfig, type TenantConfigPatch } from './tenant-config.ts';
import { assertValidConfig } from './tenant-config.rules.ts';
import { maskConfig, openConfig, sealConfig, unmaskPatch } from './tenant-config.secrets.ts';

export const DEFAULT_LIMITS = { max_concurrent_rooms: 100, max_participants_per_room: 10, max_recording_duration_minutes: 120 };

export interface TenantLimits {
  max_concurrent_rooms: number;
  max_participants_per_room: number;
  max_recording_duration_minutes: number;
}

export interface TenantServiceDeps {
  secretBox: SecretBox;
  production: boolean;
  /** Which transcription and AI providers a tenant may choose (docs/decisions.md §9). */
  providers: Pick<ProviderRegistry, 'transcription' | 'ai'>;
  /** Delete Tenant records its purge and its rooms' recording stops with the delete (docs/decisions.md §15). */
  handovers: Handovers;
  /** Delete Tenant closes its active rooms' sockets (4004) in the deleting transaction, as deleting a room does. */
  sessions: RoomSessions;
  /** Delete Tenant stops each active room's recording, as deleting a room does (docs/decisions.md §6). */
  recordingStop: RoomRecordingStop;
}

/** Tenants: creation, the admin/tenant split on limits, config merge-patch, key rotation (docs/decisions.md §4–5). */
export class TenantService {
  private readonly deps: TenantServiceDeps;
  constructor(deps: TenantServiceDeps) {
    this.deps = deps;
  }

  async create(em: EntityManager, input: { name: string } & Partial<TenantLimits>) {
    const { key, hash } = generateApiKey();
    const limits = { ...DEFAULT_LIMITS, ...pickLimits(input) };
    const tenant = em.create(TenantSchema, {
      id: uuidv7(),
      name: input.name,
      apiKeyHash: hash,
      apiKeyId: uuidv7(),
      maxConcurrentRooms: limits.max_concurrent_rooms,
      maxParticipantsPerRoom: limits.max_participants_per_room,
      maxRecordingDurationMinutes: limits.max_recording_duration_minutes,
      config: {},
    });
    await em.flush();
    return { tenant, apiKey: key };
  }

  /** The tenant a principal may manage: its own, or any for the operator. Another tenant's is 403 (docs/decisions.md §3). */
  async getManaged(em: EntityManager, id: string, principal: Principal): Promise<Tenant> {
    if (principal.kind === 'participant') throw forbidden('Participant tokens cannot manage tenants');
    if (principal.kind === 'tenant' && principal.tenantId !== id) throw forbidden('A tenant can access only its own data');
    const tenant = await em.findOne(TenantSchema, { id });
    if (!tenant) throw notFound('Tenant');
    return tenant;
  }

  async update(em: EntityManager, id: string, principal: Principal, patch: { name?: string } & Partial<TenantLimits>) {
    const tenant = await this.getManaged(em, id, principal);
    const limits = pickLimits(patch);
    if (Object.keys(limits).length > 0 && principal.kind !== 'admin') {
      throw forbidden('Changing limits requires the operator admin key (X-Admin-Key)');
    }
    if (patch.name !== undefined) tenant.name = patch.name;
    if (limits.max_concurrent_rooms !== undefined) tenant.maxConcurrentRooms = limits.max_concurrent_rooms;
    if (limits.max_participants_per_room !== undefined) tenant.maxParticipantsPerRoom = limits.max_participants_per_room;
    if (limits.max_recording_duration_minutes !== undefined) tenant.maxRecordingDurationMinutes = limits.max_recording_duration_minutes;
    tenant.updatedAt = new Date();
    await em.flush();
    return tenant;
  }

  /**
   * Permanently deletes the tenant (docs/decisions.md §5, §15). One transaction: its active rooms end as deleting a room ends
   * them (sockets told room.ended and closed 4004, presence cleared, each room's recording stop recorded), the rows go
   * (foreign keys cascade), and the purge of its stored files is recorded, to run once the rows are gone (it refuses
   * while the tenant's row exists). Temporal being down delays the purge, never the delete.
   */
  async delete(em: EntityManager, id: string, principal: Principal): Promise<void> {
    const tenant = await this.getManaged(em, id, principal);
    const { handovers, sessions, recordingStop } = this.deps;
    const afterCommit: AfterCommit[] = await handovers.transaction(em, async (tx) => {
      // No room is created meanwhile (creation takes this lock), so every active room is in the list below.
      await lockRow(tx, 'tenants', tenant.id);
      const rooms = await tx.find(RoomSchema, { tenant: tenant.id, status: 'active' }, { fields: ['id', 'name'] });
      const then: AfterCommit[] = [];
      const endedAt = new Date().toISOString();
      for (const room of rooms) {
        await recordingStop.whenRoomCloses(tx, { tenantId: tenant.id, id: room.id, name: room.name }, 'deleted');
        then.push(await sessions.roomClosed(tx, { roomId: room.id, endedAt, deleted: true }));
      }
      if ((await tx.nativeDelete(TenantSchema, { id: tenant.id })) === 0) throw notFound('Tenant');
      await handovers.record(tx, starts.tenantPurge({ tenantId: tenant.id }));
      return then;
    });
    for (const then of afterCommit) then();
  }

  /** A new key; the old one and every token issued from it stop working at once. */
  async rotateKey(em: EntityManager, id: string, principal: Principal) {
    const tenant = await this.getManaged(em, id, principal);
    const { key, hash } = generateApiKey();
    tenant.apiKeyHash = hash;
    tenant.apiKeyId = uuidv7();
    tenant.updatedAt = new Date();
    await em.flush();
    return { tenant, apiKey: key };
  }

  async patchConfig(em: EntityManager, id: string, principal: Principal, patch: TenantConfigPatch) {
    const tenant = await this.getManaged(em, id, principal);
    const current = openConfig(tenant.config, this.deps.secretBox, tenant.id);
    // A secret left out of the patch keeps its value (merge patch), so clients never need to send it back; one sent
    // back as the mask it was shown as keeps it too.
    const merged = mergePatch<StoredTenantConfig>(current, unmaskPatch(patch, current));
    const valid = await assertValidConfig(withDefaults(merged), { production: this.deps.production, providers: this.deps.providers, patch });
    if (merged.transcription_language !== undefined) merged.transcription_language = valid.transcription_language;
    tenant.config = sealConfig(merged, this.deps.secretBox, tenant.id);
    tenant.updatedAt = new Date();
    await em.flush();
    return tenant;
  }

  /** The full config with defaults, secrets masked: what clients see. */
  visibleConfig(tenant: Tenant): TenantConfig {
    return maskConfig(this.effectiveConfig(tenant));
  }

  /**
   * The full config with defaults and secrets in the clear: the one way a tenant's config is read. Services,
   * activities and the socket upgrade all call this (as `Pick<TenantService, 'effectiveConfig'>`), never the stored
   * column; only the webhook sender and providers use the secrets.
   */
  effectiveConfig(tenant: Tenant): TenantConfig {
    return withDefaults(openConfig(tenant.config, this.deps.secretBox, tenant.id));
  }

  async findByApiKey(em: EntityManager, apiKey: string): Promise<Tenant | null> {
    if (!looksLikeApiKey(apiKey)) return null;
    // Lookup by SHA-256 of a 256-bit random key: the hash index compare leaks nothing useful about other keys.
    return em.findOne(TenantSchema, { apiKeyHash: hashApiKey(apiKey) });
  }

  /**
   * The id of the tenant whose current key this is, or null: the same indexed lookup as findByApiKey, but one column of
   * one row and no entity (every X-API-Key request authenticates through here). Uncached, so a rotated key is refused
   * on the very next request (docs/decisions.md §4).
   */
  async idByApiKey(em: EntityManager, apiKey: string): Promise<string | null> {
    if (!looksLikeApiKey(apiKey)) return null;
    const rows: Array<{ id: string }> = await em.getConnection().execute('select id from tenants where api_key_hash = ?', [hashApiKey(apiKey)]);
    return rows[0]?.id ?? null;
  }
}

function pickLimits(input: Partial<TenantLimits>): Partial<TenantLimits> {
  const out: Partial<TenantLimits> = {};
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof TenantLimits)[]) {
    if (input[key] !== undefined) out[key] = input[key];
  }
  return out;
}

export function limitsOf(tenant: Tenant): TenantLimits {
  return {
    max_concurrent_rooms: tenant.maxConcurrentRooms,
    max_participants_per_room: tenant.maxParticipantsPerRoom,
    max_recording_duration_minutes: tenant.maxRecordingDurationMinutes,
  };
}
