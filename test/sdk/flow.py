"""The whole integrator flow driven through the Python client generated from spec/openapi.yaml (`npm run sdk`,
docs/decisions.md §12), with no hand edits to the client. Run by test/sdk/python.test.ts with the generated package on
PYTHONPATH and CONVENE_BASE_URL, CONVENE_ADMIN_KEY, CONVENE_WEBHOOK_URL, CONVENE_WEBHOOK_SECRET set. Progress lines go to stderr; the last
line on stdout is the JSON result (the FlowResult of test/sdk/flow-types.ts)."""

import json
import os
import sys
import time
import urllib.request

import convene_client as cc
from convene_client.exceptions import ApiException

BASE_URL = os.environ["CONVENE_BASE_URL"]
POLL_SECONDS = 0.1
POLL_LIMIT_SECONDS = 60


def log(line):
    print(line, file=sys.stderr, flush=True)


def client(**credentials):
    return cc.ApiClient(cc.Configuration(host=BASE_URL, **credentials))


def with_key(api_key):
    return client(api_key={"ApiKeyAuth": api_key})


def status_of(call):
    try:
        call()
        return 200
    except ApiException as error:
        return error.status


def camel_case(model):
    """A model as the TypeScript flow reports it: camelCase keys, unset fields left out."""
    parts = lambda key: key.split("_")
    return {parts(k)[0] + "".join(p.title() for p in parts(k)[1:]): v for k, v in model.to_dict().items() if v is not None}


def unless_not_found(call):
    """A read that is 404 until the thing exists (a transcript post-meeting processing has not made yet): None."""
    try:
        return call()
    except ApiException as error:
        if error.status == 404:
            return None
        raise


def until(what, probe):
    deadline = time.monotonic() + POLL_LIMIT_SECONDS
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(POLL_SECONDS)


def main():
    operator = client(api_key={"AdminKeyAuth": os.environ["CONVENE_ADMIN_KEY"]})
    created = cc.TenantsApi(operator).create_tenant(cc.CreateTenantRequest(name="SDK Python")).data
    log(f"tenant {created.id} created")

    tenant_by_key = with_key(created.api_key)
    cc.TenantsApi(tenant_by_key).update_tenant(created.id, cc.UpdateTenantRequest(name="SDK Python renamed"))
    cc.TenantsApi(operator).update_tenant(created.id, cc.UpdateTenantRequest(max_concurrent_rooms=20))
    updated = cc.TenantsApi(tenant_by_key).get_tenant(created.id).data

    auth = cc.AuthenticationApi(client())
    issued = auth.issue_token(cc.IssueTokenRequest(api_key=created.api_key)).data
    refreshed = auth.refresh_token(cc.RefreshTokenRequest(refresh_token=issued.refresh_token)).data
    log(f"token issued and refreshed (expires in {refreshed.expires_in} s)")
    # From here on the tenant speaks with its access token (BearerAuth), as a server would.
    tenant = client(access_token=refreshed.access_token)

    cc.TenantsApi(tenant).update_tenant_config(
        created.id,
        cc.TenantConfigPatch(
            transcription_enabled=True,
            post_meeting_webhook=cc.PostMeetingWebhookPatch(
                enabled=True,
                url=os.environ["CONVENE_WEBHOOK_URL"],
                secret=os.environ["CONVENE_WEBHOOK_SECRET"],
                include_recording=True,
            ),
        ),
    )
    # The receiver is checked before any meeting: one signed webhook.test, followed in the delivery log.
    test_deliveries = cc.WebhookDeliveriesApi(tenant)
    test_queued = test_deliveries.send_test_webhook().data

    def test_event_done():
        detail = test_deliveries.get_webhook_delivery(test_queued.id).data
        if detail.status == cc.WebhookDeliveryStatus.FAILED:
            raise RuntimeError(f"test event {detail.id} failed: {[a.error for a in detail.attempts]}")
        return detail if detail.status == cc.WebhookDeliveryStatus.SUCCEEDED else None

    test_finished = until("the test event to succeed", test_event_done)
    log(f"test event {test_queued.id}: {test_finished.status.value}")

    rooms = cc.RoomsApi(tenant)
    room = rooms.create_room(
        cc.CreateRoomRequest(name=f"sdk-py-{int(time.time() * 1000)}", config=cc.RoomConfigInput(recording_enabled=True))
    )
    fetched = rooms.get_room(room.id)
    log(f"room {fetched.id} ({fetched.name}) created")

    participants = cc.ParticipantsApi(tenant)
    host = participants.add_participant(room.id, cc.AddParticipantRequest(display_name="Host", role=cc.Role.HOST))
    bulk = participants.bulk_add_participants(
        room.id,
        cc.BulkAddParticipantsRequest(
            participants=[
                cc.BulkParticipantInput(display_name="Ada"),
                cc.BulkParticipantInput(display_name="Grace", role=cc.Role.PARTICIPANT),
            ]
        ),
    )
    listed = participants.list_participants(room.id)
    log(f"{len(listed.participants)} participants")

    # The host's own auth_token may start and stop the recording of its room.
    recordings = cc.RecordingsApi(client(access_token=host.auth_token))
    started = recordings.start_recording(room.id).data
    tenant_recordings = cc.RecordingsApi(tenant)
    pending = tenant_recordings.download_recording(started.id)
    recordings.stop_recording(room.id)

    def ready():
        recording = tenant_recordings.get_recording(started.id).data
        if recording.status == cc.RecordingStatus.FAILED:
            raise RuntimeError("recording failed")
        return recording if recording.status == cc.RecordingStatus.READY else None

    until("the recording to be ready", ready)
    download = tenant_recordings.download_recording(started.id)
    with urllib.request.urlopen(download.download_url) as response:
        downloaded_bytes = len(response.read())
    log(f"recording {started.id} ready, downloaded {downloaded_bytes} bytes")

    # The post-meeting transcript: the worker transcribes the recording once it is stored (transcription_enabled).
    transcription = cc.TranscriptionApi(tenant)

    def post_meeting_transcript():
        found = unless_not_found(lambda: transcription.get_recording_transcript(started.id))
        if found and found.data.status == cc.TranscriptStatus.FAILED:
            raise RuntimeError("post-meeting transcript failed")
        return found.data if found and found.data.status == cc.TranscriptStatus.COMPLETED else None

    post_meeting = until("the post-meeting transcript", post_meeting_transcript)
    listed_post_meeting = transcription.list_post_meeting_transcripts(room.id).data
    log(f"post-meeting transcript {post_meeting.id}: {len(post_meeting.content.segments)} segments")

    provider_list = transcription.list_transcription_providers()
    queued_answer = transcription.queue_transcription_with_http_info(started.id, cc.QueueTranscriptionRequest(room_id=room.id))
    if queued_answer.status_code != 202:
        raise RuntimeError(f"Queue Transcription answered {queued_answer.status_code}, not 202")
    queued = queued_answer.data

    def queued_transcript_done():
        transcript = transcription.get_transcript(queued.transcript_id).data
        if transcript.status == cc.TranscriptStatus.FAILED:
            raise RuntimeError("queued transcript failed")
        return transcript if transcript.status == cc.TranscriptStatus.COMPLETED else None

    queued_transcript = until("the queued transcript", queued_transcript_done)
    log(f"queued transcript {queued_transcript.id} ({provider_list.default_provider}): {len(queued_transcript.content.segments)} segments")

    # The recording's delivery to the tenant's receiver, in the delivery log until it has succeeded.
    deliveries = cc.WebhookDeliveriesApi(tenant)

    def the_recordings_delivery():
        listed = deliveries.list_webhook_deliveries(limit=10).data
        delivery = next((d for d in listed if d.recording_id == started.id), None)
        if delivery and delivery.status == cc.WebhookDeliveryStatus.FAILED:
            raise RuntimeError(f"delivery {delivery.id} failed")
        return delivery if delivery and delivery.status == cc.WebhookDeliveryStatus.SUCCEEDED else None

    listed_delivery = until("the recording's delivery to succeed", the_recordings_delivery)
    delivery = deliveries.get_webhook_delivery(listed_delivery.id).data
    log(f"delivery {delivery.id} {delivery.status.value} after {delivery.attempt_count} attempt(s)")

    resent_answer = deliveries.resend_webhook_delivery_with_http_info(delivery.id)
    if resent_answer.status_code != 202:
        raise RuntimeError(f"Resend Webhook Delivery answered {resent_answer.status_code}, not 202")
    resent = resent_answer.data.data

    def resent_done():
        detail = deliveries.get_webhook_delivery(resent.id).data
        if detail.status == cc.WebhookDeliveryStatus.FAILED:
            raise RuntimeError(f"re-sent delivery {detail.id} failed")
        return detail if detail.status == cc.WebhookDeliveryStatus.SUCCEEDED else None

    resent_finished = until("the re-sent delivery to succeed", resent_done)
    log(f"re-sent as {resent.id}: {resent_finished.status.value}")

    rotated = cc.TenantsApi(tenant).rotate_tenant_key(created.id).data
    old_key_status = status_of(lambda: cc.TenantsApi(tenant_by_key).get_tenant(created.id))
    rotated_key_works = cc.TenantsApi(with_key(rotated.api_key)).get_tenant(created.id).data.id == created.id
    log("key rotated")

    cc.TenantsApi(with_key(rotated.api_key)).delete_tenant(created.id)
    deleted_status = status_of(lambda: cc.TenantsApi(with_key(rotated.api_key)).get_tenant(created.id))
    log("tenant deleted")

    result = {
        "tenantId": created.id,
        "updated": {"name": updated.name, "maxConcurrentRooms": updated.max_concurrent_rooms},
        "roomId": room.id,
        "participantIds": [host.participant.id] + [entry.id for entry in listed.participants],
        "bulkResults": [{"success": entry.actual_instance.success} for entry in bulk.results],
        "recordingId": started.id,
        "pendingDownload": camel_case(pending),
        "download": camel_case(download),
        "downloadedBytes": downloaded_bytes,
        "postMeetingTranscript": {
            "id": post_meeting.id,
            "status": post_meeting.status.value,
            "segments": len(post_meeting.content.segments),
        },
        "listedPostMeetingTranscripts": [
            {"id": entry.id, "recordingId": entry.recording_id, "status": entry.status.value} for entry in listed_post_meeting
        ],
        "queuedTranscript": {
            "id": queued.transcript_id,
            "queuedStatus": queued.status,
            "recordingId": queued_transcript.recording_id,
            "status": queued_transcript.status.value,
            "segments": len(queued_transcript.content.segments),
        },
        "providers": {
            "ids": [provider.id for provider in provider_list.providers],
            "defaultProvider": provider_list.default_provider,
        },
        "delivery": {
            "id": delivery.id,
            "listedRecordingId": listed_delivery.recording_id,
            "status": delivery.status.value,
            "attemptCount": delivery.attempt_count,
            "attempts": [
                {"attempt": a.attempt, "status": a.status, "responseStatusCode": a.response_status_code} for a in delivery.attempts
            ],
        },
        "resent": {
            "id": resent.id,
            "resentFrom": resent.resent_from,
            "queuedStatus": resent.status.value,
            "status": resent_finished.status.value,
        },
        "testEvent": {
            "id": test_queued.id,
            "event": test_finished.event,
            "queuedStatus": test_queued.status.value,
            "status": test_finished.status.value,
            "attemptCount": test_finished.attempt_count,
        },
        "rotatedKeyWorks": rotated_key_works,
        "oldKeyStatus": old_key_status,
        "deletedStatus": deleted_status,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
