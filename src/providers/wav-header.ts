// Reads a WAV file's header from its first bytes: the format, where the samples start, and the INFO tags. Production
// code (src/providers/audio.ts splits long PCM files for transcription providers) and the development media server
// (dev/media-server/, which writes such files and recognises its own uploads) both read it, so it lives here,
// below both: production never imports development-only code (docs/architecture.md habit 16).

/** The INFO/ICMT comment by which a file written by the development media server names its recording. */
export const RECORDING_MARKER_PREFIX = 'convene-dev-recording:';

export interface WavInfo {
  /** 1 is PCM; 3 IEEE float; 0xFFFE the extensible format. */
  audioFormat: number;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Size of the sample data as the header declares it. */
  dataBytes: number;
  recordingId?: string;
  title?: string;
}

/**
 * Reads the header of a WAV file from its first bytes (up to the start of the samples). Returns undefined when
 * the bytes are not a PCM WAV header or do not reach the `data` chunk.
 */
export function readWavHeader(prefix: Buffer): WavInfo | undefined {
  if (prefix.length < 12 || prefix.toString('ascii', 0, 4) !== 'RIFF' || prefix.toString('ascii', 8, 12) !== 'WAVE') {
    return undefined;
  }
  let format: Pick<WavInfo, 'audioFormat' | 'sampleRate' | 'channels' | 'bitsPerSample'> | undefined;
  const info: Pick<WavInfo, 'recordingId' | 'title'> = {};
  let offset = 12;
  while (offset + 8 <= prefix.length) {
    const id = prefix.toString('ascii', offset, offset + 4);
    const size = prefix.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'data') {
      if (!format) return undefined;
      return { ...format, ...info, dataOffset: body, dataBytes: size };
    }
    if (body + size > prefix.length) return undefined;
    if (id === 'fmt ' && size >= 16) {
      format = {
        audioFormat: prefix.readUInt16LE(body),
        channels: prefix.readUInt16LE(body + 2),
        sampleRate: prefix.readUInt32LE(body + 4),
        bitsPerSample: prefix.readUInt16LE(body + 14),
      };
    } else if (id === 'LIST' && size >= 4 && prefix.toString('ascii', body, body + 4) === 'INFO') {
      Object.assign(info, readInfo(prefix.subarray(body + 4, body + size)));
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}

function readInfo(list: Buffer): Pick<WavInfo, 'recordingId' | 'title'> {
  const found: Pick<WavInfo, 'recordingId' | 'title'> = {};
  let offset = 0;
  while (offset + 8 <= list.length) {
    const id = list.toString('ascii', offset, offset + 4);
    const size = list.readUInt32LE(offset + 4);
    const text = list.toString('utf8', offset + 8, Math.min(list.length, offset + 8 + size)).replace(/\0+$/, '');
    if (id === 'ICMT' && text.startsWith(RECORDING_MARKER_PREFIX)) {
      found.recordingId = text.slice(RECORDING_MARKER_PREFIX.length);
    } else if (id === 'INAM') {
      found.title = text;
    }
    offset += 8 + size + (size % 2);
  }
  return found;
}
