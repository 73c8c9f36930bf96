/**
 * Which image addresses a person may load from model or tool text. An image is fetched
 * with the browser's cookies and from inside the person's network, so an address that
 * reaches the notebook server (`/logout`), another service on this computer, the local
 * network or a cloud metadata endpoint (169.254.169.254) is refused, and so is plain
 * `http:`. Only literal addresses can be judged here: a public name that resolves to a
 * private address is beyond what the page can see.
 */

export type ImageAddress = { ok: true; href: string } | { ok: false; reason: string };

/** The page the view is in: its own server is never an image source. */
export interface Page {
  origin: string;
  hostname: string;
}

function currentPage(): Page | null {
  const where = globalThis.location;
  return where ? { origin: where.origin, hostname: where.hostname } : null;
}

// Suffixes that only this computer or its local network resolve (RFC 6761, 6762, 8375).
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "lan", "localdomain"];

const V4_RANGES: [number, number, string][] = [
  [0x00000000, 8, "an unspecified address"],
  [0x0a000000, 8, "a private network address"],
  [0x64400000, 10, "a private network address (shared address space)"],
  [0x7f000000, 8, "a loopback address (this computer)"],
  [0xa9fe0000, 16, "a link-local address (the local network, or a cloud metadata service)"],
  [0xac100000, 12, "a private network address"],
  [0xc0a80000, 16, "a private network address"],
  [0xe0000000, 4, "a multicast address"],
  [0xf0000000, 4, "a reserved address"],
];

function inRange(value: number, base: number, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (value & mask) >>> 0 === base;
}

/** What kind of local IPv4 address `value` is, or null for a public one. */
function v4Local(value: number): string | null {
  for (const [base, bits, what] of V4_RANGES) if (inRange(value, base, bits)) return what;
  return null;
}

/** A dotted IPv4 address as URL normalizes it (decimal, octal and hex forms become dotted). */
function parseV4(host: string): number | null {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!parts) return null;
  const bytes = parts.slice(1).map(Number);
  if (bytes.some((b) => b > 255)) return null;
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

/** The eight 16-bit pieces of an IPv6 address as URL serializes it (hex pieces, one `::`). */
function parseV6(host: string): number[] | null {
  const inner = /^\[([0-9a-f:.]+)\]$/i.exec(host)?.[1];
  if (!inner) return null;
  const expand = (part: string): number[] | null => {
    if (part === "") return [];
    const pieces: number[] = [];
    for (const piece of part.split(":")) {
      const v4 = parseV4(piece);
      if (v4 !== null) pieces.push(v4 >>> 16, v4 & 0xffff);
      else if (/^[0-9a-f]{1,4}$/i.test(piece)) pieces.push(Number.parseInt(piece, 16));
      else return null;
    }
    return pieces;
  };
  const halves = inner.split("::");
  if (halves.length > 2) return null;
  const head = expand(halves[0]!);
  const tail = halves.length === 2 ? expand(halves[1]!) : [];
  if (!head || !tail) return null;
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}

/** What kind of local IPv6 address `p` is, or null for a public one. IPv4 addresses carried
 * inside (mapped, compatible, NAT64, 6to4) are judged as IPv4. */
function v6Local(p: number[]): string | null {
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => ((p[hi]! << 16) | p[lo]!) >>> 0;
  if (zeros(0, 8)) return "an unspecified address";
  if (zeros(0, 7) && p[7] === 1) return "a loopback address (this computer)";
  if (zeros(0, 5) && (p[5] === 0xffff || p[5] === 0)) return v4Local(v4(6, 7));
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return v4Local(v4(6, 7));
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return v4Local(v4(6, 7));
  if (p[0] === 0x2002) return v4Local(v4(1, 2));
  const first = p[0]!;
  if ((first & 0xfe00) === 0xfc00) return "a unique local address (a private network)";
  if ((first & 0xffc0) === 0xfe80) return "a link-local address (the local network)";
  if ((first & 0xffc0) === 0xfec0) return "a site-local address (a private network)";
  if ((first & 0xff00) === 0xff00) return "a multicast address";
  return null;
}

const bare = (hostname: string) => hostname.toLowerCase().replace(/\.+$/, "");

/** Why a host is one the image may not come from, or null. */
function localHost(hostname: string): string | null {
  const name = bare(hostname);
  const v4 = parseV4(name);
  if (v4 !== null) return v4Local(v4);
  if (name.startsWith("[")) {
    const v6 = parseV6(name);
    return v6 ? v6Local(v6) : "an address that could not be read";
  }
  if (LOCAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    return name === "localhost" || name.endsWith(".localhost") ? "this computer (localhost)" : "a name of the local network";
  }
  if (!name.includes(".")) return "a name without a domain, which only the local network knows";
  return null;
}

/** Whether the image at `src` may be loaded on request, and if not, why, in words. */
export function imageAddress(src: string, page: Page | null = currentPage()): ImageAddress {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return { ok: false, reason: "a relative address would be fetched from the notebook server" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, reason: `only https images are loaded, and this address is ${url.protocol}` };
  }
  if (url.username || url.password) return { ok: false, reason: "the address carries a user name or password" };
  if (page && url.origin === page.origin) return { ok: false, reason: "it is the notebook server's own address" };
  const local = localHost(url.hostname);
  if (local) return { ok: false, reason: `the address is ${local}` };
  if (page && bare(url.hostname) === bare(page.hostname)) return { ok: false, reason: "it is on the notebook server's own host" };
  if (url.protocol !== "https:") return { ok: false, reason: "only https images are loaded, and this address is http:" };
  return { ok: true, href: url.href };
}
