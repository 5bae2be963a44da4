// Fitting a transcript into a language model's context window (docs/decisions.md §9 "Self-hosted LLMs"): an estimate of
// tokens that errs on the large side, and cutting the transcript's lines into parts that each fit a budget.

/**
 * Characters per token we assume. Real tokenizers give about 4 for English speech; 3 over-counts the tokens, so a
 * part estimated to fit does fit (a server that still refuses it makes the adapter cut smaller, see
 * ai-openai-compatible.ts).
 */
const CHARS_PER_TOKEN = 3;
/** Scripts written without spaces take about one token per character (or more), not one per three. */
const DENSE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;

/** Tokens `text` takes at most, as far as we can tell without the server's tokenizer. */
export function estimateTokens(text: string): number {
  const dense = text.match(DENSE_SCRIPT)?.length ?? 0;
  return Math.ceil((text.length - dense) / CHARS_PER_TOKEN + dense);
}

/**
 * The first lines of `lines` that fit `budget` tokens (each line counts its newline), and the rest. A part is never
 * empty: a single line over the budget is cut at a word boundary (at a character when one word is too long), and
 * what is left of it keeps its `speaker: ` prefix so the next part still says who spoke.
 */
export function takePart(lines: readonly string[], budget: number): { part: string[]; rest: string[] } {
  const part: string[] = [];
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const cost = estimateTokens(lines[i]) + 1;
    if (used + cost <= budget) {
      part.push(lines[i]);
      used += cost;
      continue;
    }
    if (part.length > 0) return { part, rest: lines.slice(i) };
    const [head, tail] = cutLine(lines[i], budget - 1);
    return { part: [head], rest: tail ? [tail, ...lines.slice(i + 1)] : lines.slice(i + 1) };
  }
  return { part, rest: [] };
}

/** `line` cut so that its head fits `budget` tokens; the tail carries the line's speaker prefix. */
function cutLine(line: string, budget: number): [string, string | undefined] {
  const prefix = /^[^:\n]{1,60}: /.exec(line)?.[0] ?? '';
  let head = '';
  const words = line.slice(prefix.length).split(/(\s+)/);
  let taken = 0;
  for (; taken < words.length; taken++) {
    const next = head + words[taken];
    if (estimateTokens(prefix + next) > budget) break;
    head = next;
  }
  if (!head.trim()) {
    // One word longer than the whole budget: cut it by characters.
    const chars = Math.max(1, (budget - estimateTokens(prefix)) * CHARS_PER_TOKEN);
    const body = line.slice(prefix.length);
    const tail = body.slice(chars);
    return [prefix + body.slice(0, chars), tail ? prefix + tail : undefined];
  }
  const tail = words.slice(taken).join('').trim();
  return [prefix + head.trimEnd(), tail ? prefix + tail : undefined];
}
