/**
 * The `format`s the browser checks: the validator's own (@cfworker/json-schema), the ones
 * it lacks that ajv-formats had, and three read as loosely as the kernel reads them. The
 * kernel checks at least as much (tests/test_formats_match_browser.py). Checks are bounded:
 * a string longer than FORMAT_MAX_LENGTH is left to the kernel.
 */
import { format as formats } from "@cfworker/json-schema";
import { hasOwn, record } from "./own";

/** Longer strings are left to the kernel's format check. */
export const FORMAT_MAX_LENGTH = 4096;

// Formats the validator lacks; three it reads more strictly than the kernel (a
// hostname's final dot, a `urn:uuid:` prefix, a regex read without the `u` flag); and
// `url`, whose regex there backtracks exponentially (`(?:[a-z]+-?)*`: 3 s for 33
// characters): this is the kernel's, where each label ends at a `-` and the user name
// holds no `:`, so that no two parts can match the same characters.
const INT32 = [-(2 ** 31), 2 ** 31 - 1];
const URL_ =
  /^(?:https?|ftp):\/\/(?:[^\s:@/]+(?::[^\s@/]*)?@)?(?:(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))(?::\d{2,5})?(?:\/[^\s]*)?$/iu;
const extraFormats: Record<string, (value: string) => boolean> = {
  url: (s) => URL_.test(s),
  hostname: (s) => /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i.test(s),
  uuid: (s) => /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(s),
  regex: (s) => {
    if (/[^\\]\\Z/.test(s)) return false;
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  },
  "iso-time": (s) => /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(?:z|[+-]\d\d(?::?\d\d)?)?$/i.test(s) && isTime(s),
  "iso-date-time": (s) => {
    const at = s.search(/[tT\s]/);
    return at > 0 && formats.date(s.slice(0, at)) && extraFormats["iso-time"](s.slice(at + 1));
  },
  byte: (s) => s.length % 4 === 0 && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
};

function isTime(s: string): boolean {
  const [h, m, sec] = s.split(":").map((part) => Number.parseFloat(part));
  return h <= 23 && m <= 59 && sec < 61;
}

const NUMBER_FORMATS: Record<string, (value: number) => boolean> = {
  int32: (n) => Number.isInteger(n) && n >= INT32[0] && n <= INT32[1],
  int64: (n) => Number.isInteger(n) && n >= -(2 ** 63) && n <= 2 ** 63,
  float: () => true,
  double: () => true,
};

// Formats are bounded once, for every validator: a long string is the kernel's to check.
const known = record<(value: string) => boolean>();
for (const [name, check] of [...Object.entries(formats), ...Object.entries(extraFormats)]) {
  known[name] = check;
}
for (const name of Object.keys(known)) {
  const check = known[name];
  (formats as Record<string, (value: string) => boolean>)[name] = (value) => value.length > FORMAT_MAX_LENGTH || check(value);
}

/** Whether the validator checks `name` on strings (and the name is no prototype key). */
export function isStringFormat(name: string): boolean {
  return hasOwn(known, name);
}

/** Whether `name` is a format of numbers, checked by `numberFits`. */
export function isNumberFormat(name: string): boolean {
  return hasOwn(NUMBER_FORMATS, name);
}

/** Whether `value` fits the number format `name` (any other name fits). */
export function numberFits(name: string, value: number): boolean {
  return !isNumberFormat(name) || NUMBER_FORMATS[name](value);
}

// A schema's `pattern` runs as a format of its own, so that it can be bounded like the
// formats (see patterns.ts); the name cannot clash with a schema's format, which is only
// kept when it is one of the names above.
const PATTERN_FORMAT = "pattern ";
const patternFormats = record<(value: string) => boolean>();

/** The name of a format that matches `pattern` on texts of at most `maxLength`. */
export function patternFormat(pattern: string, maxLength: number): string {
  const name = `${PATTERN_FORMAT}${pattern}`;
  if (!hasOwn(patternFormats, name)) {
    const regex = new RegExp(pattern, "u");
    const check = (value: string) => value.length > maxLength || regex.test(value);
    patternFormats[name] = check;
    (formats as Record<string, (value: string) => boolean>)[name] = check;
  }
  return name;
}

/** The pattern a `patternFormat` name stands for, or null for any other format. */
export function patternOfFormat(name: string): string | null {
  return hasOwn(patternFormats, name) ? name.slice(PATTERN_FORMAT.length) : null;
}
