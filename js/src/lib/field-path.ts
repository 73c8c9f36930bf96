/**
 * Field paths: a form's name for a place in an answer, `address.city` or `tags.0`; the
 * root is "". A property name is one segment whatever it holds: `~` is written `~0`, `.`
 * is written `~1` and the empty name is `~`, so `a.b` (one key) and `a` > `b` differ.
 */

export function escapeSegment(key: string | number): string {
  if (typeof key === "number") return String(key);
  return key === "" ? "~" : key.replace(/~/g, "~0").replace(/\./g, "~1");
}

export function joinPath(parent: string, key: string | number): string {
  const segment = escapeSegment(key);
  return parent === "" ? segment : `${parent}.${segment}`;
}

/** The field path of a list of keys, as a JSON pointer or a JSON path names them. */
export function pathOf(keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>((path, key) => joinPath(path, key), "");
}

/** `/a/b~1c` (RFC 6901, optionally URI-encoded as in `#/a%20b`) as keys. */
export function pointerKeys(pointer: string, uriEncoded = false): string[] {
  let p = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (p === "") return [];
  if (p.startsWith("/")) p = p.slice(1);
  return p.split("/").map((raw) => {
    let segment = raw;
    if (uriEncoded) {
      try {
        segment = decodeURIComponent(raw);
      } catch {
        segment = raw;
      }
    }
    return segment.replace(/~1/g, "/").replace(/~0/g, "~");
  });
}

/**
 * `$.a.b[0]["x.y"]` as keys: dotted names, `[n]` indexes and bracketed quoted names
 * (JSON strings, or single-quoted as Python's repr writes them).
 */
export function jsonPathKeys(path: string): Array<string | number> {
  const keys: Array<string | number> = [];
  let i = path.startsWith("$") ? 1 : 0;
  while (i < path.length) {
    const c = path[i];
    if (c === ".") {
      let j = i + 1;
      while (j < path.length && path[j] !== "." && path[j] !== "[") j += 1;
      keys.push(path.slice(i + 1, j));
      i = j;
    } else if (c === "[") {
      const quote = path[i + 1];
      if (quote === '"' || quote === "'") {
        let j = i + 2;
        while (j < path.length && path[j] !== quote) j += path[j] === "\\" ? 2 : 1;
        const body = path.slice(i + 2, j);
        let key = body;
        if (quote === '"') {
          try {
            key = JSON.parse(`"${body}"`) as string;
          } catch {
            key = body;
          }
        } else {
          key = body.replace(/\\(['\\])/g, "$1");
        }
        keys.push(key);
        i = path.indexOf("]", j) + 1 || path.length;
      } else {
        const end = path.indexOf("]", i);
        const inner = path.slice(i + 1, end < 0 ? path.length : end);
        keys.push(/^\d+$/.test(inner) ? Number(inner) : inner);
        i = end < 0 ? path.length : end + 1;
      }
    } else {
      let j = i;
      while (j < path.length && path[j] !== "." && path[j] !== "[") j += 1;
      keys.push(path.slice(i, j));
      i = j;
    }
  }
  return keys;
}
