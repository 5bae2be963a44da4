// The first calls of an integration through the typescript-fetch client that `npm run sdk` generates into
// .sdk/typescript-fetch/ (docs/integrating.md, "Generate a client"). Compiled and run by test/sdk/examples.test.ts.
// From the project root, with `npm run dev` running:
//   npm run sdk -- typescript-fetch
//   OUT=$(mktemp -d) && npx tsc -p examples/sdk --outDir "$OUT" && npx node "$OUT/examples/sdk/quickstart.js"
import { AuthenticationApi, Configuration, ParticipantsApi, RoomsApi, TenantsApi } from '../../.sdk/typescript-fetch/src/index';

const basePath = process.env.CONVENE_BASE_URL ?? 'http://127.0.0.1:3000';
const adminKey = process.env.CONVENE_ADMIN_KEY ?? 'convene-dev-admin-key';

async function main(): Promise<void> {
  // Once, as the operator: a tenant and its API key (shown only now and on rotation).
  const operator = new Configuration({ basePath, apiKey: adminKey });
  const { data: created } = await new TenantsApi(operator).createTenant({ createTenantRequest: { name: 'Acme' } });

  // Your server: exchange the key for tokens, refresh before expires_in runs out (each refresh token works once).
  const auth = new AuthenticationApi(new Configuration({ basePath }));
  const { data: tokens } = await auth.issueToken({ issueTokenRequest: { apiKey: created.apiKey } });
  const tenant = new Configuration({ basePath, accessToken: tokens.accessToken });

  const room = await new RoomsApi(tenant).createRoom({ createRoomRequest: { name: 'weekly-sync' } });
  const ada = await new ParticipantsApi(tenant).addParticipant({ id: room.id, addParticipantRequest: { displayName: 'Ada', role: 'host' } });
  // Hand ada.accessToken (the WebSocket) and ada.authToken (API calls) to Ada's browser.
  console.log(JSON.stringify({ tenant: created.id, room: room.id, participant: ada.participant.id, hasAccessToken: ada.accessToken.length > 0 }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
