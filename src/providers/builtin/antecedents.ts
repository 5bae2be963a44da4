// What "it" and "them" stand for in an action item (docs/decisions.md §9: an item reads on its own). "Omar, you're on
// the van. Book it for both Saturdays." is "book the van for both Saturdays"; "Somebody has to chase the lawyers." →
// "That's on me, I'll email them today." is "email the lawyers today". The antecedent is the first noun phrase of the
// same number in the nearest clause before, within a few clauses; a person's name, a pronoun or a word that stands for
// nothing ("someone", "the ones") is never one. Found nothing, the item keeps its pronoun.
import { nounPhrases } from './names.ts';

/** How many clauses back an antecedent may be (a request and its answer, with a remark between). */
const CLAUSES_BACK = 4;

/** The first object pronoun of a task, right after its verb ("book it", "fire it up", "email them"); not "it's". */
const OBJECT_PRONOUN = /^(\p{L}+(?:\s+(?:up|out|back|over|round|around|off|in|on))?)\s+(it|them)\b(?!')/iu;

/** Words that open a noun phrase naming a thing ("the van", "their leader"); "my" and "your" belong to a speaker. */
const DETERMINER = /^(?:the|a|an|this|that|these|those|our|their|his|her)$/i;

/** Heads of noun phrases that stand for nothing said: "the ones", "someone", "that". */
const NOT_AN_ANTECEDENT = /^(?:(?:the|a|an|this|that|these|those|some|any)\s+)?(?:ones?|someone|somebody|anyone|anybody|everyone|everybody|something|anything|nothing|thing|things|way|time|times|bit|lot|one|people|guys|folks|everything|we|you|they|i|it|he|she|us|them|me|him|her|that|this|those|these|what|which|who)$/i;

/**
 * The task with its object pronoun replaced by what it stands for, when an earlier clause says it. `earlier`: the
 * clauses said before the item's own, nearest last.
 */
export function withAntecedent(task: string, earlier: readonly string[]): string {
  const match = OBJECT_PRONOUN.exec(task);
  // "chase IT about the laptop": the IT department, not a pronoun.
  if (!match || match[2] === 'IT') return task;
  const plural = match[2].toLowerCase() === 'them';
  const verb = match[1].split(/\s+/)[0];
  for (const clause of earlier.slice(-CLAUSES_BACK).reverse()) {
    const phrase = nounPhrases(clause).find((noun) => noun.plural === plural && isThing(noun.text, verb));
    if (phrase) return `${match[1]} ${lowerArticle(phrase.text)}${task.slice(match[0].length)}`;
  }
  return task;
}

/**
 * A noun phrase that names a thing or a group: a determiner and at most three words more (a longer "phrase" is a
 * clause the tagger misread), not a person's name or a pronoun, and not the verb's own noun ("print" the "printer").
 */
function isThing(phrase: string, verb: string): boolean {
  const words = phrase.split(/\s+/);
  const head = words[words.length - 1].toLowerCase();
  return (
    DETERMINER.test(words[0]) &&
    words.length >= 2 &&
    words.length <= 4 &&
    !NOT_AN_ANTECEDENT.test(phrase) &&
    !head.startsWith(verb.toLowerCase())
  );
}

/** "The van" → "the van" inside a task (the determiner only: a name after it keeps its capital). */
function lowerArticle(phrase: string): string {
  const [first, ...rest] = phrase.split(' ');
  return [first.toLowerCase(), ...rest].join(' ');
}
