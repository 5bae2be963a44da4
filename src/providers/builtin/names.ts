// Who is who in a transcript, for the builtin analyser (docs/decisions.md §9: owners only when the meeting names them, never a
// recogniser's label). Recognisers often write names in lower case ("lisa please schedule a demo"), so a word is a name
// when compromise's English lexicon knows it as a first or last name, or when it is capitalised where a sentence
// does not start and the lexicon does not know it as an ordinary word ("Kenji", "Fabrikam"). Words in the slots where
// people are addressed ("raj could you …", "let's have priya …") may be names the lexicon does not know; those slots
// use `isLooseName`.
import { createRequire } from 'node:module';

type Compromise = typeof import('compromise').default;

// Loaded on first use, not at import: building its English model costs a quarter of a second of CPU, and every process
// and test file that imports the provider registry (all of them) would pay it, though only post-meeting analysis uses it.
const requireHere = createRequire(import.meta.url);
let compromise: { nlp: Compromise; lexicon: Record<string, string | string[] | undefined> } | undefined;
function loaded(): NonNullable<typeof compromise> {
  if (!compromise) {
    const nlp = requireHere('compromise') as Compromise;
    compromise = { nlp, lexicon: (nlp.model() as { one: { lexicon: Record<string, string | string[] | undefined> } }).one.lexicon };
  }
  return compromise;
}
const nlp = (text: string) => loaded().nlp(text);
const NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'LastName', 'Person']);

/** Titles spoken before a name ("Dr Patel", "council member Diaz"): part of how the owner is written. */
export const TITLE = String.raw`(?:dr|doctor|mr|mrs|ms|miss|prof|professor|director|chair|chairman|chairwoman|council ?member|council(?:wo)?man|coach|nurse|officer|judge|mayor|principal|pastor)\.?`;
const TITLE_WORD = new RegExp(`^${TITLE}$`, 'i');

/** Words that are never a person's name, whatever the lexicon or the capitals say. */
const NEVER_NAMES = new Set(
  `i i'm i'll we you he she it they me us him her them this that these those there here what who which when where why
  how the a an and but so or then also everyone everybody someone somebody anyone anybody nobody none team staff all whoever whatever
  both each every either neither nothing something anything maybe perhaps probably hopefully sure great good okay ok
  yes yeah yep yup no nope thanks thank well now let let's lets um uh uhm hmm er erm ah oh hey hi hello right alright
  cool nice perfect awesome fine just actually really please can could would will should shall might may must do does
  did don't is are was were be been being have has had not today tomorrow yesterday tonight monday tuesday wednesday
  thursday friday saturday sunday january february march april may june july august september october november
  december next last first second third morning afternoon evening week month year quarter speaker guys folks chef sir
  madam boss mate`.split(/\s+/),
);

/** A word that is never a person's name ("I", "Monday", "okay"). */
export function isNeverAName(word: string): boolean {
  return NEVER_NAMES.has(word.replace(/'s$/i, '').toLowerCase());
}

function lexiconTags(word: string): string[] {
  const tags = loaded().lexicon[word.toLowerCase()];
  return tags === undefined ? [] : Array.isArray(tags) ? tags : [tags];
}

function isCapitalised(word: string): boolean {
  return /^\p{Lu}/u.test(word);
}

/** A word that names a person wherever it stands (`initial`: the first word of a sentence, where capitals say nothing). */
export function isStrictName(word: string, initial: boolean): boolean {
  const bare = word.replace(/'s$/i, '');
  if (bare.length < 2 || NEVER_NAMES.has(bare.toLowerCase()) || /\d|_/.test(bare)) return false;
  const tags = lexiconTags(bare);
  if (tags.some((tag) => NAME_TAGS.has(tag))) return true;
  return isCapitalised(bare) && tags.length === 0 && (!initial || bare.length >= 3);
}

/** A word in a slot where someone is addressed or named: also an unknown lower-case word ("raj could you …"). */
export function isLooseName(word: string): boolean {
  const bare = word.replace(/'s$/i, '');
  if (isStrictName(bare, true)) return true;
  return bare.length >= 3 && /^\p{L}[\p{L}'-]*$/u.test(bare) && !NEVER_NAMES.has(bare.toLowerCase()) && lexiconTags(bare).length === 0;
}

/** A capitalised word that may be a name where capitals mean something (not a sentence's first word). */
export function isCapitalisedName(word: string): boolean {
  const bare = word.replace(/'s$/i, '');
  return isCapitalised(bare) && bare.length >= 2 && !NEVER_NAMES.has(bare.toLowerCase()) && !/\d|_/.test(bare);
}

/**
 * A word said to someone as their name, set off by a comma ("Tina, grab …", "… doable, Maya."). Where a sentence does
 * not start, a capital is enough (a recogniser capitalises names, and "Maya" is also a noun to the lexicon); at the
 * start, where every word has one, a name the lexicon knows or a word it does not know, other than an adverb in -ly.
 */
export function isVocativeName(word: string, initial: boolean): boolean {
  const bare = word.replace(/'s$/i, '');
  if (bare.length < 2 || NEVER_NAMES.has(bare.toLowerCase()) || /\d|_/.test(bare) || !isCapitalised(bare)) return false;
  const tags = lexiconTags(bare);
  if (tags.some((tag) => NAME_TAGS.has(tag))) return true;
  if (!initial) return true;
  // "Wonderful, thank you": a word the lexicon does not know but whose ending says what it is (-ful, -ous, -ive …).
  if (bare.length < 3 || /(?:ly|ful|ous|ive|able|ible|ical|less|ing)$/i.test(bare) || NOT_CALLED.has(bare.toLowerCase())) return false;
  // A name the lexicon also knows as something else: "Maya" (a noun), "Frank" (an adjective's comparative), "Jun".
  return tags.every((tag) => ALSO_A_NAME.has(tag));
}

/** Words said first and set off by a comma that are not someone's name ("Look, …", "People, …"; NEVER_NAMES too). */
const NOT_CALLED = new Set(`look listen see wait people friends man dude honey dear lovely brilliant cheers fantastic excellent super`.split(/\s+/));
/** Lexicon tags of words that are also first names. */
const ALSO_A_NAME = new Set(['Noun', 'Singular', 'ProperNoun', 'Comparative', 'Place', 'City', 'Country', 'Month', 'Date']);

export function isTitle(word: string): boolean {
  return TITLE_WORD.test(word);
}

/** "council member diaz" → "Council Member Diaz". */
export function displayName(name: string): string {
  return name
    .split(/\s+/)
    .map((word) => (isCapitalised(word) ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(' ');
}

/**
 * A recogniser's label (`speaker_0`, `SPEAKER_01`, `A`, `Speaker 2`, `spk1`) says nothing about who spoke. A label that
 * is itself a name (a platform's per-participant track, an edited transcript: "Alice") names the speaker.
 */
export function labelAsName(label: string | null): string | null {
  if (label === null) return null;
  const trimmed = label.trim();
  if (/^(?:speaker|spk|spkr|participant|voice|channel|person|s)?[\s_-]*\d+$/i.test(trimmed) || /^[A-Z]$/i.test(trimmed)) return null;
  const words = trimmed.split(/\s+/);
  if (words.length > 3) return null;
  return words.every((word, i) => isStrictName(word, i === 0) || (i > 0 && isCapitalised(word))) ? trimmed : null;
}

/** Self-introductions: "I'm Rosa", "this is Anna from …", "Greg here", "hey it's Omar", "my name is Sue". */
const INTRODUCTION = new RegExp(
  String.raw`(?:\b(?:i'm|i am|my name is|this is|it's|its)\s+((?:${TITLE}\s+)?[\p{L}][\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)?))|(?:^|[,.]\s*|\b(?:hi|hey|hello)\s+(?:\p{L}+,?\s+)?)((?:${TITLE}\s+)?[\p{L}][\p{L}'-]*)\s+here\b`,
  'giu',
);

/** The name a speaker gives themselves in what they say, if exactly one. */
export function introducedName(text: string): string | undefined {
  const names = new Set<string>();
  for (const match of text.matchAll(INTRODUCTION)) {
    const candidate = (match[1] ?? match[2]).trim();
    const words = candidate.split(/\s+/);
    const personal = words.filter((word) => !isTitle(word));
    // "this is the incident review", "I'm blocked": a name after the title, and every word of it a name.
    if (personal.length === 0 || !isStrictName(personal[0], false)) continue;
    const kept = words.slice(0, words.indexOf(personal[0]) + 1);
    if (personal[1] && isCapitalised(personal[1]) && isStrictName(personal[1], false)) kept.push(personal[1]);
    names.add(displayName(kept.join(' ')));
  }
  return names.size === 1 ? [...names][0] : undefined;
}

/**
 * Speaker label → name, only where the meeting makes it clear: the label is a name, or (when the transcript tells
 * speakers apart) a speaker introduced themselves with one name and no other speaker claimed it. With one label for
 * everyone, an introduction says nothing about who says the rest, so nothing is mapped.
 */
export function speakerNames(segments: ReadonlyArray<{ speaker: string | null; text: string }>): Map<string, string> {
  const labels = new Set(segments.flatMap((segment) => (segment.speaker === null ? [] : [segment.speaker])));
  const named = new Map<string, string>();
  for (const label of labels) {
    const name = labelAsName(label);
    if (name) named.set(label, name);
  }
  if (labels.size < 2) return named;
  const claims = new Map<string, Set<string>>();
  for (const segment of segments) {
    if (segment.speaker === null || named.has(segment.speaker)) continue;
    const name = introducedName(segment.text);
    if (!name) continue;
    const set = claims.get(segment.speaker) ?? new Set<string>();
    set.add(name);
    claims.set(segment.speaker, set);
  }
  const claimedBy = new Map<string, number>();
  for (const set of claims.values()) for (const name of set) claimedBy.set(name, (claimedBy.get(name) ?? 0) + 1);
  for (const [label, set] of claims) {
    const [name] = [...set];
    if (set.size === 1 && claimedBy.get(name) === 1) named.set(label, name);
  }
  return named;
}

/** A word for a role rather than a person ("the clerk", "the finance director"), by compromise's lexicon. */
export function isRoleWord(word: string): boolean {
  return lexiconTags(word).includes('Actor');
}

/**
 * A phrase that starts with a verb in its base form, as compromise tags it in context ("grab two chairs", "update the
 * forecast"): how an instruction starts. Slower than a lexicon look-up; used only where a rule already matched.
 */
export function startsWithVerb(phrase: string): boolean {
  const terms = (nlp(phrase).json() as Array<{ terms: Array<{ tags: string[] }> }>)[0]?.terms ?? [];
  const tags = terms[0]?.tags ?? [];
  return tags.includes('Infinitive') || tags.includes('Imperative');
}

/**
 * Whether "I …" says a verb of the present first, as compromise tags it after "I": "I email support this afternoon"
 * ("email" alone is a noun to the tagger).
 */
export function isVerbAfterI(phrase: string): boolean {
  const terms = (nlp(`I ${phrase}`).json() as Array<{ terms: Array<{ tags: string[] }> }>)[0]?.terms ?? [];
  const tags = terms[1]?.tags ?? [];
  // "I meant to …", "I pushed …": the past is no promise.
  return (tags.includes('Infinitive') || tags.includes('PresentTense')) && !tags.includes('PastTense');
}

/**
 * "Chloe starts on Monday", "Monday works for me": a noun and then a verb of the present, a statement of what happens
 * rather than something to do ("send the invoice", "email Nadia the schedule" start with what to do).
 */
export function isStatement(phrase: string): boolean {
  const terms = (nlp(phrase).json() as Array<{ terms: Array<{ tags: string[] }> }>)[0]?.terms ?? [];
  const [first, second] = terms.map((term) => term.tags);
  if (!first || !second) return false;
  return first.includes('Noun') && !first.includes('Verb') && second.includes('PresentTense') && !second.includes('Infinitive');
}

/** A word compromise's lexicon knows as a verb in its base form ("write", "read"). */
export function isBaseVerb(word: string): boolean {
  return lexiconTags(word).some((tag) => tag === 'Infinitive' || tag === 'Verb');
}

/** The noun phrases of a clause in order, each with whether it is plural ("the lawyers", "the option pool"). */
export function nounPhrases(text: string): Array<{ text: string; plural: boolean }> {
  const found = nlp(text).nouns().json() as Array<{ text: string; noun?: { isPlural?: boolean } }>;
  return found.map((phrase) => ({ text: phrase.text.replace(/[.,!?;:]+$/u, ''), plural: phrase.noun?.isPlural === true }));
}
