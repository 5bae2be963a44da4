// What "it", "them", "her" and "him" stand for in an action item (docs/decisions.md §9: an item reads on its own).
// "Omar, you're on the van. Book it for both Saturdays." is "book the van for both Saturdays"; "Somebody has to chase
// the lawyers." → "That's on me, I'll email them today." is "email the lawyers today". The antecedent is the first noun
// phrase of the same number in the nearest clause before, within a few clauses, with the place a preposition ties to
// it ("log it with estates" after "the hoist in bay four is grinding" is "log the hoist in bay four …"; "in the
// meantime" says when, and is left out); a person's name, a pronoun or a word that stands for nothing ("someone", "the
// ones", "the other thing", "a go") is never one. "her" and "him" stand for a person said by what they are ("his
// daughter", "their caretaker"), never "a doctor" (anyone). Found nothing, the item keeps its pronoun. A request's task
// is read the same way as a promise's.
import { nounPhrases } from './names.ts';
import { escapeRegExp } from '../../reg-exp.ts';

/** How many clauses back an antecedent may be (a request and its answer, with a remark between). */
const CLAUSES_BACK = 4;

/**
 * The first object pronoun of a task, right after its verb ("book it", "fire it up", "email them", "look into it", "go
 * through them"); not "it's".
 */
const OBJECT_PRONOUN = /^(\p{L}+(?:\s+(?:up|out|back|over|round|around|off|in|on|into|at|through|after|with))?)\s+(it|them|her|him)\b(?!')/iu;

/** People a meeting speaks of by what they are, whom "her" and "him" may stand for ("ring her" after "his daughter"). */
const PERSON_NOUN =
  /^(?:daughter|son|mother|mum|mom|father|dad|wife|husband|partner|sister|brother|owner|manager|leader|caretaker|landlord|landlady|tenant|client|customer|patient|doctor|nurse|registrar|consultant|agent|engineer|driver|teacher|parent|neighbour|neighbor|plumber|electrician|builder|lawyer|solicitor|accountant|rep|contact|coach|supervisor|boss|head)$/i;

/**
 * Words that open a noun phrase naming a thing ("the van", "their leader", "your bank statements" as someone else asked
 * for them); "my" belongs to whoever said it.
 */
const DETERMINER = /^(?:the|a|an|this|that|these|those|our|their|his|her|your)$/i;

/** Heads of noun phrases that stand for nothing said: "the ones", "someone", "that". */
const NOT_AN_ANTECEDENT = /^(?:(?:the|a|an|this|that|these|those|some|any)\s+)?(?:ones?|someone|somebody|anyone|anybody|everyone|everybody|something|anything|nothing|thing|things|way|time|times|bit|lot|one|people|guys|folks|everything|we|you|they|i|it|he|she|us|them|me|him|her|that|this|those|these|what|which|who|go|word|look|chat|break|hand|minute|second|shot|try|mine|yours|ours|theirs)$/i;

/**
 * The task with its object pronoun replaced by what it stands for, when an earlier clause says it. `earlier`: the
 * clauses said before the item's own, nearest last.
 */
export function withAntecedent(task: string, earlier: readonly string[]): string {
  const match = OBJECT_PRONOUN.exec(task);
  // "chase IT about the laptop": the IT department, not a pronoun.
  if (!match || match[2] === 'IT') return task;
  const pronoun = match[2].toLowerCase();
  const plural = pronoun === 'them';
  const person = pronoun === 'her' || pronoun === 'him';
  const verb = match[1].split(/\s+/)[0];
  // "The generator needs a service. It was smoking at the last market.": a clause about "it" speaks of the same thing
  // as one before it, so a place it names ("at the last market") is not what "it" stands for; what it needs may be
  // ("It needs a proper fault report." → "I'll write it up").
  const sameSubject = person ? /^(?:she|he)\b/i : plural ? /^(?:they|they're|they've|they'll)\b/i : /^(?:it|it's|its)\b/i;
  for (const clause of earlier.slice(-CLAUSES_BACK).reverse()) {
    const aboutIt = sameSubject.test(clause.trim());
    const phrase = withTheirPlace(clause, nounPhrases(clause)).find(
      (noun) =>
        (person ? !noun.plural && isPerson(noun.text) : noun.plural === plural && isThing(noun.text, verb)) &&
        !(aboutIt && AFTER_PREPOSITION(noun.text).test(clause)),
    );
    if (phrase) return `${match[1]} ${lowerArticle(phrase.text)}${task.slice(match[0].length)}`;
  }
  return task;
}

/** A noun phrase right after a preposition: a place or a time, not a thing acted on. */
const AFTER_PREPOSITION = (phrase: string) => new RegExp(String.raw`\b(?:in|on|at|for|of|from|by|to|with|into|about)\s+${escapeRegExp(phrase)}`, 'i');

/** A preposition that ties a place or a purpose to a noun: "the hoist in bay four", "the back room at the Red Lion". */
const PREPOSITION = String.raw`\s+(?:in|on|at|for|of|from|by)\s+`;
const OF_PLACE = new RegExp(`^${PREPOSITION}$`, 'i');
/** A phrase's head and the place tied to it: "the hoist" and "bay four". */
const HEAD_AND_PLACE = new RegExp(`^(.*?)${PREPOSITION}(.+)$`, 'i');

/** A noun phrase that says when, not what: "in the meantime", "for Wednesday", "for both days". */
const WHEN =
  /\b(?:meantime|morning|afternoon|evening|night|day|days|week|weeks|weekend|month|months|year|end|moment|minute|minutes|hour|hours|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|today|tonight|tomorrow|years)$/i;

/**
 * The tagger's noun phrases, each followed by the ones a preposition ties to it ("the toolbox talk" + "on working" +
 * "at height"): what "it" stands for is the whole ("run the toolbox talk on working at height").
 */
function withTheirPlace(clause: string, phrases: ReturnType<typeof nounPhrases>): ReturnType<typeof nounPhrases> {
  let from = 0;
  const placed = phrases.map((phrase) => {
    const at = clause.indexOf(phrase.text, from);
    from = at < 0 ? from : at + phrase.text.length;
    return { ...phrase, at, end: at < 0 ? -1 : at + phrase.text.length };
  });
  return placed.map((phrase, i) => {
    let text = phrase.text;
    let end = phrase.end;
    for (const next of placed.slice(i + 1)) {
      if (end < 0 || next.at < 0 || !OF_PLACE.test(clause.slice(end, next.at)) || WHEN.test(next.text)) break;
      text = clause.slice(phrase.at, next.end);
      end = next.end;
    }
    // "the bedroom air in the meantime": the tagger's own phrase may end on when, not what.
    const place = HEAD_AND_PLACE.exec(text);
    return { text: place && WHEN.test(place[2]) ? place[1] : text, plural: phrase.plural };
  });
}

/**
 * A noun phrase that names a thing or a group: a determiner and at most three words more before any preposition (a
 * longer "phrase" is a clause the tagger misread), not a person's name or a pronoun, and not the verb's own noun
 * ("print" the "printer").
 */
function isThing(phrase: string, verb: string): boolean {
  const words = phrase.split(/\s+/);
  const headWords = (HEAD_AND_PLACE.exec(phrase)?.[1] ?? phrase).split(/\s+/);
  const head = headWords[headWords.length - 1].toLowerCase();
  return (
    DETERMINER.test(words[0]) &&
    headWords.length >= 2 &&
    headWords.length <= 4 &&
    words.length <= 8 &&
    !NOT_AN_ANTECEDENT.test(headWords.join(' ')) &&
    // "the other thing" stands for nothing; "The tag's out of date": the tagger kept the verb's "'s" on the noun.
    !NOT_AN_ANTECEDENT.test(head) &&
    !/'s$/i.test(head) &&
    !head.startsWith(verb.toLowerCase())
  );
}

/** "his daughter", "their caretaker": a determiner and a word for a person, nothing more. */
function isPerson(phrase: string): boolean {
  const words = phrase.split(/\s+/);
  // "a doctor" is anyone; "her" is someone known.
  return words.length <= 3 && DETERMINER.test(words[0]) && !/^(?:a|an)$/i.test(words[0]) && PERSON_NOUN.test(words[words.length - 1]);
}

/** "The van" → "the van" inside a task (the determiner only: a name after it keeps its capital). */
function lowerArticle(phrase: string): string {
  const [first, ...rest] = phrase.split(' ');
  return [first.toLowerCase(), ...rest].join(' ');
}
