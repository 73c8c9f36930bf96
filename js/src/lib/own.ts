/**
 * Objects keyed by data: property names and field paths come from schemas and answers a
 * model or a tool wrote, so `__proto__`, `constructor` or `toString` are ordinary keys.
 * Records made here have no prototype, and reads see only a record's own keys.
 */

/** An empty record without a prototype: every key is an own key or absent. */
export function record<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function hasOwn(target: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(target, key);
}

/** `target[key]` when `key` is the target's own key, else `undefined`. */
export function own<T>(target: Readonly<Record<string, T>>, key: string): T | undefined {
  return hasOwn(target, key) ? target[key] : undefined;
}

/** Sets `key` as an own data property, even `__proto__` on an ordinary object. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A copy of `source` without a prototype, with `key` set. */
export function withKey<T>(source: Readonly<Record<string, T>>, key: string, value: T): Record<string, T> {
  const copy = Object.assign(record<T>(), source);
  setOwn(copy, key, value);
  return copy;
}
