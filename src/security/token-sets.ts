// The credential sets Convene issues, as the API returns them, and the refresh row stored with each. Both the auth
// module (which signs them) and the participants module (which stores a new participant's set with it) use these
// shapes, so they live below both.

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** A participant's set: `access_token` for the SDK and WebSocket, `auth_token` for API calls. */
export interface ParticipantTokenSet extends TokenSet {
  auth_token: string;
}

/** A refresh token's row, made with the token and stored in the same transaction as what it belongs to. */
export interface RefreshRow {
  jti: string;
  familyId: string;
  tenantId: string;
  participantId: string | null;
  expiresAt: Date;
}

/** A participant's signed set and the refresh row to store with the participant (src/modules/participants/participant-insert.ts). */
export interface SignedParticipantTokens {
  tokens: ParticipantTokenSet;
  refreshRow: RefreshRow;
}
