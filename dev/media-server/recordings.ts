// The development media server's recordings and their lifecycle: recording → processing → ready | failed.
// Optionally kept in a JSON file so `npm run dev` finds its recordings again after a restart (the media itself is
// regenerated from the recording, so only this metadata needs keeping).

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { UpstreamRecordingStatus } from '../../src/upstream/media-provider.ts';
import { HttpError } from './http.ts';

/** Longest recording the server produces (a 24 h WAV stays well under the 4 GiB RIFF limit). */
export const MAX_DURATION_SECONDS = 24 * 60 * 60;

export interface DevRecording {
  id: string;
  meetingId: string;
  meetingName: string | null;
  origin: 'api' | 'auto';
  status: UpstreamRecordingStatus;
  startedAt: string;
  stoppedAt: string | null;
  /** Set when stopped: the fixed duration if one was asked for, else the wall-clock time, at least 1 s. */
  durationSeconds: number | null;
  fixedDurationSeconds: number | null;
  /** Processing ends in `failed` instead of `ready` (to exercise failure paths). */
  failProcessing: boolean;
  /**
   * Known only to its notification (an import, another region, a webhook-only integration, docs/decisions.md §7): the REST
   * API answers 404 for it and does not list it; its media link works.
   */
  unlisted?: boolean;
}

export interface NewRecording {
  meetingId: string;
  meetingName?: string | null;
  origin: 'api' | 'auto';
  fixedDurationSeconds?: number | null;
  failProcessing?: boolean;
}

export class RecordingBook {
  readonly #recordings = new Map<string, DevRecording>();
  readonly #stateFile: string | undefined;

  constructor(stateFile?: string) {
    this.#stateFile = stateFile;
    if (stateFile) this.#load(stateFile);
  }

  create(input: NewRecording, now: Date): DevRecording {
    const active = this.list(input.meetingId).find((recording) => recording.status === 'recording');
    if (active) {
      throw new HttpError(409, 'already_recording', `meeting ${input.meetingId} is already being recorded`, {
        recording_id: active.id,
      });
    }
    const recording: DevRecording = {
      id: randomUUID(),
      meetingId: input.meetingId,
      meetingName: input.meetingName ?? null,
      origin: input.origin,
      status: 'recording',
      startedAt: now.toISOString(),
      stoppedAt: null,
      durationSeconds: null,
      fixedDurationSeconds: input.fixedDurationSeconds ?? null,
      failProcessing: input.failProcessing ?? false,
    };
    this.#recordings.set(recording.id, recording);
    this.#save();
    return recording;
  }

  /** Idempotent: a recording already stopped is returned as it is. */
  stop(id: string, now: Date): DevRecording {
    const recording = this.require(id);
    if (recording.status !== 'recording') return recording;
    const elapsed = Math.round((now.getTime() - Date.parse(recording.startedAt)) / 1000);
    recording.status = 'processing';
    recording.stoppedAt = now.toISOString();
    recording.durationSeconds = Math.min(MAX_DURATION_SECONDS, recording.fixedDurationSeconds ?? Math.max(1, elapsed));
    this.#save();
    return recording;
  }

  /** Ends processing; a recording not in `processing` is returned as it is. */
  finish(id: string): DevRecording {
    const recording = this.require(id);
    if (recording.status !== 'processing') return recording;
    recording.status = recording.failProcessing ? 'failed' : 'ready';
    this.#save();
    return recording;
  }

  get(id: string): DevRecording | undefined {
    return this.#recordings.get(id);
  }

  require(id: string): DevRecording {
    const recording = this.#recordings.get(id);
    if (!recording) throw new HttpError(404, 'not_found', `no recording ${id}`);
    return recording;
  }

  /** Marks a recording as known to its notification only (see DevRecording.unlisted). */
  unlist(id: string): DevRecording {
    const recording = this.require(id);
    recording.unlisted = true;
    this.#save();
    return recording;
  }

  /** What the REST API shows: listed recordings only (404 for the others). */
  requireListed(id: string): DevRecording {
    const recording = this.require(id);
    if (recording.unlisted) throw new HttpError(404, 'not_found', `no recording ${id}`);
    return recording;
  }

  /** Oldest first. */
  list(meetingId?: string): DevRecording[] {
    const all = [...this.#recordings.values()];
    return meetingId === undefined ? all : all.filter((recording) => recording.meetingId === meetingId);
  }

  #load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const state = JSON.parse(text) as { recordings?: DevRecording[] };
    for (const recording of state.recordings ?? []) this.#recordings.set(recording.id, recording);
  }

  #save(): void {
    if (!this.#stateFile) return;
    mkdirSync(dirname(this.#stateFile), { recursive: true });
    const temporary = `${this.#stateFile}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: 1, recordings: this.list() }, null, 2));
    renameSync(temporary, this.#stateFile);
  }
}
