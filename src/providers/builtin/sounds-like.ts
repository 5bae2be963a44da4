// Whether a word the recogniser wrote may be a participant's name it misheard ("Coffee" for Kofi, "Clear" for Claire,
// "John" for Jun, "Thomas" for Tomasz): the two sound alike by Double Metaphone (the `double-metaphone` package, the
// standard phonetic key for English names: each word gets a primary and an alternate key). Letters alone miss these:
// "Coffee" and "Kofi" are four edits apart, as far as "Coffee" and "Cliff"; the sound is what the recogniser kept.
import { doubleMetaphone } from 'double-metaphone';

/** Keys this short ("T", "N") are shared by too many words ("an", "in", "one" all sound like "N"). */
const MIN_KEY = 2;

function keysOf(word: string): string[] {
  return doubleMetaphone(word.toLowerCase().replace(/'s$/, '')).filter((key) => key.length >= MIN_KEY);
}

/** The word and the name share a phonetic key of two sounds or more. */
export function soundsLike(word: string, name: string): boolean {
  const heard = new Set(keysOf(word));
  return keysOf(name).some((key) => heard.has(key));
}
