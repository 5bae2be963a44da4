// Who is calling, as resolved by the authenticate middleware from one of the three credentials (docs/decisions.md §4).
export type ParticipantRole = 'host' | 'participant' | 'viewer';

export type Principal =
  | { kind: 'admin' }
  | { kind: 'tenant'; tenantId: string; via: 'api_key' | 'access_token' }
  | { kind: 'participant'; tenantId: string; roomId: string; participantId: string; role: ParticipantRole };
