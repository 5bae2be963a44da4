// The `builtin` AI analyser (docs/decisions.md §9): an extractive summary and rule-based action items, in the project,
// deterministic, no network. The same transcript always gives the same summary and the same items.
//
// It reads recogniser output as it comes (no reliable punctuation or capitals, one `speaker_0` for everyone when the
// provider does not diarize) and is precision first: an action item it cannot state clearly is left out. The rules
// live in ./builtin/: action-items.ts (how commitments are recognised and what is left out), summary.ts (which
// sentences summarise), names.ts (who is named: owners only when the meeting names them, never a recogniser's label),
// speakers.ts (who says each turn, also without diarization: from introductions and names said to someone), text.ts
// (turns, clauses, how an item is written: "Tom: write the release notes by Friday"). Measured on the
// meeting corpus (test/fixtures/meetings) by bench/analyser-corpus.ts; figures in BENCHMARKS.md.

import { withNamedOwner } from './action-item-check.ts';
import { extractActionItems } from './builtin/action-items.ts';
import { speakerNames } from './builtin/names.ts';
import { participantNames, whoIsWho } from './builtin/speakers.ts';
import { summarize } from './builtin/summary.ts';
import { turnsOf } from './builtin/text.ts';
import type { AiAnalyzer, AnalysisRequest, MeetingInsights } from './types.ts';

export class BuiltinAnalyzer implements AiAnalyzer {
  readonly id = 'builtin';

  async analyze(request: AnalysisRequest): Promise<MeetingInsights> {
    return analyzeTranscript(request);
  }
}

/**
 * What the analyser reads: a stored transcript's segments (always labelled), or the lines of a chat prompt (the
 * development media server's `/v1/chat/completions`), which may name no speaker.
 */
export interface SpokenText {
  text: string;
  speaker: string | null;
}

export function analyzeTranscript(input: { text: string; segments: SpokenText[]; participants?: readonly string[] }): MeetingInsights {
  const turns = turnsOf(input);
  const labels = new Set(turns.flatMap((turn) => (turn.speaker === null ? [] : [turn.speaker])));
  const diarized = labels.size > 1;
  const room = participantNames(input.participants ?? []);
  const { speakers, listeners } = whoIsWho(turns, speakerNames(input.segments), diarized, room);
  // The owner check every item passes (action-item-check.ts): what the rules took for a name and is not one goes.
  const actionItems = extractActionItems({ turns, speakers, listeners, diarized, room }).map(withNamedOwner);
  return { summary: summarize(turns), actionItems };
}
