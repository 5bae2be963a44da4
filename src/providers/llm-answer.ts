// Reading a language model's answer (docs/decisions.md §9 "Self-hosted LLMs"): models, small self-hosted ones above all,
// wrap the JSON asked for in a code fence or in prose, answer action items as text or as objects, write "No new
// tasks this week." as an item, or use the recogniser's speaker label as a name. This module turns such an answer
// into clean insights; anything it cannot read is a final failure with the answer's first 200 characters.

import { escapeRegExp } from '../reg-exp.ts';
import { MAX_SUMMARY_SENTENCES } from './builtin/summary.ts';
import { ProviderError, type MeetingInsights } from './types.ts';

export const MAX_ACTION_ITEMS = 50;
export const MAX_TEXT = 10_000;

/** `choices[0].message.content` of an OpenAI-format chat completion. */
export function messageContent(provider: string, parsed: unknown): string {
  const content = (parsed as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw unusable(provider, 'no choices[0].message.content');
  return content;
}

/**
 * The first balanced `{…}` in `text` that parses as JSON: the whole message, a fenced block, or an object with prose
 * around it. Braces inside JSON strings are skipped, so `{"summary": "a {b}"}` is read whole.
 */
export function firstJsonObject(text: string): Record<string, unknown> | undefined {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end === -1) return undefined;
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Not JSON after all (prose with braces): try the next opening brace.
    }
  }
  return undefined;
}

/** Index of the `}` or `]` that closes the `{` or `[` at `start` (brackets inside strings skipped), or -1 when the text ends first. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      depth++;
    } else if ((char === '}' || char === ']') && --depth === 0) {
      return i;
    }
  }
  return -1;
}

/**
 * An answer cut short, as a small model writes one that runs on until the answer's room is spent (llama.cpp then
 * stops: `finish_reason` "length"): the action items written out whole, and the summary's whole sentences. The items
 * are asked for first (ai-openai-compatible.ts answerSchema), but a server without the schema may write either first.
 * Measured on a 45-minute meeting with the 1.5 B model: the first part's answer ran to the end of an 8k context.
 */
function cutShort(content: string): Record<string, unknown> | undefined {
  if (!/^\s*(?:```(?:json)?\s*)?\{\s*"(?:summary|action_items)"\s*:/.test(content)) return undefined;
  const items = wholeItems(content);
  const summary = /"summary"\s*:\s*"((?:[^"\\]|\\.)*)("?)/.exec(content);
  let text = '';
  if (summary?.[2]) text = JSON.parse(`"${summary[1]}"`) as string;
  // The summary itself ran on: its whole sentences.
  else if (summary) text = (/^.*[.!?](?=\s)/s.exec(summary[1])?.[0] ?? '').replace(/\\(["\\/])/g, '$1').replace(/\\n/g, ' ');
  return text || items.length > 0 ? { summary: text, action_items: items } : undefined;
}

/** The items of an answer's `action_items` list that were written out whole (objects, else strings). */
function wholeItems(content: string): unknown[] {
  const key = content.indexOf('"action_items"');
  const list = key === -1 ? -1 : content.indexOf('[', key);
  if (list === -1) return [];
  const items: unknown[] = [];
  const listClosed = balancedEnd(content, list);
  // A list cut short ends where the text does.
  const close = listClosed === -1 ? content.length : listClosed;
  for (let at = content.indexOf('{', list); at !== -1 && at < close; ) {
    const end = balancedEnd(content, at);
    if (end === -1) break;
    try {
      items.push(JSON.parse(content.slice(at, end + 1)));
    } catch {
      // A broken item: skip it.
    }
    at = content.indexOf('{', end + 1);
  }
  // Items written as text: the complete strings of the list.
  if (items.length === 0) for (const match of content.slice(list, close).matchAll(/"((?:[^"\\]|\\.)*)"\s*[,\]]/g)) items.push(JSON.parse(`"${match[1]}"`));
  return items;
}

/**
 * A model's summary as a summary is (docs/decisions.md §9): each sentence once, and at most three. A small model may
 * run on, writing its last sentences again and again until the answer's room is spent (measured with the 1.5 B
 * model: "The meeting concluded with …" eleven times), or go through the meeting topic by topic (26 of 142 of its
 * answers on the spoken corpus held more than three distinct sentences, up to 12) although the prompt asks for three.
 */
export function summarySentences(summary: string): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const sentence of summary.trim().split(/(?<=[.!?])\s+/)) {
    const key = comparable(sentence);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(sentence);
    if (kept.length === MAX_SUMMARY_SENTENCES) break;
  }
  return kept.join(' ').slice(0, MAX_TEXT);
}

/** `{summary, action_items}` from the message of a model; a message without it is a final failure. */
export function insightsFrom(provider: string, content: string): MeetingInsights {
  const json = firstJsonObject(content) ?? cutShort(content);
  if (!json) throw unusable(provider, `the message is not JSON: ${content.slice(0, 200)}`);
  const { summary, action_items: items } = json as { summary?: unknown; action_items?: unknown };
  if (typeof summary !== 'string') throw unusable(provider, '"summary" is not a string');
  if (!Array.isArray(items)) throw unusable(provider, '"action_items" is not a list');
  const texts = items.map((item) => {
    const text = actionItemText(item);
    if (text === undefined) throw unusable(provider, 'an action item is neither text nor an object with text');
    return text;
  });
  return { summary: summarySentences(summary), actionItems: cleanActionItems(texts) };
}

/** The `summary` of a model's message, or undefined when there is none to read. */
export function summaryFrom(content: string): string | undefined {
  const summary = firstJsonObject(content)?.summary;
  return typeof summary === 'string' && summary.trim() ? summarySentences(summary) : undefined;
}

/**
 * An item as "Owner: task by deadline" (docs/decisions.md §9). Models answer text, or objects such as `{owner, task, due}`;
 * an object's owner and deadline are added unless its text already says them.
 */
function actionItemText(item: unknown): string | undefined {
  if (typeof item === 'string') return item.trim();
  if (!item || typeof item !== 'object') return undefined;
  const value = item as Record<string, unknown>;
  const text = [value.task, value.text, value.description, value.item, value.action].find((v) => typeof v === 'string') as string | undefined;
  if (text === undefined) return undefined;
  let out = text.trim();
  const due = duePhrase([value.due, value.deadline, value.due_date, value.by].find((v) => typeof v === 'string' && v.trim()) as string | undefined);
  // A task that already says which day or week keeps its own words: "call the CFO this week" is not also "next week";
  // "read it over the weekend" still takes "by Friday" (the two may be for different parts of it).
  const twoRelative = due !== undefined && RELATIVE_TIME.test(out) && RELATIVE_TIME.test(due);
  // "send the files back on Monday" with due "Monday" says it already, in its own words ("by Monday" would say it twice).
  const said = due !== undefined && new RegExp(String.raw`\b${escapeRegExp(due.replace(DUE_PREPOSITION, ''))}\b`, 'i').test(out);
  if (due && !said && !twoRelative) out = `${out.replace(/[.\s]+$/, '')} ${due}`;
  const owner = [value.owner, value.assignee, value.who].find((v) => typeof v === 'string' && v.trim()) as string | undefined;
  // "Ann" is not said by "send the banner ads": the owner's name as a word.
  if (owner && !new RegExp(String.raw`\b${escapeRegExp(owner.trim())}\b`, 'i').test(out)) out = `${owner.trim()}: ${out}`;
  return out;
}

/** The word a due phrase starts with that says how it is due, not when. */
const DUE_PREPOSITION = /^(?:by|before|on|in|at|for|until)\s+/i;

/** A day or week said relative to the meeting. */
const RELATIVE_TIME = /\b(?:today|tonight|tomorrow|(?:this|next) (?:morning|afternoon|evening|week|weekend|month|\p{L}+day))\b/iu;
/** A due the model gives that says no time. */
const NO_TIME = /^(?:later|soon|sometime|some time|eventually|tbd|tba|none|null|n\/?a|unknown|not specified|unspecified|no deadline|ongoing|-)$/i;
const PART_OF_DAY = /^(?:morning|afternoon|evening)$/i;
/** Time words written in lower case inside a task: "Tomorrow" → "tomorrow"; "Friday" keeps its capital. */
const COMMON_TIME_WORD = /^(?:today|tonight|tomorrow|this|next|by|before|on|in|at|end|within|after|until|asap|as|afternoon|morning|evening|later|week|weekend|month)\b/i;

/**
 * The model's due as a phrase to end a task with, or undefined when it says no time: "Friday" → "by Friday";
 * "Afternoon" → "this afternoon"; "Tomorrow" → "tomorrow"; "before the launch", "next week" stand as they are;
 * "Later", "TBD" → nothing.
 */
export function duePhrase(raw: string | undefined): string | undefined {
  let due = raw?.trim().replace(/[.\s]+$/, '');
  if (!due || NO_TIME.test(due)) return undefined;
  if (PART_OF_DAY.test(due)) due = `this ${due.toLowerCase()}`;
  if (COMMON_TIME_WORD.test(due)) due = due.charAt(0).toLowerCase() + due.slice(1);
  return /^(?:by|before|on|in|at|this|next|tomorrow|today|tonight|asap|as soon as|end of|within|after|until)\b/i.test(due) ? due : `by ${due}`;
}

/** A recogniser's speaker label (`speaker_0`, `Speaker 2`, `spk_1`): never a person's name (docs/decisions.md §9). */
const SPEAKER_LABEL = /^(?:speaker|spk)[ _-]?\d+$/i;
/** An owner prefix: `Name: ` at the start of an item. */
const OWNER_PREFIX = /^([^:\n]{1,60}):\s+/;
/** Empty owners models write when the meeting names none. */
const NO_OWNER = /^(?:null|none|n\/?a|unknown|unassigned|tbd|nobody|no one|someone|-)$/i;

/**
 * Items as a tenant may rely on them: no owner that is a speaker label or a placeholder, nothing that says there is
 * nothing to do, no repeats (the parts of a long meeting often name the same task), at most MAX_ACTION_ITEMS.
 */
export function cleanActionItems(items: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of items) {
    const item = withoutFalseOwner(raw.trim().replace(/^(?:[-*•]\s+|\d{1,2}[.)]\s+)/, '')).slice(0, MAX_TEXT);
    if (!item || saysNothingToDo(item)) continue;
    const key = comparable(item);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(item);
    if (out.length === MAX_ACTION_ITEMS) break;
  }
  return out;
}

function withoutFalseOwner(item: string): string {
  const owner = OWNER_PREFIX.exec(item)?.[1].trim();
  if (owner && (SPEAKER_LABEL.test(owner) || NO_OWNER.test(owner))) return item.slice(OWNER_PREFIX.exec(item)![0].length).trim();
  return item;
}

const TASK_WORDS = '(?:action items?|actions?|tasks?|follow ?ups?|to ?dos?|items?|assignments?|commitments?|next steps?|open points?)';
const QUALIFIER = '(?:new|further|other|open|specific|clear|concrete|additional|outstanding|pending)';
const TAIL_WORDS =
  '(?: (?:were|was|have|has|been|are|is|identified|assigned|mentioned|discussed|agreed|recorded|noted|raised|given|this|week|today|for|now|at|the|moment|time|from|meeting|in|yet|so|far|here|currently|right|on|call|session))*';
/** "None", "N/A", "No new tasks this week", "There are no action items", "Nothing to do", after the owner. */
const NOTHING_TO_DO = new RegExp(
  `^(?:none(?: at this time| for now| this week| today)?|n a|na|nil|not applicable|nothing(?: (?:to do|to report|new|pending|assigned|else))?${TAIL_WORDS}` +
    `|no(?: ${QUALIFIER})? ${TASK_WORDS}${TAIL_WORDS}` +
    `|there (?:are|were|is|was) no(?: ${QUALIFIER})? ${TASK_WORDS}${TAIL_WORDS}` +
    `|no ?one (?:took on|was assigned|volunteered for) (?:a|any) ${TASK_WORDS}${TAIL_WORDS}` +
    `|nobody (?:took on|was assigned|volunteered for) (?:a|any) ${TASK_WORDS}${TAIL_WORDS})$`,
);

export function saysNothingToDo(item: string): boolean {
  const text = comparable(item.replace(OWNER_PREFIX, ''));
  return text === '' || NOTHING_TO_DO.test(text);
}

/** Lower case, letters and digits only, single spaces: how two wordings of one item are compared. */
function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function unusable(provider: string, why: string): ProviderError {
  return new ProviderError(`${provider} gave an unusable answer: ${why}`, { retryable: false });
}
