// The builtin analyser's rules one by one (docs/decisions.md §9): the ways people commit, what is not a commitment, who the
// owner is, and what a summary leaves out. The corpus figures: analyser-corpus.test.ts.
import { BuiltinAnalyzer, analyzeTranscript } from '../../../src/providers/ai-builtin.ts';
import type { TranscriptSegmentOut } from '../../../src/providers/types.ts';

const said = (lines: Array<[string, string]>): { text: string; segments: TranscriptSegmentOut[] } => ({
  text: lines.map(([, text]) => text).join(' '),
  segments: lines.map(([speaker, text], i) => ({ start: i * 5, end: i * 5 + 5, text, speaker })),
});
/** Two people taking turns, line by line, told apart by label. */
const two = (...lines: string[]) => said(lines.map((text, i) => [`speaker_${i % 2}`, text]));
/** Everyone as one label, as from a provider that does not diarize. */
const oneVoice = (...lines: string[]) => said(lines.map((text) => ['speaker_0', text]));
const itemsOf = (input: { text: string; segments: TranscriptSegmentOut[] }) => analyzeTranscript(input).actionItems;

test('commitments by a named person, explicit markers and directives, written "Owner: task"', () => {
  expect(
    itemsOf(
      said([
        ['Alice', 'So the launch moves to May.'],
        ['Alice', 'Bob will send the revised budget by Thursday.'],
        ['Carol', "I'll draft the press release."],
        ['Dave', 'Action item: book the venue for the offsite.'],
        ['Bob', 'To do: update the dashboard.'],
        ['Carol', 'Grace, please review the design.'],
      ]),
    ),
  ).toEqual([
    'Bob: send the revised budget by Thursday',
    // A speaker label that is a name (a platform's per-participant track) names the speaker.
    'Carol: draft the press release',
    'Book the venue for the offsite',
    'Update the dashboard',
    'Grace: review the design',
  ]);
});

test('the ways people commit in recogniser text: no punctuation, names in lower case', () => {
  expect(
    itemsOf(
      oneVoice(
        "let's have dana look into the legal review of the discount",
        'okay assign the fabrikam follow up call to Sam for january',
        'we agreed that Priya owns the onboarding checklist',
        'my action is to call the pharmacy about extra doses',
        'action item for me email the grocery partners',
        'and um Mei will update the runbook for the disk alerts',
        'for homework read pages forty to fifty',
        'the clerk will mail the decision letter this week',
      ),
    ),
  ).toEqual([
    'Dana: look into the legal review of the discount',
    'Sam: fabrikam follow up call for January',
    'Priya: owns the onboarding checklist',
    // One label for everyone: "my" and "me" name nobody.
    'Call the pharmacy about extra doses',
    'Email the grocery partners',
    'Mei: update the runbook for the disk alerts',
    'Read pages forty to fifty',
    'Mail the decision letter this week (the clerk)',
  ]);
});

test('a request is an item only when the next turn accepts it; the owner is the one asked, else the one who accepted', () => {
  const items = itemsOf(
    said([
      ['speaker_2', 'hi Anna, Greg here'],
      ['speaker_0', 'Kenji can you add an expiry alert to the dashboard'],
      ['speaker_1', "sure I'll do that this week"],
      ['speaker_0', 'Ravi, can you look into the billing table locks?'],
      ['speaker_1', "hmm I'm not sure I have time"],
      ['speaker_0', 'can you send me the questionnaire template'],
      ['speaker_2', 'sure, will do'],
      ['speaker_0', 'could Sam draft the letter to the fire chief'],
      ['speaker_1', 'yes'],
      ['speaker_0', 'could someone book the room for thursday'],
      ['speaker_1', 'can you hear me'],
      ['speaker_0', 'should we send them a case study?'],
      ['speaker_2', 'maybe later'],
    ]),
  );
  expect(items).toEqual([
    // The acceptance's deadline is kept; "I'll do that" is not a second item.
    'Kenji: add an expiry alert to the dashboard this week',
    // Greg introduced himself (speakers told apart), so the one who accepted has a name; the one Greg greeted spoke
    // next, so speaker_0 is Anna, and "me" is her.
    'Greg: send Anna the questionnaire template',
    'Sam: draft the letter to the fire chief',
  ]);
});

test('"who can …?" goes to whoever answers; a name after the request is the one asked; "Sarah\'s going to", "Jo\'ll"', () => {
  expect(
    itemsOf(
      said([
        ['speaker_1', "Hi, I'm Tom."],
        ['speaker_0', 'Who wants to take the retro notes?'],
        ['speaker_1', 'Me, I will.'],
        ['speaker_0', 'Who can update the onboarding docs?'],
        ['speaker_2', "I can, I'll do it tomorrow."],
        ['speaker_0', 'Who can fix the build?'],
        ['speaker_2', 'Not me.'],
        ['speaker_0', 'Can you do the slides for the board, Ana?'],
        ['speaker_2', 'Sure.'],
        ['speaker_0', "Sarah's going to send the notes to the client. Jo'll book the venue for the offsite."],
      ]),
    ),
  ).toEqual([
    'Tom: take the retro notes',
    // speaker_2 answers to Ana later on, so speaker_2's "I can, I'll do it tomorrow" is hers too.
    'Ana: update the onboarding docs tomorrow',
    'Ana: do the slides for the board',
    'Sarah: send the notes to the client',
    'Jo: book the venue for the offsite',
  ]);
});

test('a punctuated sentence cut across segments at a pause is read whole', () => {
  expect(
    itemsOf(
      said([
        ['A', 'So, Kenji, can you add an expiry alert'],
        ['A', 'to the monitoring dashboard?'],
        ['B', "Sure, I'll do that by Friday."],
        ['A', 'Thanks.'],
      ]),
    ),
  ).toEqual(['Kenji: add an expiry alert to the monitoring dashboard by Friday']);
});

test('"assign it to X" takes the task someone said has to be done', () => {
  expect(
    itemsOf(
      said([
        ['speaker_1', 'Then someone has to send the termination notice before February first.'],
        ['speaker_0', 'Assign it to Nadia, she handles vendor letters.'],
      ]),
    ),
  ).toEqual(['Nadia: send the termination notice before February first']);
});

test('distractors are left out: fillers, predictions, hedges, the past, conditions, reports, offers, rules, questions', () => {
  expect(
    itemsOf(
      oneVoice(
        'I will be honest the old tests were a mess',
        "ok I'll be quick",
        'the vendor will probably push a fix at some point',
        'marketing will probably update those next month',
        'last week Tom sent the contract',
        'Kenji already rotated the cert on tuesday',
        'if we get more walk ins we might need a second room',
        'I would rewrite the consumers in Go if we had time',
        'Helen mentioned she might print the flyers',
        'I can drive on saturdays',
        'please always sign in at the front desk when you arrive',
        'I think we should maybe write a faq entry',
        'will we add more weekend slots?',
        'No new tasks this week.',
        "I'll do that later",
        'The release will be late.',
        'Friday will be busy.',
        'We will see.',
        'you will get your badge on your first shift',
        // What is done in the meeting itself, and what people outside it will do.
        "I'll take care of it",
        "I'll start with the numbers",
        "I'll share my screen",
        'the customer will send the PO next week',
      ),
    ),
  ).toEqual([]);
});

test('a recogniser label is never a name; a self-introduction names a speaker only when speakers are told apart', () => {
  // Diarized: speaker_1 introduced herself, so her commitment is hers; speaker_2 never said who he is.
  expect(
    itemsOf(
      said([
        ['speaker_0', 'ok sprint planning'],
        ['speaker_1', "I'm Leah, I looked at the search index"],
        ['speaker_1', "I'll pair with Raj on the checkout tests on thursday"],
        ['speaker_2', "I'll write the migration script by friday"],
      ]),
    ),
  ).toEqual(['Leah: pair with Raj on the checkout tests on Thursday', 'Write the migration script by Friday']);
  // One label for everyone: "I'm Sue" says nothing about who says the rest.
  expect(itemsOf(oneVoice("hi I'm Sue I coordinate the volunteers", "I'll send the rota tonight"))).toEqual(['Send the rota tonight']);
  expect(itemsOf(said([['A', "I'll send the rota tonight"], ['B', 'thanks']]))).toEqual(['Send the rota tonight']);
  expect(itemsOf(said([['SPEAKER_01', "I'll send the rota tonight"], ['Speaker 2', 'ok']]))).toEqual(['Send the rota tonight']);
});

test('the same item said twice is one item', () => {
  expect(
    itemsOf(oneVoice('Tom will send the release notes by friday', 'so to recap Tom will send the release notes by friday')),
  ).toEqual(['Tom: send the release notes by Friday']);
});

test('the summary names topics and decisions in at most three sentences, never greetings or small talk', async () => {
  const input = said([
    ['speaker_0', 'Good morning everyone, how was your weekend?'],
    ['speaker_1', 'Great, went hiking. Nice weather today.'],
    ['speaker_0', 'First item, the mobile launch budget.'],
    ['speaker_1', 'The mobile launch budget is over by ten percent because of the agency fees.'],
    ['speaker_0', 'We decided to cut the agency fees and keep the launch date in May.'],
    ['speaker_1', 'Bob will send the revised mobile launch budget by Friday.'],
    ['speaker_0', 'Thank you all, see you next week.'],
  ]);
  const first = await new BuiltinAnalyzer().analyze({ ...input, language: 'en' });
  const sentences = first.summary.split(/(?<=\.)\s+/);
  expect(sentences.length).toBeGreaterThanOrEqual(1);
  expect(sentences.length).toBeLessThanOrEqual(3);
  expect(first.summary).toContain('We decided to cut the agency fees and keep the launch date in May.');
  expect(first.summary).toMatch(/mobile launch budget/);
  expect(first.summary).not.toMatch(/morning|weekend|hiking|weather|thank|see you/i);
  expect(await new BuiltinAnalyzer().analyze({ ...input, language: 'en' })).toEqual(first);
});

test('text without segments (a chat prompt) is read sentence by sentence, with no speaker', () => {
  expect(analyzeTranscript({ text: 'The launch moves to May. Bob will send the slides by Friday.', segments: [] })).toEqual({
    summary: 'The launch moves to May. Bob will send the slides by Friday.',
    actionItems: ['Bob: send the slides by Friday'],
  });
});

test('an empty transcript gives an empty summary and no items', () => {
  expect(analyzeTranscript({ text: '', segments: [] })).toEqual({ summary: '', actionItems: [] });
});

describe('owners as a recogniser without speakers gives them (one label for everyone, punctuated)', () => {
  test('the one addressed, in the sentence or the turn before; an assignment; ownership', () => {
    expect(
      itemsOf(
        oneVoice(
          'Olga, please shorten the signup form before the launch.',
          'Pat, you know the housing office. Can you file a complaint with them?',
          'Sure, this week.',
          "Let's have Omar check the invoices against the contracts.",
          'Jun owns the database migration.',
          'Action item, Ravi to order the chairs.',
          'Tina, grab two chairs from the patio.',
          'On it.',
          'Great, then Pat collects the signatures at the door on Saturday.',
        ),
      ),
    ).toEqual([
      'Olga: shorten the signup form before the launch',
      'Pat: file a complaint with them this week',
      'Omar: check the invoices against the contracts',
      'Jun: owns the database migration',
      'Ravi: order the chairs',
      'Tina: grab two chairs from the patio',
      'Pat: collect the signatures at the door on Saturday',
    ]);
  });

  test('"I\'ll …" is the speaker\'s when the turn before or after names them, and nobody\'s otherwise', () => {
    expect(
      itemsOf(
        oneVoice(
          'Can you finish the edit by Wednesday?',
          'Yes, Wednesday is doable, Maya.',
          "I'll write the show notes and the episode description.",
          "I'll email the guest about the cover photo today.",
          'Okay.',
          'Frank, the bricks are late again.',
          "I'll phone the brick supplier this afternoon.",
        ),
      ),
    ).toEqual([
      // The one who answered "Yes" is not named: the request has no owner.
      'Finish the edit by Wednesday',
      // Maya is answered, so she spoke before and speaks next.
      'Maya: write the show notes and the episode description',
      // Two turns on, nothing says who speaks.
      'Email the guest about the cover photo today',
      // Called on by name, Frank answers.
      'Frank: phone the brick supplier this afternoon',
    ]);
  });

  test('a task in the second person is written in the third; "you" is the one spoken to when named', () => {
    expect(itemsOf(oneVoice('Lena, send your notes to the board by Friday.', 'Will do.'))).toEqual(['Lena: send their notes to the board by Friday']);
    expect(itemsOf(oneVoice("I'll email you the updated schedule by Friday, Nadia."))).toEqual(['Email Nadia the updated schedule by Friday']);
    // Thanked by name, Nadia spoke before; the one who thanks her goes on, unnamed.
    expect(itemsOf(oneVoice('The bank needs the schedule.', "Thanks, Nadia. I'll email you the updated schedule by Friday."))).toEqual([
      'Email Nadia the updated schedule by Friday',
    ]);
  });

  test('no owner the meeting never says: a promise on a condition and an offer nobody takes up are no items', () => {
    expect(itemsOf(oneVoice("All right. I'll call you when I hear back.", 'I can drive on saturdays.', 'Okay, bye.'))).toEqual([]);
    // An assignment that waits on a condition, as a recogniser wrote it ("to fill those" heard as "knows").
    expect(itemsOf(oneVoice("let's ask jotafil knows when she's back from leave monday, she knows the shifts."))).toEqual([]);
    // A question written without its mark: "Sam will you …" is asked, not said of Sam.
    expect(itemsOf(oneVoice('Good Sam will you benchmark the dead letter queue'))).toEqual([]);
  });
});

test("the room's participants: a name heard close to one is theirs, and in a room of two, who answers whom", () => {
  const letter = oneVoice(
    'Then we need it in writing, Lewis, would you write a formal letter to the management company?',
    'Yes, this weekend.',
  );
  expect(itemsOf(letter)).toEqual(['Lewis: write a formal letter to the management company this weekend']);
  expect(analyzeTranscript({ ...letter, participants: ['Luis Ortega', 'Gwen', 'Pat'] }).actionItems).toEqual([
    'Luis: write a formal letter to the management company this weekend',
  ]);

  const site = oneVoice(
    "Frank, the bank wants the new schedule. I'll send them the budget today.",
    "Okay, I'll email the updated schedule by Friday.",
    'Thanks. Will the scaffolding arrive on time?',
    "Yes. I'll order the scaffolding tomorrow.",
  );
  // Without participants: the turn right after "Frank, …" is his, and so is the answer to a question put while the
  // talk is with him.
  expect(itemsOf(site)).toEqual(['Send them the budget today', 'Frank: email the updated schedule by Friday', 'Frank: order the scaffolding tomorrow']);
  // Two in the room: who speaks to Frank is Nadia, but the meeting never says her name, so she owns nothing; the thanks
  // and the question pass the floor back and forth.
  expect(analyzeTranscript({ ...site, participants: ['Frank', 'Nadia'] }).actionItems).toEqual([
    'Send them the budget today',
    'Frank: email the updated schedule by Friday',
    'Frank: order the scaffolding tomorrow',
  ]);
});

test('a name heard far from every participant is someone outside the room; close to two, it stays as heard', () => {
  const ask = oneVoice('Zara, can you ask Mary to counter at forty five days?', 'Sure, today.');
  expect(analyzeTranscript({ ...ask, participants: ['Irene', 'Sean'] }).actionItems).toEqual(['Zara: ask Mary to counter at forty five days today']);
  const lara = oneVoice('Lara, please book those two hotels today.');
  expect(analyzeTranscript({ ...lara, participants: ['Amelia', 'Hugo', 'Zara'] }).actionItems).toEqual(['Zara: book those two hotels today']);
  expect(analyzeTranscript({ ...lara, participants: ['Kara', 'Zara'] }).actionItems).toEqual(['Lara: book those two hotels today']);
});

test("with the room known, a word said where a name goes that sounds like a participant's name is that name, misheard", () => {
  // The recogniser wrote "Aisha" as "isha": lower case, so not taken for a name, and not a word either.
  const groups = two('You must hear, isha, are you okay to sort out the reading groups?', "Sure, I'll have the reading groups done by Monday.");
  expect(itemsOf(groups)).toEqual(['Have the reading groups done by Monday']);
  expect(analyzeTranscript({ ...groups, participants: ['Fiona', 'Daniel', 'Aisha'] }).actionItems).toEqual([
    'Aisha: have the reading groups done by Monday',
  ]);
  // A word that is never a name stays a word, though it sounds like one in the room: "Right" is not Rita.
  const right = two('Right, can you book the home visit for Thursday?', 'Yes, I will.');
  expect(analyzeTranscript({ ...right, participants: ['Rita', 'Imran'] }).actionItems).toEqual(['Book the home visit for Thursday']);
});

test('"Should I …?" answered yes is the asker\'s; "should we" and a no are no items', () => {
  const salmon = (answer: string) =>
    said([
      ['Tina', 'Should I tell the servers to stop offering the salmon?'],
      ['Marco', answer],
    ]);
  expect(itemsOf(salmon('Yes, please tell every server before the doors open.'))).toEqual(['Tina: tell the servers to stop offering the salmon']);
  expect(itemsOf(salmon('No, the kitchen will say it.'))).toEqual([]);
  expect(itemsOf(said([['Tina', 'Should we stop offering the salmon?'], ['Marco', 'Yes.']]))).toEqual([]);
});

test('a request set off after an opening clause: "Then drop them, Ravi, please shorten the form"', () => {
  expect(itemsOf(oneVoice('Then drop them, Ravi, please shorten the address form and remove the optional fields.'))).toEqual([
    'Ravi: shorten the address form and remove the optional fields',
  ]);
});

test('a room of two takes turns: between the clues, questions and answers pass the floor (floor.ts)', () => {
  const printer = oneVoice(
    'Hi all, Oscar here.',
    'Hana, the printer quotes came in.',
    'Which one is cheapest?',
    'The second one, by a lot.',
    'Can you order the cheaper printer this week?',
    "Sure, I'll order the printer on Thursday.",
  );
  expect(analyzeTranscript({ ...printer, participants: ['Hana', 'Oscar'] }).actionItems).toEqual(['Oscar: order the printer on Thursday']);
});

test('a participant whose name the meeting never says owns nothing, even when the room tells who spoke', () => {
  const quotes = oneVoice('Oscar, the printer quotes came in.', 'Good, which one is cheapest?', "The second one. I'll order it on Thursday with the card.");
  expect(analyzeTranscript({ ...quotes, participants: ['Hana', 'Oscar'] }).actionItems).toEqual(['Order the printer on Thursday with the card']);
});

test('a name said to someone in the room is theirs even when heard further off; thanks cut from the name still thank', () => {
  const invoice = oneVoice('Norma, can you send the invoice today?', 'Sure.');
  expect(itemsOf(invoice)).toEqual(['Norma: send the invoice today']);
  expect(analyzeTranscript({ ...invoice, participants: ['Tomas', 'Alice'] }).actionItems).toEqual(['Tomas: send the invoice today']);
  // "Thanks. Ingrid.": the offer was Ingrid's.
  const depot = oneVoice('Can we move the delivery to Monday?', 'I can call the depot about the delivery.', 'Thanks. Ingrid.');
  expect(itemsOf(depot)).toEqual(['Call the depot about the delivery']);
  expect(analyzeTranscript({ ...depot, participants: ['Ingrid', 'Walter'] }).actionItems).toEqual(['Ingrid: call the depot about the delivery']);
  // A title's full stop does not hide whom a greeting is for: the answer is the other person's.
  const fridge = oneVoice('Morning, Dr. Osei. The fridge is broken again.', "Okay. I'll phone the repair company today.");
  expect(analyzeTranscript({ ...fridge, participants: ['Lena', 'Dr Osei'] }).actionItems).toEqual(['Dr. Osei: phone the repair company today']);
});

test('"you" with no name is whom the talk is with; a promise answers what was just asked of them', () => {
  expect(
    itemsOf(oneVoice("Okay Priya, let's look at the renewals.", 'The school district renewal is late.', 'I want you to phone their business manager this week.', 'Okay.')),
  ).toEqual(['Priya: phone their business manager this week']);
  expect(
    itemsOf(oneVoice('Good news from the architect, Marta.', 'I need the signed floor plan for the permit.', "I'll send you the signed floor plan on Monday.")),
  ).toEqual(['Marta: send them the signed floor plan on Monday']);
  // Declined, then taken on by whoever asked: not the one who declined.
  expect(itemsOf(oneVoice('Marta, can you file the permit?', "Sorry, I can't this week.", "Then I'll file the permit myself."))).toEqual(['File the permit']);
});

test('more ways to ask and to take on: a name after "please …", "your task is", "I\'ll do it" for what someone must do, "have … ready"', () => {
  expect(itemsOf(oneVoice('Please send me the vendor report by Friday, Tom.'))).toEqual(['Tom: send me the vendor report by Friday']);
  expect(itemsOf(oneVoice('Tom, please, can you check the logs?', 'Sure.'))).toEqual(['Tom: check the logs']);
  expect(itemsOf(oneVoice('Tom, your task is to clean the storage room.'))).toEqual(['Tom: clean the storage room']);
  expect(itemsOf(oneVoice('We need someone to renew the domain.', "I'll do it."))).toEqual(['Renew the domain']);
  expect(itemsOf(oneVoice('Can you have the slides ready by Monday?', 'Yes, Monday works.'))).toEqual(['Have the slides ready by Monday']);
  // Why it is wanted is not part of the task; "have a chat" is still no task.
  expect(itemsOf(oneVoice('Can you have the edit done by Wednesday, so we can publish Thursday?', 'Yes.'))).toEqual(['Have the edit done by Wednesday']);
  expect(itemsOf(oneVoice('Can you have a chat with them?', 'Sure.'))).toEqual([]);
  // A standing rule is still no item, whoever it is said to.
  expect(itemsOf(oneVoice('Please always lock the back door, Tom.'))).toEqual([]);
});

test('"leave it with me" and "not at all" accept; "would you mind calling …" asks for "calling …"; "I\'ll do it" after a refusal takes the request', () => {
  expect(itemsOf(two('Nadia, can you update the budget sheet before Monday?', 'Leave it with me.'))).toEqual(['Nadia: update the budget sheet before Monday']);
  expect(itemsOf(two('Nadia, would you mind calling the landlord about the heating?', 'Not at all.'))).toEqual(['Nadia: calling the landlord about the heating']);
  expect(itemsOf(two('Nadia, would you mind checking the invoices?', "Sorry, I can't today."))).toEqual([]);
  const declinedThenTaken = said([
    ['speaker_0', 'Nadia, can you draft the newsletter?'],
    ['speaker_1', "I can't this week, sorry."],
    ['speaker_2', "I'll do it, I have time."],
  ]);
  expect(itemsOf(declinedThenTaken)).toEqual(['Draft the newsletter']);
  // "it" with nothing before it to stand for is no task, and only a deadline after it joins the task.
  expect(itemsOf(two('The room is booked.', "I'll do it, I have time."))).toEqual([]);
  expect(itemsOf(two('Nadia, can you draft the newsletter?', 'No.', "I'll do it by Friday."))).toEqual(['Draft the newsletter by Friday']);
});

test('"get Marcus clearing dock five" gives Marcus the task; "go over the figures" is a task; "Dock five is blocked" is news, not an instruction', () => {
  expect(itemsOf(oneVoice('Get Marcus clearing dock five first thing.'))).toEqual(['Marcus: clearing dock five first thing']);
  expect(itemsOf(oneVoice('Get Marcus to clear dock five.'))).toEqual(['Marcus: clear dock five']);
  expect(itemsOf(oneVoice('Get the engineer back this week.'))).toEqual([]);
  expect(itemsOf(oneVoice("I'll go over the statistics myself this week."))).toEqual(['Go over the statistics this week']);
  expect(itemsOf(oneVoice("I'll go home early."))).toEqual([]);
  expect(itemsOf(said([['speaker_0', 'Dock five is still blocked with pallets.'], ['speaker_1', 'Yeah, I saw.']]))).toEqual([]);
});

test('speakers told apart (by voice or by the provider): a label is the person its clues name, for all its turns', () => {
  // speaker_1 is asked by name and answers, so every "I'll …" under speaker_1 is Tom's, far from any name.
  const standup = said([
    ['speaker_0', 'Tom, are the webhook tests green?'],
    ['speaker_1', 'Yes, all green since this morning.'],
    ['speaker_0', 'Good. The refund screen still needs review.'],
    ['speaker_1', 'I see.'],
    ['speaker_0', 'And the sandbox keys expired again.'],
    ['speaker_1', "I'll ask finance for new sandbox keys today."],
  ]);
  expect(itemsOf(standup)).toEqual(['Tom: ask finance for new sandbox keys today']);
  // The same words with one label for everyone: the promise is too far from the name to be anyone's.
  expect(itemsOf(oneVoice(...standup.segments.map((s) => s.text)))).toEqual(['Ask finance for new sandbox keys today']);
});

test('a label whose clues disagree may hold two people of one pitch: its turns keep only their own clues', () => {
  // Ana and Raj share speaker_1 (two voices of one pitch range): neither name is the label's.
  const lab = said([
    ['speaker_0', 'Ana, how are the samples?'],
    ['speaker_1', 'Fine, all labelled.'],
    ['speaker_0', 'Raj, can you book the freezer check?'],
    ['speaker_1', "Yes, I'll book it for Monday."],
    ['speaker_0', 'The draft is late.'],
    ['speaker_1', "I'll send the figures tonight."],
  ]);
  expect(analyzeTranscript({ ...lab, participants: ['Kim', 'Ana', 'Raj'] }).actionItems).toEqual([
    'Raj: book the freezer check for Monday',
    'Send the figures tonight',
  ]);
});

test('as many labels as people in the room, all named but one: the last label is the person left, if the meeting names them', () => {
  // speaker_0 (Anita) and speaker_2 (Joe) are named by their clues; speaker_1 never is, but is the room's third person,
  // and the meeting says "Lena".
  const pharmacy = said([
    ['speaker_0', 'Joe, can you check the stock levels on ward nine?'],
    ['speaker_2', 'Yep. Today.'],
    ['speaker_0', 'Good. Can someone double check the controlled drugs register?'],
    ['speaker_1', "Thanks, Anita. I'll double check the register on Wednesday."],
    ['speaker_0', "Lovely. Lena's rota is on the board."],
  ]);
  const items = (participants: string[]) => analyzeTranscript({ ...pharmacy, participants }).actionItems;
  expect(items(['Anita', 'Lena', 'Joe'])).toEqual(['Joe: check the stock levels on ward nine', 'Lena: double check the register on Wednesday']);
  // A fourth person in the room: two people are left for one label, and the promise stays nobody's.
  expect(items(['Anita', 'Lena', 'Joe', 'Kim'])).toEqual(['Joe: check the stock levels on ward nine', 'Double check the register on Wednesday']);
});

test('a name the recogniser wrote as it heard it ("Coffee" for Kofi) still says the name; a common word that sounds alike does not', () => {
  const kitchen = (third: string) =>
    said([
      ['speaker_0', 'Helen here. The fridge log is behind again.'],
      ['speaker_1', "I'll fill in the fridge log before Friday."],
      ['speaker_0', third],
      ['speaker_1', 'It was.'],
    ]);
  const items = (third: string) => analyzeTranscript({ ...kitchen(third), participants: ['Kofi', 'Helen'] }).actionItems;
  // speaker_1 is Kofi by elimination; the meeting says his name only as the recogniser wrote it, capitalised.
  expect(items("Good, that was on Coffee's list from last week.")).toEqual(['Kofi: fill in the fridge log before Friday']);
  // "the coffee list" is a thing, not a name: Kofi is never said, and the promise stays nobody's.
  expect(items('Good, that goes on the coffee list from last week.')).toEqual(['Fill in the fridge log before Friday']);
});

test("a name ending a turn's later sentence is not said to whoever spoke before", () => {
  // "You'll hear from me by Friday, Karen." speaks to Karen (speaker_0), not to Raj, who answered before.
  const renewal = said([
    ['speaker_0', "I'll get you a revised quote by Wednesday."],
    ['speaker_2', 'Raj, can you pull the usage numbers?'],
    ['speaker_1', "Yes, I'll export the usage report tomorrow."],
    ['speaker_2', "And I'll check with legal. You'll hear from me by Friday, Karen."],
    ['speaker_1', "I'll also send the seat count tonight."],
  ]);
  expect(analyzeTranscript({ ...renewal, participants: ['Karen', 'Raj', 'Dana'] }).actionItems).toEqual([
    'Get them a revised quote by Wednesday',
    'Raj: pull the usage numbers tomorrow',
    'Check with legal',
    'Raj: send the seat count tonight',
  ]);
});

test('a reply right after a request under the same label is still its answer (a label may hold two voices)', () => {
  const lab = said([
    ['speaker_0', 'Raj, can you file the freezer request?'],
    ['speaker_0', "Yes, I'll file it today."],
    ['speaker_1', 'Good.'],
  ]);
  expect(itemsOf(lab)).toEqual(['Raj: file the freezer request today']);
});

test('who speaks: "Great. Lena?" calls on Lena; a name ending a reply is said to whoever spoke; "Dr Okafor" and "Okafor" are one person', () => {
  const standup = said([
    ['speaker_0', 'Morning. Ravi, you first.'],
    ['speaker_1', "I'll finish the wiring diagram today."],
    ['speaker_0', 'Great. Lena?'],
    ['speaker_2', "I'll order the cables."],
  ]);
  expect(itemsOf(standup)).toEqual(['Ravi: finish the wiring diagram today', 'Lena: order the cables']);
  const catering = said([
    ['speaker_0', 'Someone should call the caterer.'],
    ['speaker_1', "I'll call the caterer, Priya."],
    ['speaker_0', "Thanks. I'll print the menus tonight."],
  ]);
  expect(itemsOf(catering)).toEqual(['Call the caterer', 'Priya: print the menus tonight']);
  const clinic = said([
    ['speaker_0', 'Thanks for coming, Tariq.'],
    ['speaker_1', 'Happy to help.'],
    ['speaker_0', "I'll send the referral letter tomorrow."],
    ['speaker_1', 'Thank you, Dr Okafor.'],
    ['speaker_0', "And I'll book the scan for Friday."],
  ]);
  expect(analyzeTranscript({ ...clinic, participants: ['Dr Okafor', 'Tariq'] }).actionItems).toEqual([
    'Okafor: send the referral letter tomorrow',
    'Okafor: book the scan for Friday',
  ]);
  const ward = said([
    ['speaker_0', 'Evening, Callum. Busy ward tonight.'],
    ['speaker_1', "I'll check the drips at midnight."],
  ]);
  expect(itemsOf(ward)).toEqual(['Callum: check the drips at midnight']);
});

test('more ways to commit: "put me down for …", "once I have it, I\'ll …", "let\'s have Leo …", "Homework: everyone reads …", an offer taken up', () => {
  expect(itemsOf(oneVoice('Put me down for painting the fence on Sunday.'))).toEqual(['Painting the fence on Sunday']);
  expect(itemsOf(oneVoice('Once I have the keys, I will clean the studio.'))).toEqual(['Clean the studio']);
  // "Leo" is a star sign to the lexicon; after "let's have", a capitalised word is a person.
  expect(itemsOf(oneVoice("Then let's have Leo water the seedlings this week."))).toEqual(['Leo: water the seedlings this week']);
  expect(itemsOf(oneVoice('Homework: everyone reads the second act and writes a scene summary by Friday.'))).toEqual([
    'Read the second act and write a scene summary by Friday',
  ]);
  expect(itemsOf(two('Priti, just label the boxes by noon.', 'Okay, it will be done.'))).toEqual(['Priti: label the boxes by noon']);
  expect(itemsOf(two('Please mop the hallway before you go.', 'Will do. Anything else?'))).toEqual(['Mop the hallway before they go']);
  expect(itemsOf(two("We can't move the date. But I could book a second room for the overflow.", "Yes, let's do that."))).toEqual([
    'Book a second room for the overflow',
  ]);
  // Verbs stay as said, so a keyword of the meeting is in the item; a question the recogniser ran on is cut.
  expect(itemsOf(two('Would you mind sorting the mail and filing the invoices?', 'Not at all.'))).toEqual(['Sorting the mail and filing the invoices']);
  expect(itemsOf(oneVoice("Let's have Omar sweep the yard would it help if I drive him"))).toEqual(['Omar: sweep the yard']);
  // Still no item: an offer nobody takes up, and a "please" that is only a rule.
  expect(itemsOf(two('I could book a second room.', 'Please always close the door.'))).toEqual([]);
});

test('"it" and "them" in a task stand for what was said just before: "book it" is "book the kiln"', () => {
  expect(itemsOf(two("Omar, you're on the kiln. Fire it up before nine tomorrow.", 'Sure.'))).toEqual(['Omar: fire the kiln up before nine tomorrow']);
  // A pronoun alone says nothing to do; with what it stands for, it is a task.
  expect(itemsOf(two('Somebody has to chase the suppliers about the tiles.', "That's mine. I'll ring them today."))).toEqual(['Ring the suppliers today']);
  // "IT" is a department; the verb's own noun ("print" the "printer") is not what "it" stands for.
  expect(itemsOf(two('The old laptop is dead. Chase IT about a new laptop tomorrow.', 'Sure.'))).toEqual(['Chase IT about a new laptop tomorrow']);
  expect(itemsOf(two('You have the printer at home, right?', "I do. I'll print it tonight."))).toEqual([]);
});

test('"I\'ll" as a recogniser drops it, after a comma too; "then that\'s yours, Aisha, ring …" gives Aisha what follows', () => {
  // "I'll email" heard as "I email": a promise only with a time still to come.
  expect(itemsOf(two('The parking permit runs out tonight.', 'Yes, I ring the council first thing.'))).toEqual(['Ring the council first thing']);
  expect(itemsOf(two('Who writes the hiring paragraph?', 'I suppose, I write the hiring paragraph before Monday.'))).toEqual(['Write the hiring paragraph before Monday']);
  expect(itemsOf(two('How do you do the rota?', 'Well, I write the rota every week.'))).toEqual([]);
  // "email" is a verb after "I" (a noun to the tagger on its own); the past is no promise.
  expect(itemsOf(two('Someone should warn the support team.', 'I can take that, I email support this afternoon.'))).toEqual(['Email support this afternoon']);
  expect(itemsOf(two('Is the page live?', 'Yes, I pushed the service page on Friday.'))).toEqual([]);
  // A promise said twice running, the full stop between them lost: one promise, its task what follows the second.
  expect(itemsOf(two('We need the agenda before the board meets.', "I will I'll circulate it a week in advance"))).toEqual(['Circulate the agenda a week in advance']);
  // The group told with a deadline, with no "homework:" before it (the recogniser put that on the sentence before).
  expect(itemsOf(two("I'll post the slides tonight, homework.", 'Everyone reads chapter 4 and answers questions 1 to 10 by Monday.'))).toEqual([
    'Post the slides tonight, homework',
    'Read chapter 4 and answer questions 1 to 10 by Monday',
  ]);
  // A request after an aside: ", okay, can you …".
  expect(itemsOf(two('Nobody uses the page. Then we tell them, okay, can you write up a short how-to for all staff?', 'Yep, tomorrow morning.'))).toEqual([
    'Write up a short how-to for all staff tomorrow',
  ]);
  expect(itemsOf(two('The crime reference is missing.', "Then that's yours, Aisha, ring the policyholder and get the reference from them."))).toEqual([
    'Aisha: ring the policyholder and get the reference from them',
  ]);
  // "you set the permit up" is why it is Callum's, not the task: the task is what was said before.
  expect(itemsOf(two('Somebody has to get the permit moved to Friday.', "Callum, that one's yours, you set the permit up."))).toEqual([
    'Callum: get the permit moved to Friday',
  ]);
});

test('two voices a recogniser ran together: a request answered "Sure, I\'ll …" in the same turn, a sentence cut across segments', () => {
  // One voice for everyone, and a small Whisper cutting a long stretch every few seconds, mid-sentence.
  const cut = oneVoice(
    "Dmitri takes the save crash. Good, Tom, can you write up the exact steps in the tracker",
    "so the testers aren't guessing? Sure, I'll do it straight after this. What about the",
    'controller icons? They are still wrong.',
  );
  expect(itemsOf(cut)).toEqual(["Tom: write up the exact steps in the tracker so the testers aren't guessing"]);
  // "Yes, Chef" names nobody; "it" is what the same sentence said before the promise.
  const kitchen = said([
    ['speaker_0', 'Kerry, the coeliac on table nine is yours.'],
    ['speaker_1', 'Yes, Chef. Also, the walk-in fridge was reading five degrees, I\'ll log it before service.'],
  ]);
  expect(itemsOf(kitchen)).toEqual(['Kerry: log the walk-in fridge before service']);
});

test('what "it" stands for keeps its place ("the hoist in bay four"), not its time; a request\'s "it" too; "a go" is nothing', () => {
  // A request accepted: its "it" is the hoist, with where it is.
  expect(itemsOf(two('Oh, and the hoist in bay four is making a grinding noise.', 'Could you log it with estates, Denise?', 'Yep, fair enough.'))).toEqual([
    'Denise: log the hoist in bay four with estates',
  ]);
  // The tagger cuts "the toolbox talk" from "on working at height"; a preposition joins them again.
  expect(itemsOf(two('Last thing, the toolbox talk on working at height.', "I'll run it on Thursday."))).toEqual(['Run the toolbox talk on working at height on Thursday']);
  // "in the meantime" says when, not which.
  expect(itemsOf(two('Keep the bedroom window in the meantime shut.', "Fine, I'll open it up in the morning."))).toEqual(['Open the bedroom window up in the morning']);
  // "Can't someone else have a go?": "a go" stands for nothing, so "run it" is no task.
  expect(itemsOf(two("Can't someone else have a go?", "Fine, I'll run it later."))).toEqual([]);
  expect(itemsOf(two('Can you run the quiz?', "Can't someone else have a go? I'll run it later."))).toEqual(['Run the quiz later']);
});

test('"you\'re in charge of …", "that\'s you" and "that\'s on me" hand over what was said; "Wonderful, thank you" speaks to no one', () => {
  const three = (...lines: string[]) => said(lines.map((text, i) => [`speaker_${i % 3}`, text]));
  expect(itemsOf(three('Tomas, you are in charge of the raffle prizes.', 'Fine by me.'))).toEqual(['Tomas: own the raffle prizes']);
  expect(itemsOf(three('Somebody has to collect the raffle prizes.', "Tomas, that's you, you've got the van.", 'Fine, Saturday then.'))).toEqual([
    'Tomas: collect the raffle prizes',
  ]);
  expect(itemsOf(three('Somebody has to collect the raffle prizes.', "That's on me."))).toEqual(['Collect the raffle prizes']);
  // The speaker says what they will do: that is the item, once.
  expect(itemsOf(three('Somebody has to collect the raffle prizes.', "That's on me. I'll drive over on Saturday for the prizes."))).toEqual([
    'Drive over on Saturday for the prizes',
  ]);
  // Said to someone by name and followed by the instruction, "you're on the van" is that instruction.
  expect(itemsOf(three("Tomas, you're on the van. Book it for Saturday.", 'Sure.'))).toEqual(['Tomas: book the van for Saturday']);
  expect(itemsOf(three("You're on mute.", 'Sorry.'))).toEqual([]);
  expect(itemsOf(three('Wonderful, thank you Aisha.', 'Sure.'))).toEqual([]);
  expect(itemsOf(three('Get Priya to take the keys round tomorrow, she\'s over that way anyway.'))).toEqual(['Priya: take the keys round tomorrow']);
});

test('a promise after one with no task, an offer with its time, "have … by Friday", the group told what it needs to do', () => {
  // "I'll be there" has no task; the promise after it has.
  expect(itemsOf(two('The council meets tonight.', "I'll be there, and I'll file four hundred words by nine."))).toEqual(['File four hundred words by nine']);
  // A condition opening a later clause holds for what follows it: the first promise stands, the second waits.
  expect(itemsOf(two("That one's yours.", "I'll chase the lender tomorrow, and if they don't answer I'll phone their director on Friday."))).toEqual([
    'Chase the lender tomorrow',
  ]);
  // An offer with its time is a promise, with "if nobody minds" left out; one without a time is still no item.
  expect(itemsOf(two('We need entry forms.', 'I can design the entry forms this weekend, if nobody minds.'))).toEqual(['Design the entry forms this weekend']);
  expect(itemsOf(two('We need photos of the floor.', 'I can send the photos tonight.'))).toEqual(['Send the photos tonight']);
  expect(itemsOf(two('We need photos of the floor.', 'I can send the photos.'))).toEqual([]);
  expect(itemsOf(two('Are we done?', 'I can catch everything for today.'))).toEqual([]);
  // "have" with a deadline is something delivered; "have a chat" is not.
  expect(itemsOf(two('Audit wants two other quotes.', "I'll have two more quotes in by the end of next week."))).toEqual([
    'Have two more quotes in by the end of next week',
  ]);
  expect(itemsOf(two('Audit wants two other quotes.', "I'll have a chat with them."))).toEqual([]);
  // "Everybody needs to …" with its deadline is the group's.
  expect(itemsOf(two('One last thing. Everybody needs to finalise their scores by Friday.', 'Good.'))).toEqual(['Finalise their scores by Friday']);
  // "Should someone …?" asks for a task that "I'll do that" takes on; "go on then" accepts.
  expect(itemsOf(two('Should someone put the date up on the notice board?', "I'll do that tomorrow."))).toEqual([
    'Put the date up on the notice board tomorrow',
  ]);
  expect(itemsOf(two('Sanjay, would you ring the library and reserve their reading group set?', 'Go on then.'))).toEqual([
    'Sanjay: ring the library and reserve their reading group set',
  ]);
});

test('a recogniser\'s slips: "I" for "I\'ll" before a time still to come, "my Friday" and "I Wednesday" for "by"', () => {
  expect(itemsOf(two('How is the model?', 'On our side, I update the runway model before the board meeting.'))).toEqual([
    'Update the runway model before the board meeting',
  ]);
  expect(itemsOf(two('Churn looks high.', "Leave that with me, I'll pull the cohort numbers together and send them over my Friday."))).toEqual([
    'Pull the cohort numbers together and send them over by Friday',
  ]);
  expect(itemsOf(two('The docks too.', "I'll send a written quote with the docks I Wednesday."))).toEqual(['Send a written quote with the docks by Wednesday']);
  // "my Sunday shift" is the speaker's own Sunday.
  expect(itemsOf(two('Who covers?', "I'll swap my Sunday shift with Dana tomorrow."))).toEqual(['Swap my Sunday shift with Dana tomorrow']);
});

test('with the room known, who speaks is one of its participants; more times still to come; "shouldn\'t someone …?"', () => {
  const room = (input: ReturnType<typeof said>) => analyzeTranscript({ ...input, participants: ['Ruth', 'Beth'] }).actionItems;
  // "Half-aid, fine." (for "Half eight, fine.") reads as a name said to someone; nobody of that name is in the room.
  expect(room(two('Half-aid, fine.', 'I can get pictures of the protest outside the town hall before it starts.'))).toEqual([
    'Get pictures of the protest outside the town hall before it starts',
  ]);
  // The same with a participant's name: Beth is answered, and the offer is hers.
  expect(room(two('Thanks, Beth.', 'I can get pictures of the protest outside the town hall before it starts.'))).toEqual([
    'Beth: get pictures of the protest outside the town hall before it starts',
  ]);
  // Asked by name, Brenda answers with "I'll do that": the task is what was asked, and hers.
  expect(itemsOf(two("Brenda, shouldn't someone put the date up on the notice board?", "I'll do that tomorrow."))).toEqual([
    'Brenda: put the date up on the notice board tomorrow',
  ]);
  expect(itemsOf(two('Wednesday?', "Sure, I'll have a draft on your desk Wednesday morning."))).toEqual(['Have a draft on their desk Wednesday morning']);
});

test('"look into it", "go through them", "ring her": what the pronoun stands for; "Me." volunteers; a need nobody takes on', () => {
  expect(itemsOf(two('The new antibiotic guidelines came out on Monday.', "I'll go through them tonight."))).toEqual([
    'Go through the new antibiotic guidelines tonight',
  ]);
  // "the other thing" stands for nothing; "The tag's out of date" keeps the verb's "'s" on its noun.
  expect(itemsOf(two("The other thing was the fire extinguisher by the welding bay. The tag's out of date.", "I'll look into it."))).toEqual([
    'Look into the fire extinguisher by the welding bay',
  ]);
  // "her" is a person said before, never "a doctor" (anyone) and never a thing.
  expect(itemsOf(oneVoice('I meant to phone his daughter but ran out of time, so Ruth will ring her tomorrow.'))).toEqual(['Ruth: ring his daughter tomorrow']);
  expect(itemsOf(two('The daughter wants a word with a doctor.', "Fine, I'll call her at lunchtime."))).toEqual(['Call the daughter at lunchtime']);
  // "Who's passing there?" answered "Me.": the task said to be needed is the volunteer's.
  expect(
    analyzeTranscript({
      ...two('Somebody needs to put the sale on the notice board at the library. Who is passing there?', "Me. I'm there Thursdays anyway.", 'Thanks, Ruth.'),
      participants: ['Gloria', 'Ruth'],
    }).actionItems,
  ).toEqual(['Ruth: put the sale on the notice board at the library']);
  // Needed by a time and nobody takes it on: an item with no owner. Taken on, it is the taker's alone.
  expect(itemsOf(two('Somebody needs to log a ticket with the vendor for that printer today.', 'We might switch to the cloud next year anyway.'))).toEqual([
    'Log a ticket with the vendor for that printer today',
  ]);
  expect(itemsOf(two('Somebody needs to log a ticket with the vendor for that printer today.', 'Assign it to Owen.'))).toEqual([
    'Owen: log a ticket with the vendor for that printer today',
  ]);
  expect(itemsOf(two('Somebody needs to log a ticket with the vendor at some point.', 'We might switch next year anyway.'))).toEqual([]);
});

test('"take it to the garage" carries the thing said before; a clause about "it" names no new "it"; "would you be so kind as to …"', () => {
  // Not "take it" (the task said before): "it" is the generator, not the market where it smoked.
  expect(itemsOf(two('The generator needs a service too. It was smoking at the last market.', "Fine, I'll take it to Dave's garage, but not till Wednesday."))).toEqual([
    "Take the generator to Dave's garage",
  ]);
  // What a clause about "it" says it needs may be what "it" is next.
  expect(itemsOf(two("That loader's been dodgy all week. It needs a proper fault report.", "That one's mine. I'll write it up before the end of shift."))).toEqual([
    'Write a proper fault report up before the end of shift',
  ]);
  expect(itemsOf(two('Colin, would you be so kind as to speak to the council about closing the park road?', 'I suppose so.'))).toEqual([
    'Colin: speak to the council about closing the park road',
  ]);
});

test('the group told what to do ("I want everyone to …", "all of you, …", "every member needs to …"); requests after an aside; "your …" as asked', () => {
  expect(itemsOf(two('Between now and Friday, I want everyone to test the smoke alarms on their own floors.', 'Fine by me.'))).toEqual([
    'Test the smoke alarms on their own floors between now and Friday',
  ]);
  expect(itemsOf(two('One more thing, all of you, get your hours into the system by Friday.', 'Will do.'))).toEqual(['Get their hours into the system by Friday']);
  expect(itemsOf(two('And one for all of us: every member needs to sell ten raffle tickets before the concert.', 'Ten each?'))).toEqual([
    'Sell ten raffle tickets before the concert',
  ]);
  // "In that case, could you …" asks; "his tutor can see it first thing" after it asks nobody.
  expect(itemsOf(two('In that case, could you bring a stool sample in tomorrow morning?', 'Sure, I can drop one in on my way to work.'))).toEqual([
    'Bring a stool sample in tomorrow morning',
  ]);
  expect(itemsOf(two('Could you check his planner every evening and sign it? Then his tutor can see it first thing.', 'Yes, I can do that.'))).toEqual([
    'Check his planner every evening and sign it',
  ]);
  // "your bank statements", asked of the one who promises, are theirs; "the last two years" says when.
  expect(itemsOf(two("We'll need your bank statements for the last two years.", "I can do that. I'll download them tonight and email them over."))).toEqual([
    'Download their bank statements tonight and email them over',
  ]);
});

test('what a recogniser runs together: "not sure why that is, leave it with me, I\'ll …", "I do the home visit on Thursday", "I want everyone to …"', () => {
  expect(itemsOf(two('The bill came to more than I expected.', "Ah, I'm not sure why that is, leave it with me, I'll go through the invoice this afternoon."))).toEqual([
    'Go through the invoice this afternoon',
  ]);
  // A question word in the promise's own part still makes it no promise.
  expect(itemsOf(two('The bill came to more.', "So what I'll do is anyone's guess"))).toEqual([]);
  // "I do" with "'ll" dropped, before a time to come; "I do think …" is no promise; a trailing "and" is cut.
  expect(itemsOf(two('When can you get out there?', 'Right, I do the home visit on Thursday morning and'))).toEqual(['Do the home visit on Thursday morning']);
  expect(itemsOf(two('When can you get out there?', 'I do think Thursday morning works.'))).toEqual([]);
  expect(itemsOf(two('The fire inspection is on the twentieth.', 'I want everyone to test the smoke alarms on their own floors.'))).toEqual([
    'Test the smoke alarms on their own floors',
  ]);
  // "eventually" is a prediction, not a promise.
  expect(itemsOf(two("Ha, yes, it's a disgrace. Facilities will shout at us about it eventually, I'm sure.", 'True.'))).toEqual([]);
});

test('"what do you want me to do?" answered with instructions: each is the asker\'s task, with no acceptance after it', () => {
  expect(
    itemsOf(
      two(
        'Evening, Callum. Quiet day mostly, but Edith had a fall at lunchtime.',
        'Okay. What do you want me to do overnight?',
        'Please do hourly checks on her until the morning. Write them in her chart.',
        'Anything else?',
      ),
    ),
  ).toEqual(['Callum: do hourly checks on her until the morning', 'Callum: write them in her chart']);
  // Without the question, an instruction nobody takes up is no item; news is never one.
  expect(itemsOf(two('Edith had a fall at lunchtime.', 'Oh no.', 'Please do hourly checks on her until the morning.', 'Is she hurt?'))).toEqual([]);
  expect(itemsOf(two('What do you want me to do overnight?', 'Dock five is still blocked.'))).toEqual([]);
});

test('an offer after what cannot be done, taken up; "then, you\'re in charge of …"', () => {
  expect(
    itemsOf(two('Can you also extend the trial by a month?', "I'm afraid not, the trial is fixed at 30 days, but I could set up a training call for your staff.", "Yes, let's do that, Elena.")),
  ).toEqual(['Elena: set up a training call for their staff']);
  // Not taken up, it stays an offer.
  expect(itemsOf(two('Can you extend the trial?', 'The trial is fixed, but I could set up a training call.', 'No, we are fine.'))).toEqual([]);
  expect(itemsOf(two('Plastic eggs this time, please.', "Dev, then, you're in charge of the race timetable.", 'Fine.'))).toEqual(['Dev: own the race timetable']);
});
