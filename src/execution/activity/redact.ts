/**
 * @module Which object keys name secrets (activity_redact_keys): a key matches a listed name
 * when the name's letters and digits end at one of the key's word ends, case and separators
 * ignored (`api_key` matches `apiKey`, `X-API-Key`, `apikey`; `token` matches `access_token`
 * and `refreshToken`, not `max_tokens`).
 */

/** Whether an object key names a secret. */
export type SecretKeyTest = (key: string) => boolean;

/** Keys tested per matcher are remembered, up to this many (keys are the caller's to choose). */
const MAX_REMEMBERED_KEYS = 4096;

/** The key's letters and digits, lowercased, and the positions where one of its words ends. */
function words(key: string): { text: string; ends: Set<number> } {
  let text = '';
  const ends = new Set<number>();
  const chars = [...key];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (!/[\p{L}\p{N}]/u.test(c)) {
      if (text) ends.add(text.length);
      continue;
    }
    const next = chars[i + 1];
    const prev = chars[i - 1];
    const upper = (s: string | undefined) => s !== undefined && /\p{Lu}/u.test(s);
    const lower = (s: string | undefined) => s !== undefined && /\p{Ll}/u.test(s);
    // A word starts at an upper-case letter after a lower-case one (apiKey), or at the last
    // capital of a run followed by a lower-case letter (APIKey: API | Key).
    if (text && upper(c) && (lower(prev) || (upper(prev) && lower(next)))) ends.add(text.length);
    text += c.toLowerCase();
  }
  ends.add(text.length);
  return { text, ends };
}

/** A listed name's letters and digits, lowercased: `api_key` -> `apikey`. */
export const normalizedName = (name: string): string => words(name).text;

/** Whether a key names a secret, for the names listed (case and separators ignored). */
export function secretKeyTest(names: readonly string[]): SecretKeyTest {
  const wanted = [...new Set(names.map(normalizedName).filter(Boolean))];
  const remembered = new Map<string, boolean>();
  return (key) => {
    const known = remembered.get(key);
    if (known !== undefined) return known;
    const { text, ends } = words(key);
    let found = false;
    for (const name of wanted) {
      for (let at = text.indexOf(name); at !== -1 && !found; at = text.indexOf(name, at + 1))
        found = ends.has(at + name.length);
      if (found) break;
    }
    if (remembered.size >= MAX_REMEMBERED_KEYS) remembered.clear();
    remembered.set(key, found);
    return found;
  };
}

const byList = new WeakMap<readonly string[], SecretKeyTest>();

/** The test for a config's list, made once per list (the config is replaced, never changed, on reload). */
export function secretKeysOf(names: readonly string[]): SecretKeyTest | undefined {
  if (names.length === 0) return undefined;
  let test = byList.get(names);
  if (!test) {
    test = secretKeyTest(names);
    byList.set(names, test);
  }
  return test;
}
