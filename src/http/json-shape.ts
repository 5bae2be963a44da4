import { ApiError, validationError } from '../domain/errors.ts';

/** How deep a request body may nest arrays and objects (docs/decisions.md §16); the contract's deepest body needs 4. */
export const MAX_JSON_NESTING = 32;

/**
 * How many values a request body may hold in all (each array or object and each of their members counts one). The
 * contract's largest valid body holds about 400 (a bulk add of 100 entries; test/unit/http/schema-bounds.test.ts
 * computes it and keeps it under half of this), so this refuses nothing valid. It bounds what JSON.parse allocates and
 * what walking the result costs: a megabyte of `1,1,1,…` took 20-30 ms to parse, one of `"k1":0,"k2":0,…` (90,000
 * keys) 120-280 ms and as much again to list its keys, and at 10,000 keys still ~10 ms each; at 2,000 about 1 ms.
 */
export const MAX_JSON_VALUES = 2_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * What makes JSON text too costly to parse, read from the raw bytes before anything parses them (undefined when
 * nothing does): nesting deeper than `maxNesting`, or more than `maxValues` values. Commas and brackets inside strings
 * do not count; a backslash inside a string escapes the next byte (`"\""` stays one string). Malformed text is left to
 * JSON.parse to refuse. One pass that stops at the first excess, no allocation: ~1 ms for 1 MiB.
 */
export function costlyJsonShape(bytes: Uint8Array, maxNesting = MAX_JSON_NESTING, maxValues = MAX_JSON_VALUES): string | undefined {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === COMMA) {
      if (++values > maxValues) return `must not hold more than ${maxValues} values in all`;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxNesting) return `must not nest arrays and objects deeper than ${maxNesting} levels`;
      if (++values > maxValues) return `must not hold more than ${maxValues} values in all`;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return undefined;
}

/**
 * For body parsers' `verify` hook: throws 400 VALIDATION_ERROR (at `/body`) when a body is too costly to parse
 * (costlyJsonShape). The byte scan reads UTF-8, where the ASCII bytes it looks for never occur inside another
 * character; a body in another `utf-*` charset (which the JSON parser also accepts) is scanned as UTF-8 after
 * decoding, and one that Node cannot decode is 415, as it could not be checked.
 */
export function refuseCostlyJson(bytes: Buffer, charset = 'utf-8'): void {
  const problem = costlyJsonShape(charset === 'utf-8' ? bytes : asUtf8(bytes, charset));
  if (problem) throw validationError('/body', problem);
}

function asUtf8(bytes: Buffer, charset: string): Buffer {
  try {
    return Buffer.from(new TextDecoder(charset).decode(bytes), 'utf8');
  } catch {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type charset ${charset} is not supported; send UTF-8`);
  }
}
