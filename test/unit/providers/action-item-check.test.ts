// The checks every action item passes (src/providers/action-item-check.ts, docs/decisions.md §9): what a bad item
// looks like, how a model's items are tidied, grounded and merged, and a property test that feeds the builtin
// analyser's output on many generated transcripts back through the checker.
import { analyzeTranscript } from '../../../src/providers/ai-builtin.ts';
import { checkProposedItems, isGrounded, itemProblems, mergeItems, tidyItem, withRuleItems } from '../../../src/providers/action-item-check.ts';
import type { TranscriptSegmentOut } from '../../../src/providers/types.ts';
import { loadCorpus, loadSpokenCorpus } from '../../helpers/analyser-scoring.ts';

describe('itemProblems', () => {
  test.each([
    ['Ravi: order the chairs by Thursday', []],
    ['Book the venue for the offsite', []],
    [', Ravi to order the chairs', ['the task starts with punctuation']],
    ['Lena: , send your notes', ['the task starts with punctuation', 'the task is in the second person']],
    ['speaker_0: send the invoice', ['the owner is a recogniser label']],
    ['Sure, will do.', ['the task starts with a filler', 'the task says nothing to do']],
    ['um send the deck', ['the task starts with a filler', 'an item without owner starts in lower case']],
    ['Tom: do it', ['the task says nothing to do']],
    ['Greg: chloe starts on Monday', ['the task states what happens, not what someone will do']],
    ['Nadia: email Greg the schedule', []],
    ['Irene: call Sean when they hear back', ['the task waits on a condition']],
    ['The: check the hearing date tomorrow', ['the owner is not a name']],
    ['Jake: we are not giving 30% off', ['the task is a sentence (a subject or a modal first), not something to do']],
    ['Jake: may I take the big one', ['the task is a sentence (a subject or a modal first), not something to do']],
    ['Jake: great job on the renewal', ['the task is thanks or praise']],
  ])('%s', (item, problems) => {
    expect(itemProblems(item)).toEqual(problems);
  });
});

describe("a model's items", () => {
  test('tidied: leading punctuation and fillers, placeholder owners, second person, capitals', () => {
    expect(tidyItem(' - , Ravi: order the chairs ')).toBe('Ravi: order the chairs');
    expect(tidyItem('Lena: , so send your notes to the team')).toBe('Lena: send their notes to the team');
    expect(tidyItem('Unassigned: book the room by Friday')).toBe('Book the room by Friday');
    expect(tidyItem('speaker_1: Send the invoice')).toBe('Send the invoice');
    expect(tidyItem('Sure, will do.')).toBeUndefined();
  });

  test("tidied: what the speaker adds about themself is not part of the task", () => {
    expect(tidyItem("Raj: send Professor Kim the draft by Friday and I'll read it over the weekend")).toBe('Raj: send Professor Kim the draft by Friday');
    expect(tidyItem('Write the staging cleanup job myself')).toBe('Write the staging cleanup job');
    expect(tidyItem('Ann: page Tom before I leave')).toBe('Ann: page Tom before I leave');
  });

  test('kept only when grounded in the part they came from; an owner only when the name is said there', () => {
    const part = 'speaker_0: Omar, can you check the invoices against the contracts?\nspeaker_0: Sure, by Tuesday.';
    expect(isGrounded('check the invoices against the contracts', part)).toBe(true);
    expect(isGrounded('renew the office lease', part)).toBe(false);
    expect(
      checkProposedItems(
        ['Omar: check the invoices against the contracts by Tuesday', 'Priya: check the invoice totals', 'Renew the office lease', 'Sure, will do.'],
        part,
      ),
    ).toEqual(['Omar: check the invoices against the contracts by Tuesday', 'Check the invoice totals']);
  });

  test('not taken from a hedge, a wish or the past', () => {
    const part = [
      'speaker_0: Maybe one day we can take the older class to the planetarium.',
      'speaker_0: Last week Tom sent the invoices to the auditors.',
      "speaker_0: I'll send the invoices to the auditors again on Monday.",
      'speaker_0: Nora, could you book the bus for the museum trip?',
      'speaker_0: Yes.',
    ].join('\n');
    expect(
      checkProposedItems(['Take the older class to the planetarium', 'Nora: book the bus for the museum trip', 'Send the invoices to the auditors on Monday'], part),
    ).toEqual(['Nora: book the bus for the museum trip', 'Send the invoices to the auditors on Monday']);
  });

  test('taken only from where someone takes on or hands out a task, not from a report or a question', () => {
    const part = [
      'speaker_0: Andre, any news on the marketing budget?',
      'speaker_1: The agency sent the new figures for the marketing budget.',
      'speaker_0: Good. Can you check the figures against the contract?',
      'speaker_1: Yes, tomorrow.',
    ].join('\n');
    expect(checkProposedItems(['Andre: check the marketing budget', 'Andre: check the figures against the contract tomorrow'], part)).toEqual([
      'Andre: check the figures against the contract tomorrow',
    ]);
  });

  test('one task given to two people or more in one answer stands once, with no owner: the model does not know who', () => {
    const part = [
      'speaker_0: Amelia, Hugo, Zara, thanks for coming.',
      'speaker_0: Can someone print the maps a week before?',
      "speaker_1: Sure, I'll print the maps a week before.",
      'speaker_0: Hugo, please book the two hotels today.',
    ].join('\n');
    expect(
      checkProposedItems(
        ['Amelia: print the maps a week before', 'Hugo: book the two hotels today', 'Zara: print the maps a week before', 'Amelia: print the maps a week before'],
        part,
      ),
    ).toEqual(['Print the maps a week before', 'Hugo: book the two hotels today']);
  });

  test('merged without duplicates across parts, the named owner kept', () => {
    expect(
      mergeItems([
        'Send the updated schedule by Friday',
        'Frank: send the updated schedule by Friday',
        'Frank: send the updated schedule to Nadia by Friday',
        'Jun: own the migration',
        'Omar: own the migration',
      ]),
    ).toEqual(['Frank: send the updated schedule by Friday', 'Jun: own the migration', 'Omar: own the migration']);
  });

  test("a rule's owner goes to every model item of its task, and the task is then written once", () => {
    const model = ['Jake: call the CFO of Acme directly this week', 'Victoria: call the CFO of Acme directly this week', 'Victoria: send the questionnaire to Globex'];
    const rules = ['Victoria: call the CFO of Acme this week'];
    expect(withRuleItems(model, rules)).toEqual(['Victoria: call the CFO of Acme directly this week', 'Victoria: send the questionnaire to Globex']);
  });
});

/** A small deterministic generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRICKY = [
  ', Ravi to order the chairs',
  'Lena: , send your notes to the board',
  'um so I will uh send your notes by friday',
  'Olga, please shorten the form before the launch.',
  "let's have Omar check the invoices",
  'Jun owns the migration.',
  'Ravi, can you book the room?',
  'Sure, will do.',
  'speaker_1 will send the deck',
  '... and, uh, you will update your forecast by Thursday',
  'Tina, grab your laptop and join us.',
  'I want you to call their CFO this week.',
  'Okay, I\'ll email you the schedule tomorrow.',
];

test('property: on generated transcripts, every item the builtin analyser writes passes the checks', () => {
  const next = random(20261128);
  const pool = [...loadCorpus(), ...loadSpokenCorpus()].flatMap((m) => m.segments.map((s) => s.text));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const transforms: Array<(text: string) => string> = [
    (t) => t,
    (t) => t.toLowerCase(),
    (t) => t.replace(/[.,!?;]/g, ''),
    (t) => `um ${t}`,
    (t) => `, ${t}`,
    (t) => t.replace(/\bI'll\b/g, 'you will'),
  ];
  const failures: string[] = [];
  for (let n = 0; n < 300; n++) {
    const length = 4 + Math.floor(next() * 12);
    const speakers = next() < 0.5 ? ['speaker_0'] : ['speaker_0', 'speaker_1', 'speaker_2'];
    const segments: TranscriptSegmentOut[] = Array.from({ length }, (_, i) => ({
      start: i * 4,
      end: i * 4 + 4,
      text: pick(transforms)(next() < 0.3 ? pick(TRICKY) : pick(pool)),
      speaker: pick(speakers),
    }));
    const { actionItems } = analyzeTranscript({ text: segments.map((s) => s.text).join(' '), segments });
    for (const item of actionItems) {
      const problems = itemProblems(item);
      if (problems.length > 0) failures.push(`${JSON.stringify(item)}: ${problems.join(', ')}`);
    }
  }
  expect(failures).toEqual([]);
});
