"""The first calls of an integration through the Python client that `npm run sdk` generates into .sdk/python/
(docs/integrating.md, "Generate a client"). Run by test/sdk/examples.test.ts. From the project root, with
`npm run dev` running:
    npm run sdk -- python
    python3 -m pip install -r .sdk/python/requirements.txt      # once (in a virtualenv if you like)
    PYTHONPATH=.sdk/python python3 examples/sdk/quickstart.py
"""

import json
import os

import convene_client as cc

BASE_URL = os.environ.get("CONVENE_BASE_URL", "http://127.0.0.1:3000")
ADMIN_KEY = os.environ.get("CONVENE_ADMIN_KEY", "convene-dev-admin-key")


def client(**credentials):
    return cc.ApiClient(cc.Configuration(host=BASE_URL, **credentials))


# Once, as the operator: a tenant and its API key (shown only now and on rotation).
operator = client(api_key={"AdminKeyAuth": ADMIN_KEY})
created = cc.TenantsApi(operator).create_tenant(cc.CreateTenantRequest(name="Acme")).data

# Your server: exchange the key for tokens (or use client(api_key={"ApiKeyAuth": created.api_key})).
tokens = cc.AuthenticationApi(client()).issue_token(cc.IssueTokenRequest(api_key=created.api_key)).data
tenant = client(access_token=tokens.access_token)

room = cc.RoomsApi(tenant).create_room(cc.CreateRoomRequest(name="weekly-sync"))
ada = cc.ParticipantsApi(tenant).add_participant(room.id, cc.AddParticipantRequest(display_name="Ada", role=cc.Role.HOST))
# Hand ada.access_token (the WebSocket) and ada.auth_token (API calls) to Ada's browser.
print(json.dumps({"tenant": created.id, "room": room.id, "participant": ada.participant.id, "hasAccessToken": len(ada.access_token) > 0}))
